import type { Locale } from '@lm/contract';
import { INVITATION_VALID_DAYS } from '@lm/contract/organization';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { enqueueMail, renderMail } from '../../platform/mail/index.ts';
import { settingValue } from '../settings/service.ts';

interface InvitationText {
  subject: string;
  greeting: string;
  intro: string;
  action: string;
  outro: string;
  ignore: string;
}

/** The invitation in the five languages; {organization}, {inviter}, {days} and {email} are filled in. */
const TEXTS: Record<Locale, InvitationText> = {
  en: {
    subject: 'Invitation to {organization}',
    greeting: 'Hello,',
    intro: '{inviter} invites you to join the organization {organization}, to use its licenses.',
    action: 'Accept the invitation',
    outro: 'The link works for {days} days. Sign in, or register with {email}, to accept.',
    ignore: 'If you do not want to join, ignore this mail.',
  },
  de: {
    subject: 'Einladung zu {organization}',
    greeting: 'Hallo,',
    intro: '{inviter} lädt Sie ein, der Organisation {organization} beizutreten und ihre Lizenzen zu nutzen.',
    action: 'Einladung annehmen',
    outro: 'Der Link gilt {days} Tage. Melden Sie sich an oder registrieren Sie sich mit {email}, um anzunehmen.',
    ignore: 'Wenn Sie nicht beitreten möchten, ignorieren Sie diese E-Mail.',
  },
  es: {
    subject: 'Invitación a {organization}',
    greeting: 'Hola:',
    intro: '{inviter} le invita a unirse a la organización {organization} para usar sus licencias.',
    action: 'Aceptar la invitación',
    outro: 'El enlace funciona durante {days} días. Inicie sesión o regístrese con {email} para aceptar.',
    ignore: 'Si no desea unirse, ignore este correo.',
  },
  fr: {
    subject: 'Invitation à {organization}',
    greeting: 'Bonjour,',
    intro: '{inviter} vous invite à rejoindre l’organisation {organization} pour utiliser ses licences.',
    action: 'Accepter l’invitation',
    outro: 'Le lien est valable {days} jours. Connectez-vous, ou inscrivez-vous avec {email}, pour accepter.',
    ignore: 'Si vous ne souhaitez pas la rejoindre, ignorez ce message.',
  },
  it: {
    subject: 'Invito a {organization}',
    greeting: 'Ciao,',
    intro: '{inviter} ti invita a entrare nell’organizzazione {organization} per usare le sue licenze.',
    action: 'Accetta l’invito',
    outro: 'Il link vale {days} giorni. Accedi, o registrati con {email}, per accettare.',
    ignore: 'Se non vuoi entrare, ignora questa e-mail.',
  },
};

const fill = (template: string, values: Record<string, string | number>) => template.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));

/** Queues the invitation mail in the invitation's transaction (the caller wakes the mail worker after the commit). */
export async function queueInvitationMail(
  ctx: AppContext,
  trx: Executor,
  invitation: { email: string; organizationName: string; inviterName: string; token: string; locale: Locale },
): Promise<void> {
  const productName = await settingValue<string>(trx, 'theme.productName');
  const text = TEXTS[invitation.locale];
  const values = { organization: invitation.organizationName, inviter: invitation.inviterName, days: INVITATION_VALID_DAYS, email: invitation.email };
  const mail = renderMail({
    locale: invitation.locale,
    productName,
    logoUrl: null,
    subject: fill(text.subject, values),
    greeting: text.greeting,
    intro: [fill(text.intro, values)],
    action: { label: text.action, url: `${ctx.config.publicUrl}/invitations/${invitation.token}` },
    outro: [fill(text.outro, values), text.ignore],
  });
  await enqueueMail(trx, { ...mail, to: invitation.email });
}
