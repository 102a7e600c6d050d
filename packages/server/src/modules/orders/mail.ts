import { DEFAULT_LOCALE, type Locale } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { enqueueMail, renderMail } from '../../platform/mail/index.ts';
import { settingValue } from '../settings/service.ts';
import { accountLink } from '../users/mails.ts';
import { issueToken } from '../users/tokens.ts';

/** The set-password link of an account created from an order works for a week: nobody was waiting for it. */
export const SET_PASSWORD_LINK_DAYS = 7;

interface SetPasswordText {
  subject: string;
  greeting: string;
  intro: string;
  action: string;
  outro: string;
}

/** The mail in the five languages; {product}, {email}, {name} and {days} are filled in. */
const TEXTS: Record<Locale, SetPasswordText> = {
  en: {
    subject: 'Your account at {product}',
    greeting: 'Hello {name},',
    intro: 'Thank you for your order. We have created an account at {product} for {email}, where your licenses are waiting for you. Please choose your password:',
    action: 'Set your password',
    outro: 'The link works once and for {days} days. After that, use "Forgot your password?" on the login page.',
  },
  de: {
    subject: 'Ihr Konto bei {product}',
    greeting: 'Hallo {name},',
    intro: 'vielen Dank für Ihre Bestellung. Wir haben für {email} ein Konto bei {product} angelegt, in dem Ihre Lizenzen bereitliegen. Bitte wählen Sie Ihr Passwort:',
    action: 'Passwort festlegen',
    outro: 'Der Link ist einmal und {days} Tage lang gültig. Danach hilft „Passwort vergessen?“ auf der Anmeldeseite.',
  },
  es: {
    subject: 'Su cuenta en {product}',
    greeting: 'Hola, {name}:',
    intro: 'Gracias por su pedido. Hemos creado una cuenta en {product} para {email}, donde le esperan sus licencias. Elija su contraseña:',
    action: 'Establecer la contraseña',
    outro: 'El enlace funciona una sola vez y durante {days} días. Después, utilice «¿Ha olvidado su contraseña?» en la página de inicio de sesión.',
  },
  fr: {
    subject: 'Votre compte sur {product}',
    greeting: 'Bonjour {name},',
    intro: 'Merci pour votre commande. Nous avons créé un compte sur {product} pour {email}, où vos licences vous attendent. Veuillez choisir votre mot de passe :',
    action: 'Définir le mot de passe',
    outro: 'Le lien fonctionne une seule fois et pendant {days} jours. Ensuite, utilisez « Mot de passe oublié ? » sur la page de connexion.',
  },
  it: {
    subject: 'Il tuo account su {product}',
    greeting: 'Ciao {name},',
    intro: 'grazie per il tuo ordine. Abbiamo creato un account su {product} per {email}, dove ti aspettano le tue licenze. Scegli la tua password:',
    action: 'Imposta la password',
    outro: 'Il link funziona una sola volta e per {days} giorni. Dopo, usa "Password dimenticata?" nella pagina di accesso.',
  },
};

const fill = (template: string, values: Record<string, string | number>) => template.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));

/**
 * Queues, in the order's transaction, the mail with which the customer of a new account chooses a
 * password: a password-reset link (the reset page sets it), in the order's language. The caller wakes
 * the mail worker after the commit.
 */
export async function queueSetPasswordMail(ctx: AppContext, trx: Executor, user: { id: number; email: string; firstName: string }, locale: Locale | null, now: Date): Promise<void> {
  const token = await issueToken(trx, user.id, 'reset-password', null, now, SET_PASSWORD_LINK_DAYS * 24);
  const productName = await settingValue<string>(trx, 'theme.productName');
  const logo = await settingValue<string | null>(trx, 'theme.logo');
  const logoUrl = logo ? (/^https?:\/\//.test(logo) ? logo : `${ctx.config.publicUrl}${logo.startsWith('/') ? '' : '/'}${logo}`) : null;
  const language = locale ?? DEFAULT_LOCALE;
  const text = TEXTS[language];
  const values = { product: productName, email: user.email, name: user.firstName, days: SET_PASSWORD_LINK_DAYS };
  const mail = renderMail({
    locale: language,
    productName,
    logoUrl,
    subject: fill(text.subject, values),
    greeting: fill(text.greeting, values),
    intro: [fill(text.intro, values)],
    action: { label: text.action, url: accountLink(ctx, 'resetPassword', { email: user.email, token }) },
    outro: [fill(text.outro, values)],
  });
  await enqueueMail(trx, { ...mail, to: user.email });
}
