import { notifications } from '@mantine/notifications';
import { TOAST_MS } from '@lm/contract';
import i18n from './i18n.ts';
import { ApiError } from './api.ts';
import { formatDate } from './format.ts';

/**
 * Codes that say only that a call failed, not why: the action's own message (spec section 8:
 * 'Create failed', 'Update failed', …) tells the user more.
 */
const UNSPECIFIC_CODES = new Set(['ERR_VALIDATION', 'ERR_BAD_REQUEST', 'ERR_INTERNAL', 'ERR_CSRF', 'ERR_UNSUPPORTED_MEDIA_TYPE']);

/** A variant of a code's message where the answer says more (`key_later`: i18next's context), with its date as the language writes it. */
function errorContext(code: string, params: Record<string, string | number>): Record<string, string> {
  if (code === 'ERR_TRIAL_USED' && typeof params.nextTrialFrom === 'string') return { context: 'later', nextTrialFrom: formatDate(params.nextTrialFrom) };
  if (code === 'ERR_EXTEND_TOO_FAR' && typeof params.latest === 'string') return { context: 'latest', latest: formatDate(params.latest) };
  // What keeps a record from being deleted, and what to do: the products or features that use a feature; a product's TANs or licenses.
  if (code === 'ERR_IN_USE' && typeof params.users === 'string') return { context: 'users' };
  if (code === 'ERR_IN_USE' && (Number(params.tans) > 0 || Number(params.licenses) > 0)) return { context: 'records' };
  return {};
}

/** A refused field's text as the server worded it in the request's language: only for details of the shared vocabulary. */
const isTranslatedDetail = (detail: { code?: string }) => Boolean(detail.code && (i18n.exists(`validation.${detail.code}`) || i18n.exists(`validation.${detail.code}_other`)));

/**
 * The text for a failed call, always in the person's language: the translation of an error code
 * that names the reason, else the action's message (`fallbackKey`), else a generic text
 * (`genericKey`). The server's own message is English and never shown: a proxy's answer (502, 503,
 * 504 without our body) or a code without a text gets the generic one. Refused input without an
 * action's message (a list's query) says what was refused: the server words each detail of the
 * shared vocabulary in the request's language.
 */
export function errorText(error: unknown, fallbackKey?: string, genericKey = 'common.unexpectedError'): string {
  if (error instanceof ApiError) {
    const code = error.code;
    if (code && UNSPECIFIC_CODES.has(code) && fallbackKey) return i18n.t(fallbackKey);
    const details = (error.body?.details ?? []).filter(isTranslatedDetail);
    if (code === 'ERR_VALIDATION' && details.length) return [i18n.t('errors.ERR_VALIDATION'), ...details.map((detail) => detail.message)].join(' ');
    if (code && i18n.exists(`errors.${code}`)) return i18n.t(`errors.${code}`, { ...error.body?.params, ...errorContext(code, error.body?.params ?? {}) });
    if (fallbackKey) return i18n.t(fallbackKey);
    return i18n.t(error.status === undefined ? 'errors.network' : genericKey);
  }
  return i18n.t(fallbackKey ?? genericKey);
}

/** The generic red toast of the spec, 'An error occured: {msg}', hidden after 5 seconds: for a text already in the person's language. */
export function showFailure(message: string): void {
  notifications.show({ color: 'red', title: i18n.t('common.error'), message: i18n.t('errors.generic', { msg: message }), autoClose: TOAST_MS });
}

/** The red toast for a failed call, worded by errorText. */
export function showError(error: unknown, fallbackKey?: string): void {
  showFailure(errorText(error, fallbackKey));
}

export function showSuccess(message: string): void {
  notifications.show({ color: 'green', message, autoClose: TOAST_MS });
}
