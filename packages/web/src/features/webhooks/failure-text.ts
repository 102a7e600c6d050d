import type { TFunction } from 'i18next';
import type { WebhookAttempt, WebhookFailureReason } from '@lm/contract/webhook';

export interface FailureText {
  reason: WebhookFailureReason;
  /** Why the attempt failed, in the reader's language. */
  message: string;
  /** The server's technical detail (in English, for an operator) when it adds to the message; else null. */
  detail: string | null;
}

type AttemptOutcome = Pick<WebhookAttempt, 'statusCode' | 'durationMs' | 'reason' | 'reasonParams' | 'error'>;

/**
 * What a person reads about a failed attempt: its reason code in their words, the technical detail
 * kept apart (never as the message). Null for a delivered attempt. An attempt without a code is
 * `other`, its stored text the detail.
 */
export function failureText(attempt: AttemptOutcome, t: TFunction): FailureText | null {
  const params = attempt.reasonParams ?? {};
  const reason: WebhookFailureReason | null = attempt.reason ?? (attempt.error ? 'other' : null);
  if (!reason) return null;
  switch (reason) {
    case 'httpStatus':
      // The status says it all (the log shows it beside the message, too).
      return { reason, message: t('webhooks.failure.httpStatus', { status: params.status ?? attempt.statusCode ?? '?' }), detail: null };
    case 'timeout': {
      const seconds = params.seconds ?? Math.max(1, Math.round(attempt.durationMs / 1000));
      // "No answer within 10 s" says nothing more; a connection timing out in the network does.
      return { reason, message: t('webhooks.failure.timeout', { seconds }), detail: attempt.error?.startsWith('No answer within') ? null : attempt.error };
    }
    default:
      return { reason, message: t(`webhooks.failure.${reason}`), detail: attempt.error };
  }
}

/**
 * A failure in one line, for the test event's toast: the message alone, but with its detail for
 * `other`, whose message says only that something unexpected went wrong.
 */
export function failureSentence(failure: FailureText): string {
  return failure.reason === 'other' && failure.detail ? `${failure.message} (${failure.detail})` : failure.message;
}
