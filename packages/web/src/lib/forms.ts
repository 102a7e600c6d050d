import type { z } from 'zod';
import { issueMessage } from '@lm/contract';
import i18n from './i18n.ts';

/** The text of one zod issue in the interface language, by the shared vocabulary (limits filled in). */
export function issueText(issue: z.core.$ZodIssue & { input?: unknown }): string {
  const { key, params } = issueMessage(issue);
  return i18n.t(`validation.${key}`, params);
}

/**
 * Validates a Mantine form with a shared zod schema: the first problem of each field, as a plain
 * message of the shared vocabulary. The input is reported so that an empty field reads "required".
 */
export function formValidator(schema: z.ZodType) {
  return (values: unknown): Record<string, string> => {
    const result = schema.safeParse(values, { reportInput: true });
    if (result.success) return {};
    const errors: Record<string, string> = {};
    for (const issue of result.error.issues) errors[issue.path.join('.')] ??= issueText(issue);
    return errors;
  };
}
