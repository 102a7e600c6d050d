import { z } from 'zod';
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from './constants.ts';

export interface SortField<F extends string = string> {
  field: F;
  descending: boolean;
}

/**
 * The list query of DESIGN.md section 4: offset, limit, filter and sort (`field` or `-field`,
 * comma separated), sort fields checked against the ones the entity allows.
 */
export function listQuery<F extends string>(sortFields: readonly [F, ...F[]], maxLimit = LIST_MAX_LIMIT) {
  return z.object({
    offset: z.coerce.number().int().min(0).default(0),
    limit: z.coerce.number().int().min(1).max(maxLimit).default(LIST_DEFAULT_LIMIT),
    filter: z.string().trim().max(200).optional(),
    sort: z
      .string()
      .optional()
      .transform((value, ctx): SortField<F>[] => {
        if (!value) return [];
        const result: SortField<F>[] = [];
        for (const part of value.split(',')) {
          const descending = part.startsWith('-');
          const field = (descending ? part.slice(1) : part) as F;
          if (!sortFields.includes(field)) {
            ctx.addIssue({ code: 'custom', message: `sort field "${field}" is not an allowed value` });
            return z.NEVER;
          }
          result.push({ field, descending });
        }
        return result;
      }),
  });
}

export type ListQuery<F extends string = string> = z.output<ReturnType<typeof listQuery<F>>>;

export function listResponse<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), totalCount: z.number().int() });
}

export interface ListResult<T> {
  items: T[];
  totalCount: number;
}

/** An ISO-8601 timestamp as the API sends it. */
export const isoDateTime = z.iso.datetime({ offset: true });
/** A calendar date, `YYYY-MM-DD`. */
export const isoDate = z.iso.date();
/** Record ids are 32-bit integer columns on PostgreSQL: a larger number is refused, not a database error. */
export const MAX_RECORD_ID = 2_147_483_647;
/** A reference to a record by its id. */
export const recordId = z.number().int().positive().max(MAX_RECORD_ID);
export const idParam = z.object({ id: z.coerce.number().int().positive().max(MAX_RECORD_ID) });
