import { LOCALES, type Locale } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { enqueueMail, renderMail } from '../../platform/mail/index.ts';
import { settingValue } from '../settings/service.ts';

interface DisabledMailText {
  subject: string;
  greeting: string;
  intro: string;
  action: string;
  outro: string;
}

/** The mail to an endpoint's creator when the server switched it off; {product}, {url} and {days} are filled in. */
const DISABLED_MAIL: Record<Locale, DisabledMailText> = {
  en: {
    subject: 'Webhook endpoint switched off at {product}',
    greeting: 'Hello,',
    intro: 'Every delivery to the webhook endpoint {url} has failed for {days} days, so {product} switched it off. No further events are sent to it.',
    action: 'Open the webhooks',
    outro: 'Deliveries that were still waiting are kept. Once the receiver works again, switch the endpoint on: they are then sent in their order.',
  },
  de: {
    subject: 'Webhook-Endpunkt bei {product} abgeschaltet',
    greeting: 'Guten Tag,',
    intro: 'jede Zustellung an den Webhook-Endpunkt {url} ist seit {days} Tagen fehlgeschlagen, daher hat {product} ihn abgeschaltet. Es werden keine weiteren Ereignisse an ihn gesendet.',
    action: 'Webhooks öffnen',
    outro: 'Zustellungen, die noch warteten, bleiben erhalten. Sobald der Empfänger wieder funktioniert, schalten Sie den Endpunkt wieder ein: Sie werden dann in ihrer Reihenfolge gesendet.',
  },
  es: {
    subject: 'Punto de conexión de webhook desactivado en {product}',
    greeting: 'Hola:',
    intro: 'Todas las entregas al punto de conexión de webhook {url} han fallado durante {days} días, por lo que {product} lo ha desactivado. No se le envían más eventos.',
    action: 'Abrir los webhooks',
    outro: 'Las entregas que seguían esperando se conservan. Cuando el receptor vuelva a funcionar, active el punto de conexión: se enviarán entonces en su orden.',
  },
  fr: {
    subject: 'Point de terminaison de webhook désactivé sur {product}',
    greeting: 'Bonjour,',
    intro: "Toutes les livraisons au point de terminaison de webhook {url} échouent depuis {days} jours : {product} l'a donc désactivé. Aucun autre événement ne lui est envoyé.",
    action: 'Ouvrir les webhooks',
    outro: 'Les livraisons encore en attente sont conservées. Dès que le destinataire fonctionne à nouveau, réactivez le point de terminaison : elles seront alors envoyées dans leur ordre.',
  },
  it: {
    subject: 'Endpoint webhook disattivato su {product}',
    greeting: 'Buongiorno,',
    intro: "Tutte le consegne all'endpoint webhook {url} non sono riuscite per {days} giorni, quindi {product} l'ha disattivato. Non gli vengono inviati altri eventi.",
    action: 'Apri i webhook',
    outro: "Le consegne ancora in attesa vengono conservate. Quando il destinatario funziona di nuovo, riattiva l'endpoint: verranno allora inviate nel loro ordine.",
  },
};

function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in values ? String(values[name]) : match));
}

/** Queues the "endpoint switched off" mail to its creator, in the creator's language. */
export async function queueEndpointDisabledMail(ctx: AppContext, db: Executor, to: { email: string; locale: string | null }, url: string, days: number): Promise<void> {
  const locale: Locale = (LOCALES as readonly string[]).includes(to.locale ?? '') ? (to.locale as Locale) : 'en';
  const text = DISABLED_MAIL[locale];
  const productName = await settingValue<string>(db, 'theme.productName');
  const values = { product: productName, url, days };
  const rendered = renderMail({
    locale,
    productName,
    logoUrl: null,
    subject: fill(text.subject, values),
    greeting: text.greeting,
    intro: [fill(text.intro, values)],
    action: { label: text.action, url: `${ctx.config.publicUrl}/tools/webhooks` },
    outro: [fill(text.outro, values)],
  });
  await enqueueMail(db, { ...rendered, to: to.email });
}
