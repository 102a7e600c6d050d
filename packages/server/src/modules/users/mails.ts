import { LOCALES, type Locale } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { enqueueMail, renderMail } from '../../platform/mail/index.ts';
import { settingValue } from '../settings/service.ts';
import { ACCOUNT_MAIL_TEXTS, type AccountMailKind } from './mail-texts.ts';
import { TOKEN_LIFETIME_HOURS } from './tokens.ts';

const LIFETIME_HOURS: Record<AccountMailKind, number> = {
  confirmRegistration: TOKEN_LIFETIME_HOURS['confirm-registration'],
  resetPassword: TOKEN_LIFETIME_HOURS['reset-password'],
  changeEmail: TOKEN_LIFETIME_HOURS['change-email'],
  // Links to the login page: no token, nothing expires.
  emailChanged: 0,
  twoFactorReset: 0,
};

/** The web page each mail links to, with the query the page reads. */
export function accountLink(ctx: AppContext, kind: AccountMailKind, query: Record<string, string | number>): string {
  const page = { confirmRegistration: '/register/confirm', resetPassword: '/reset-password', changeEmail: '/account/change-email', emailChanged: '/login', twoFactorReset: '/login' }[kind];
  const search = new URLSearchParams(Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]));
  return `${ctx.config.publicUrl}${page}?${search}`;
}

/** The language an account chose (kept from its last visit), else the given one. */
export function mailLocaleOf(user: { locale: string | null }, otherwise: Locale = 'en'): Locale {
  return (LOCALES as readonly string[]).includes(user.locale ?? '') ? (user.locale as Locale) : otherwise;
}

function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));
}

/**
 * Queues one account mail in the transaction, in the recipient's language, branded with the
 * product name and logo of the settings. The caller wakes the worker after the commit.
 */
export async function queueAccountMail(
  ctx: AppContext,
  trx: Executor,
  mail: { kind: AccountMailKind; to: string; locale: Locale; link: string; email: string; newEmail?: string },
): Promise<void> {
  const productName = await settingValue<string>(trx, 'theme.productName');
  const logo = await settingValue<string | null>(trx, 'theme.logo');
  const logoUrl = logo ? (/^https?:\/\//.test(logo) ? logo : `${ctx.config.publicUrl}${logo.startsWith('/') ? '' : '/'}${logo}`) : null;
  const texts = ACCOUNT_MAIL_TEXTS[mail.locale];
  const text = texts.mails[mail.kind];
  const values = { product: productName, email: mail.email, newEmail: mail.newEmail ?? '', hours: LIFETIME_HOURS[mail.kind] };
  const rendered = renderMail({
    locale: mail.locale,
    productName,
    logoUrl,
    subject: fill(text.subject, values),
    greeting: texts.greeting,
    intro: [fill(text.intro, values)],
    action: { label: text.action, url: mail.link },
    outro: [fill(text.outro, values)],
  });
  await enqueueMail(trx, { ...rendered, to: mail.to });
}
