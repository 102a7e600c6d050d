import { describe, expect, it } from 'vitest';
import type { TFunction } from 'i18next';
import { LOCALES } from '@lm/contract';
import { WEBHOOK_FAILURE_REASONS, type WebhookAttempt } from '@lm/contract/webhook';
import { failureSentence, failureText } from './failure-text.ts';
import de from '../../locales/de.json';
import en from '../../locales/en.json';
import es from '../../locales/es.json';
import fr from '../../locales/fr.json';
import it_ from '../../locales/it.json';

const MESSAGES = { en, de, fr, es, it: it_ };

/** A t() over one message file with {{placeholders}}; a missing key comes back as the key. */
function translator(messages: Record<string, unknown>): TFunction {
  return ((key: string, options: Record<string, unknown> = {}) => {
    const found = key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), messages);
    return typeof found === 'string' ? found.replace(/{{\s*(\w+)\s*}}/g, (_, name: string) => String(options[name])) : key;
  }) as unknown as TFunction;
}

const attempt = (values: Partial<WebhookAttempt>): WebhookAttempt => ({
  attemptedAt: '2026-03-01T10:00:00.000Z',
  statusCode: null,
  durationMs: 40,
  response: null,
  reason: null,
  reasonParams: {},
  error: null,
  ...values,
});

describe('a failed webhook attempt in the reader’s words', () => {
  it('words every reason code in every language, never leaving a key or a placeholder', () => {
    for (const locale of LOCALES) {
      const t = translator(MESSAGES[locale]);
      for (const reason of WEBHOOK_FAILURE_REASONS) {
        const text = failureText(attempt({ reason, reasonParams: { status: 503, seconds: 10 }, statusCode: reason === 'httpStatus' ? 503 : null, error: 'detail' }), t);
        expect(text?.message, `${locale} ${reason}`).toBeTruthy();
        expect(text!.message, `${locale} ${reason}`).not.toMatch(/webhooks\.failure|{{|undefined/);
      }
    }
  });

  it('says the status and the seconds, and keeps the technical detail apart', () => {
    const en_ = translator(en);
    const de_ = translator(de);
    expect(failureText(attempt({ statusCode: 500, reason: 'httpStatus', reasonParams: { status: 500 }, error: 'The receiver answered 500' }), de_)).toEqual({
      reason: 'httpStatus',
      message: 'Der Empfänger hat mit Status 500 statt mit einem 2xx-Erfolgsstatus geantwortet',
      detail: null,
    });
    expect(failureText(attempt({ reason: 'timeout', reasonParams: { seconds: 10 }, durationMs: 10_004, error: 'No answer within 10 s' }), en_)).toEqual({
      reason: 'timeout',
      message: 'The receiver did not answer within 10 s',
      detail: null,
    });
    const refused = failureText(attempt({ reason: 'connectionRefused', error: 'Connection refused' }), de_)!;
    expect(refused).toEqual({ reason: 'connectionRefused', message: de.webhooks.failure.connectionRefused, detail: 'Connection refused' });
    // The toast says the reason, not the English detail.
    expect(failureSentence(refused)).toBe(de.webhooks.failure.connectionRefused);
    expect(failureText(attempt({ statusCode: 200, durationMs: 12 }), en_)).toBeNull();
  });

  it('shows an attempt without a code (logged before the codes) as "other" with its stored text as the detail', () => {
    const t = translator(de);
    const old = failureText(attempt({ reason: undefined as unknown as null, reasonParams: undefined as unknown as WebhookAttempt['reasonParams'], error: 'socket hang up' }), t)!;
    expect(old).toEqual({ reason: 'other', message: de.webhooks.failure.other, detail: 'socket hang up' });
    expect(failureSentence(old)).toBe(`${de.webhooks.failure.other} (socket hang up)`);
  });
});
