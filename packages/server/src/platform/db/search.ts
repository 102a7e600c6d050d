import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { SortField } from '@lm/contract';

/** A LIKE pattern for "contains", lowercased, with the user's % and _ taken literally (escape \). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** Case-insensitive "contains" over text columns, the same on SQLite and PostgreSQL. */
export function anyColumnContains<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, columns: readonly string[], text: string): Expression<SqlBool> {
  const pattern = containsPattern(text);
  return eb.or(columns.map((column) => sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`));
}

/** Turns the list query's sort into column orderings by a field→column map, with a final tiebreaker. */
export function orderings(sort: readonly SortField[], columns: Record<string, string>, fallback: SortField[], tiebreaker: string): [string, 'asc' | 'desc'][] {
  const chosen = sort.length ? sort : fallback;
  const result: [string, 'asc' | 'desc'][] = chosen.map(({ field, descending }) => [columns[field], descending ? 'desc' : 'asc']);
  if (!result.some(([column]) => column === tiebreaker)) result.push([tiebreaker, 'asc']);
  return result;
}

/** Whether a database error is a unique-constraint violation (a race the service's own check lost). */
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '23505' || (typeof message === 'string' && message.includes('UNIQUE constraint failed'));
}

/** Whether a database error is a foreign-key violation (a referenced record went away, or is still referred to). */
export function isForeignKeyViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '23503' || (typeof message === 'string' && message.includes('FOREIGN KEY constraint failed'));
}
