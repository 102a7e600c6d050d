import type { z } from 'zod';
import { issueMessage, type ErrorDetail, type IssueLike } from '@lm/contract';
import { AppError } from './errors.ts';

/**
 * The full fields of a PUT whose body is `updateOf(schema)`: the stored record's values overlaid by
 * the fields the request gave, validated as a whole by the create schema (its rules across fields
 * included). A field left out keeps its value. A refusal names each field with a message key of the
 * shared vocabulary, which the error handler renders in the request's language.
 */
export function mergeUpdate<Schema extends z.ZodType>(schema: Schema, stored: object, input: object): z.output<Schema> {
  const given = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  const result = schema.safeParse({ ...stored, ...given });
  if (result.success) return result.data;
  const details = result.error.issues.map((issue): ErrorDetail => {
    const { key, params } = issueMessage(issue as unknown as IssueLike);
    return { path: issue.path.join('.'), message: key, code: key, params };
  });
  throw new AppError(400, 'ERR_VALIDATION', details.map((detail) => `${detail.path}: ${detail.code}`).join('; '), { details });
}
