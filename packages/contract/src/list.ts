import { z } from 'zod';
import { LIST_DEFAULT_LIMIT, LIST_FILTER_MAX_LENGTH, LIST_MAX_LIMIT } from './constants.ts';

/** The deepest offset a list takes: far beyond any list, and still a safe integer for both databases. */
const MAX_OFFSET = 1_000_000_000;

/**
 * A whole number as paths and queries carry ids, counts and offsets: decimal digits only, so that
 * " 5", "+5", "5.0", "0x5" or "1e3" is refused instead of being read as 5 (or as something else).
 */
export function wholeNumberText(min: number, max: number) {
  return z
    .string()
    .regex(/^[0-9]{1,16}$/, 'validation.digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

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
    offset: wholeNumberText(0, MAX_OFFSET).default(0).describe('How many matching items to skip (default 0)'),
    limit: wholeNumberText(1, maxLimit).default(LIST_DEFAULT_LIMIT).describe(`How many items to answer, 1 to ${maxLimit} (default ${LIST_DEFAULT_LIMIT})`),
    /** The next-page cursor of the previous page (the large lists): the page after it, in the same sort, without counting off rows. */
    after: z.string().min(1).max(1000).optional().describe("The previous page's `nextCursor`: the page after it, in the same sort (faster than a deep offset)"),
    filter: z.string().trim().max(LIST_FILTER_MAX_LENGTH).optional().describe('Text to search for in the listed fields (case-insensitive)'),
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
            ctx.addIssue({ code: 'custom', message: 'validation.sortField', params: { field } });
            return z.NEVER;
          }
          result.push({ field, descending });
        }
        return result;
      })
      // The document lists the allowed values (generated clients type them); the server also takes
      // several, comma-separated (`-createdAt,id`).
      .meta({
        description: `The sort field, \`-field\` for descending; several comma-separated are taken too (\`${sortFields.length > 1 ? `-${sortFields[1]},${sortFields[0]}` : `-${sortFields[0]}`}\`)`,
        enum: sortFields.flatMap((field) => [field, `-${field}`]),
      }),
  });
}

export type ListQuery<F extends string = string> = z.output<ReturnType<typeof listQuery<F>>>;

export function listResponse<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    totalCount: z.number().int(),
    /** The large lists: false when there are more than totalCount matches (LIST_COUNT_LIMIT; LIST_SEARCH_COUNT_LIMIT for a user search), which were not counted. */
    totalCountExact: z.boolean().optional(),
    /** The large lists: the `after` value of the next page, null on the last page. */
    nextCursor: z.string().nullable().optional(),
  });
}

export interface ListResult<T> {
  items: T[];
  totalCount: number;
  totalCountExact?: boolean;
  nextCursor?: string | null;
}

/** An ISO-8601 timestamp as the API sends it. */
export const isoDateTime = z.iso.datetime({ offset: true });
/** A calendar date, `YYYY-MM-DD`. */
export const isoDate = z.iso.date();
/** Record ids are 32-bit integer columns on PostgreSQL: a larger number is refused, not a database error. */
export const MAX_RECORD_ID = 2_147_483_647;
/** A reference to a record by its id. */
export const recordId = z.number().int().positive().max(MAX_RECORD_ID);

/** The organization a record belongs to, as the staff lists show it (DESIGN.md section 6f). */
export const organizationRef = z.object({ id: z.number().int(), name: z.string() });
export type OrganizationRef = z.output<typeof organizationRef>;
/** The staff lists' filter by organization (view-list only: it never widens what the caller may see). */
export const organizationFilter = wholeNumberText(1, MAX_RECORD_ID).optional().describe('Only the records of this organization (staff)');
export const idParam = z.object({ id: wholeNumberText(1, MAX_RECORD_ID) });

type WithoutDefault<Schema> = Schema extends z.ZodDefault<infer Inner> ? Inner : Schema;
export type UpdateShape<Shape extends z.ZodRawShape> = { [Key in keyof Shape]: z.ZodOptional<WithoutDefault<Shape[Key]>> };

/**
 * The body of a PUT: the fields of the create schema, each optional and without its default, so
 * that a field left out keeps its stored value instead of being reset (tags, notes, a date silently
 * cleared). The server overlays the given fields on the stored record and validates the whole with
 * the create schema; `null` still clears a field that may be empty.
 */
export function updateOf<Shape extends z.ZodRawShape>(fields: z.ZodObject<Shape>): z.ZodObject<UpdateShape<Shape>> {
  const shape = Object.fromEntries(
    Object.entries(fields.shape).map(([key, schema]) => [key, (schema instanceof z.ZodDefault ? (schema.unwrap() as z.ZodType) : (schema as z.ZodType)).optional()]),
  );
  return z.object(shape) as unknown as z.ZodObject<UpdateShape<Shape>>;
}
