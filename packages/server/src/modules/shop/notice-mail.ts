import type { Locale } from '@lm/contract';
import { resolveLocale } from '@lm/contract/messages';
import type { ShopEventLine } from '@lm/contract/shop';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { enqueueMail, renderMail } from '../../platform/mail/index.ts';
import { settingValue } from '../settings/service.ts';
import { findUserById } from '../users/repo.ts';
import { tansWithLicenses } from './repo.ts';

type Notice = 'suspended' | 'revoked' | 'ends';
interface NoticeText {
  subject: string;
  greeting: string;
  body: string;
  action: string;
}

/** What the customer reads when a bought TAN is suspended, revoked or ends, and what to do; {item} and {date} are filled in. */
const TEXTS: Record<Locale, Record<Notice, NoticeText>> = {
  en: {
    suspended: { subject: 'Your license for {item} is suspended', greeting: 'Hello {name},', body: 'the payment of your subscription for {item} failed, so its license is suspended. Update your payment method in the shop: the license works again as soon as the payment arrives.', action: 'Your licenses' },
    revoked: { subject: 'Your license for {item} was revoked', greeting: 'Hello {name},', body: 'the purchase of {item} was refunded or disputed, so its license was revoked. If this is a mistake, please contact us.', action: 'Your licenses' },
    ends: { subject: 'Your subscription for {item} ends', greeting: 'Hello {name},', body: 'your subscription for {item} was cancelled; its license works until {date}. Renew it in the shop to keep using it.', action: 'Your licenses' },
  },
  de: {
    suspended: { subject: 'Ihre Lizenz für {item} ist gesperrt', greeting: 'Hallo {name},', body: 'die Zahlung Ihres Abonnements für {item} ist fehlgeschlagen, deshalb ist die Lizenz gesperrt. Aktualisieren Sie Ihre Zahlungsart im Shop: Die Lizenz funktioniert wieder, sobald die Zahlung eingeht.', action: 'Ihre Lizenzen' },
    revoked: { subject: 'Ihre Lizenz für {item} wurde widerrufen', greeting: 'Hallo {name},', body: 'der Kauf von {item} wurde erstattet oder angefochten, deshalb wurde die Lizenz widerrufen. Falls das ein Irrtum ist, melden Sie sich bitte bei uns.', action: 'Ihre Lizenzen' },
    ends: { subject: 'Ihr Abonnement für {item} endet', greeting: 'Hallo {name},', body: 'Ihr Abonnement für {item} wurde gekündigt; die Lizenz gilt bis {date}. Verlängern Sie es im Shop, um sie weiter zu nutzen.', action: 'Ihre Lizenzen' },
  },
  fr: {
    suspended: { subject: 'Votre licence pour {item} est suspendue', greeting: 'Bonjour {name},', body: 'le paiement de votre abonnement pour {item} a échoué, sa licence est donc suspendue. Mettez à jour votre moyen de paiement dans la boutique : la licence fonctionnera de nouveau dès réception du paiement.', action: 'Vos licences' },
    revoked: { subject: 'Votre licence pour {item} a été révoquée', greeting: 'Bonjour {name},', body: 'l’achat de {item} a été remboursé ou contesté, sa licence a donc été révoquée. S’il s’agit d’une erreur, contactez-nous.', action: 'Vos licences' },
    ends: { subject: 'Votre abonnement pour {item} prend fin', greeting: 'Bonjour {name},', body: 'votre abonnement pour {item} a été résilié ; sa licence reste valable jusqu’au {date}. Renouvelez-le dans la boutique pour continuer à l’utiliser.', action: 'Vos licences' },
  },
  it: {
    suspended: { subject: 'La tua licenza per {item} è sospesa', greeting: 'Ciao {name},', body: 'il pagamento del tuo abbonamento per {item} non è riuscito, quindi la licenza è sospesa. Aggiorna il metodo di pagamento nel negozio: la licenza tornerà a funzionare appena arriva il pagamento.', action: 'Le tue licenze' },
    revoked: { subject: 'La tua licenza per {item} è stata revocata', greeting: 'Ciao {name},', body: 'l’acquisto di {item} è stato rimborsato o contestato, quindi la licenza è stata revocata. Se si tratta di un errore, contattaci.', action: 'Le tue licenze' },
    ends: { subject: 'Il tuo abbonamento per {item} termina', greeting: 'Ciao {name},', body: 'il tuo abbonamento per {item} è stato annullato; la licenza vale fino al {date}. Rinnovalo nel negozio per continuare a usarla.', action: 'Le tue licenze' },
  },
  es: {
    suspended: { subject: 'Su licencia de {item} está suspendida', greeting: 'Hola, {name}:', body: 'el pago de su suscripción a {item} ha fallado, por lo que la licencia está suspendida. Actualice su forma de pago en la tienda: la licencia volverá a funcionar en cuanto llegue el pago.', action: 'Sus licencias' },
    revoked: { subject: 'Su licencia de {item} ha sido revocada', greeting: 'Hola, {name}:', body: 'la compra de {item} se reembolsó o se impugnó, por lo que la licencia ha sido revocada. Si es un error, póngase en contacto con nosotros.', action: 'Sus licencias' },
    ends: { subject: 'Su suscripción a {item} termina', greeting: 'Hola, {name}:', body: 'su suscripción a {item} se ha cancelado; la licencia es válida hasta el {date}. Renuévela en la tienda para seguir usándola.', action: 'Sus licencias' },
  },
};

const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (match, name: string) => values[name] ?? match);

/**
 * Queues, in the event's transaction, a mail to each buyer whose bought TAN the event suspended,
 * revoked or set to end, in the buyer's language, saying what to do. Answers whether any was queued.
 */
export async function queueNoticeMails(ctx: AppContext, trx: Executor, lines: readonly ShopEventLine[], owners: ReadonlyMap<number, number | null>): Promise<boolean> {
  const notices = lines.filter((line): line is ShopEventLine & { tanId: number; effect: Notice } => line.tanId !== null && (line.effect === 'suspended' || line.effect === 'revoked' || line.effect === 'ends'));
  if (!notices.length) return false;
  const productName = await settingValue<string>(trx, 'theme.productName');
  const { tans } = await tansWithLicenses(trx, notices.map((line) => line.tanId), 0);
  let queued = false;
  for (const notice of notices) {
    const ownerId = owners.get(notice.tanId);
    const owner = ownerId ? await findUserById(trx, ownerId) : undefined;
    const tan = tans.find((candidate) => candidate.id === notice.tanId);
    if (!owner || owner.closed_at || !tan) continue;
    const language = resolveLocale(owner.locale);
    const text = TEXTS[language][notice.effect];
    const values = { name: owner.first_name, item: tan.product_name, date: tan.valid_until ?? '' };
    const mail = renderMail({
      locale: language,
      productName,
      logoUrl: null,
      subject: fill(text.subject, values),
      greeting: fill(text.greeting, values),
      intro: [fill(text.body, values)],
      action: { label: text.action, url: `${ctx.config.publicUrl}/account/licenses` },
      outro: [],
    });
    await enqueueMail(trx, { ...mail, to: owner.email });
    queued = true;
  }
  return queued;
}
