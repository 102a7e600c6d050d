import type { z } from 'zod';
import { issueMessage } from '@lm/contract';
import i18n from './i18n.ts';

/**
 * The text of one zod issue in the interface language, by the shared vocabulary (limits filled in).
 * The default message, for a problem with no text of its own, names the field where its label is
 * known: the spec's "'<field name> is not an allowed value'".
 */
export function issueText(issue: z.core.$ZodIssue & { input?: unknown }, fieldName?: string): string {
  const { key, params } = issueMessage(issue);
  if (key === 'invalidValue' && fieldName) return i18n.t('validation.notAllowed', { field: fieldName });
  return i18n.t(`validation.${key}`, params);
}

/**
 * Validates a Mantine form with a shared zod schema: the first problem of each field, as a plain
 * message of the shared vocabulary. The input is reported so that an empty field reads "required".
 * `fieldLabels` (a field's name → the message key of its label) names the field in the default message.
 */
export function formValidator(schema: z.ZodType, fieldLabels: Record<string, string> = {}) {
  return (values: unknown): Record<string, string> => {
    const result = schema.safeParse(values, { reportInput: true });
    if (result.success) return {};
    const errors: Record<string, string> = {};
    for (const issue of result.error.issues) {
      const labelKey = fieldLabels[String(issue.path[0] ?? '')];
      errors[issue.path.join('.')] ??= issueText(issue, labelKey ? i18n.t(labelKey) : undefined);
    }
    return errors;
  };
}

type Validate = (values: unknown) => Record<string, string>;

/**
 * `formValidator` for a schema that loads when the form is first used, for the forms of the first
 * screen: a schema brings all of zod (22 KB), which the first visit of `/` need not load. Loading
 * starts on the form's first focus (`preload`); a submit before the schema arrived waits for it
 * (Mantine's forms take validators that answer a promise).
 */
export function lazyFormValidator(load: () => Promise<z.ZodType>) {
  let loaded: Validate | undefined;
  let loading: Promise<Validate> | undefined;
  const ready = () =>
    (loading ??= load().then(
      (schema) => (loaded = formValidator(schema)),
      (error: unknown) => {
        loading = undefined; // the next submit tries again; Vite has raised the reload alert
        throw error;
      },
    ));
  return {
    preload: () => void ready().catch(() => undefined),
    validate: (values: unknown): Record<string, string> | Promise<Record<string, string>> => loaded?.(values) ?? ready().then((validate) => validate(values)),
  };
}
