import { DEFAULT_LOCALE, type Locale } from '@lm/contract';
import { formatTanCode } from '@lm/contract/tan';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { enqueueMail, renderMail } from '../../platform/mail/index.ts';
import { settingValue } from '../settings/service.ts';

interface PurchaseText {
  subject: string;
  greeting: string;
  intro: string;
  code: string;
  activated: string;
  action: string;
  outro: string;
  /** For named-user seats (DESIGN.md 6f): assigned to people in the organization, never activated on a machine. */
  seatsAction: string;
  seatsOutro: string;
}

/** The mail in the five languages; {product}, {name}, {item}, {code}, {count} and {machine} are filled in. */
const TEXTS: Record<Locale, PurchaseText> = {
  en: {
    subject: 'Your license for {item}',
    greeting: 'Hello {name},',
    intro: 'Thank you for your purchase. Your license code for {item} ({count} × license):',
    code: '{code}',
    activated: 'It is already activated for the machine {machine}.',
    action: 'Your licenses',
    outro: 'Enter the code in the software or activate it on your licenses page.',
    seatsAction: 'Your organization',
    seatsOutro: "Assign the seats to your colleagues on your organization's page; each signs in from the software.",
  },
  de: {
    subject: 'Ihre Lizenz für {item}',
    greeting: 'Hallo {name},',
    intro: 'vielen Dank für Ihren Kauf. Ihr Lizenzcode für {item} ({count} × Lizenz):',
    code: '{code}',
    activated: 'Er ist bereits für den Rechner {machine} aktiviert.',
    action: 'Ihre Lizenzen',
    outro: 'Geben Sie den Code in der Software ein oder aktivieren Sie ihn auf Ihrer Lizenzseite.',
    seatsAction: 'Ihre Organisation',
    seatsOutro: 'Weisen Sie die Plätze auf der Seite Ihrer Organisation Ihren Kolleginnen und Kollegen zu; jede Person meldet sich in der Software an.',
  },
  es: {
    subject: 'Su licencia de {item}',
    greeting: 'Hola, {name}:',
    intro: 'Gracias por su compra. Su código de licencia de {item} ({count} × licencia):',
    code: '{code}',
    activated: 'Ya está activado para el equipo {machine}.',
    action: 'Sus licencias',
    outro: 'Introduzca el código en el software o actívelo en su página de licencias.',
    seatsAction: 'Su organización',
    seatsOutro: 'Asigne los puestos a sus compañeros en la página de su organización; cada uno inicia sesión desde el software.',
  },
  fr: {
    subject: 'Votre licence pour {item}',
    greeting: 'Bonjour {name},',
    intro: 'Merci pour votre achat. Votre code de licence pour {item} ({count} × licence) :',
    code: '{code}',
    activated: 'Il est déjà activé pour la machine {machine}.',
    action: 'Vos licences',
    outro: 'Saisissez le code dans le logiciel ou activez-le sur votre page de licences.',
    seatsAction: 'Votre organisation',
    seatsOutro: 'Attribuez les places à vos collègues sur la page de votre organisation ; chacun se connecte depuis le logiciel.',
  },
  it: {
    subject: 'La tua licenza per {item}',
    greeting: 'Ciao {name},',
    intro: 'grazie per il tuo acquisto. Il tuo codice di licenza per {item} ({count} × licenza):',
    code: '{code}',
    activated: 'È già attivato per il computer {machine}.',
    action: 'Le tue licenze',
    outro: 'Inserisci il codice nel software o attivalo nella tua pagina delle licenze.',
    seatsAction: 'La tua organizzazione',
    seatsOutro: 'Assegna i posti ai tuoi colleghi nella pagina della tua organizzazione; ognuno accede dal software.',
  },
};

const fill = (template: string, values: Record<string, string | number>) => template.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));

/**
 * Queues, in the purchase's transaction, the mail with a bought TAN's code, in the order's language
 * (else the account's, else the default). The caller wakes the mail worker after the commit: the
 * shop's answer never waits for mail.
 */
export async function queuePurchaseMail(
  ctx: AppContext,
  trx: Executor,
  purchase: { email: string; firstName: string; locale: Locale | null; productName: string; code: string; licenseCount: number; machineId: string | null; organizationId?: number | null },
): Promise<void> {
  const productName = await settingValue<string>(trx, 'theme.productName');
  const language = purchase.locale ?? DEFAULT_LOCALE;
  const text = TEXTS[language];
  const values = { product: productName, name: purchase.firstName, item: purchase.productName, code: formatTanCode(purchase.code), count: purchase.licenseCount, machine: purchase.machineId ?? '' };
  const seats = purchase.organizationId != null;
  const mail = renderMail({
    locale: language,
    productName,
    logoUrl: null,
    subject: fill(text.subject, values),
    greeting: fill(text.greeting, values),
    intro: [fill(text.intro, values), fill(text.code, values), ...(purchase.machineId ? [fill(text.activated, values)] : [])],
    action: seats ? { label: text.seatsAction, url: `${ctx.config.publicUrl}/organizations/${purchase.organizationId}` } : { label: text.action, url: `${ctx.config.publicUrl}/account/licenses` },
    outro: [fill(seats ? text.seatsOutro : text.outro, values)],
  });
  await enqueueMail(trx, { ...mail, to: purchase.email });
}
