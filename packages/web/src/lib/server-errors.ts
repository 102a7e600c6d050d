import type { UseFormReturnType } from '@mantine/form';
import { ApiError } from './api.ts';
import i18n from './i18n.ts';
import { errorText } from './notify.ts';

/** The form text for one refused field, by the answer's error code (a conflict by its detail: a taken name, a taken version). */
function fieldMessage(error: ApiError, detail: { message: string; code?: string }): string {
  const code = error.code;
  if (code === 'ERR_CONFLICT') return i18n.t(detail.code && i18n.exists(`catalogue.errors.${detail.code}`) ? `catalogue.errors.${detail.code}` : 'catalogue.errors.duplicate');
  if (code && code !== 'ERR_VALIDATION' && i18n.exists(`errors.${code}`)) return i18n.t(`errors.${code}`, error.body?.params ?? {});
  return detail.message;
}

/**
 * Shows the field errors of a refused save on the form (validation details, a taken name, unknown
 * features, a feature cycle). Paths below a field in `collapse` (`features.1`) mark the field
 * itself. Returns whether any field was marked, so that the caller shows a toast otherwise.
 */
export function showFieldErrors<T>(form: UseFormReturnType<T>, error: unknown, collapse: string[] = []): boolean {
  if (!(error instanceof ApiError) || !error.body?.details?.length) return false;
  const errors: Record<string, string> = {};
  const values = form.getValues() as object;
  for (const detail of error.body.details) {
    if (!detail.path) continue;
    const field = collapse.find((name) => detail.path === name || detail.path.startsWith(`${name}.`)) ?? detail.path;
    // A refusal about something the form does not show goes to the toast.
    if (!Object.hasOwn(values, field.split('.')[0])) continue;
    errors[field] ??= fieldMessage(error, detail);
  }
  if (Object.keys(errors).length === 0) return false;
  form.setErrors(errors);
  return true;
}

/**
 * A taken e-mail address on the form's e-mail field, beside the spec's toast: the toast goes after
 * a few seconds, the field keeps saying what to change.
 */
export function markTakenEmail<T>(form: UseFormReturnType<T>, error: unknown): void {
  if (error instanceof ApiError && error.code === 'ERR_DUPLICATE_EMAIL') form.setFieldError('email', errorText(error));
}
