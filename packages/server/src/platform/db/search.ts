import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely';
import type { SortField } from '@lm/contract';
import type { Dialect, Executor } from './database.ts';
import { isPostgres } from './dialect.ts';
import { SQLITE_LOWER_UNICODE } from './sqlite-adapter.ts';

/** A LIKE pattern for "contains", lowercased, with the user's % and _ taken literally (escape \). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** Whether a lowercased search needs more than SQLite's lower(), which folds ASCII letters only. */
export const beyondAscii = (text: string) => /\P{ASCII}/u.test(text);

/**
 * A column lowercased to be compared with a search lowercased in JavaScript. SQLite's own lower()
 * folds ASCII letters only ("Übersetzer" stays "Übersetzer", so "über" would not find it); for a
 * search with other letters SQLite calls lower_unicode, which folds as JavaScript does and as
 * PostgreSQL's lower() does under a UTF-8 locale. An ASCII search keeps the built-in lower: it finds
 * the same rows (no other letter lowercases to an ASCII one) without a call into JavaScript per row.
 */
export function lowercased(dialect: Dialect, column: string, text: string): RawBuilder<string> {
  const unicode = dialect === 'sqlite' && beyondAscii(text);
  return sql<string>`${sql.raw(unicode ? SQLITE_LOWER_UNICODE : 'lower')}(${sql.ref(column)})`;
}

/** A list's text filter looks in the notes too: only for callers who may read them (staff-only fields). */
export interface StaffSearch {
  searchNotes?: boolean;
}

/** Case-insensitive "contains" over text columns, the same on SQLite and PostgreSQL, in every alphabet. */
export function anyColumnContains<DB, TB extends keyof DB>(db: Executor, eb: ExpressionBuilder<DB, TB>, columns: readonly string[], text: string): Expression<SqlBool> {
  const pattern = containsPattern(text);
  const dialect = isPostgres(db) ? 'postgres' : 'sqlite';
  return eb.or(columns.map((column) => sql<SqlBool>`${lowercased(dialect, column, text)} like ${pattern} escape '\\'`));
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
