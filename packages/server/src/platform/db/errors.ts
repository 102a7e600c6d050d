/** Whether a database error is a unique-constraint violation, on SQLite or PostgreSQL. */
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown };
  // PostgreSQL: SQLSTATE 23505. node:sqlite: SQLITE_CONSTRAINT_UNIQUE (2067) / _PRIMARYKEY (1555).
  return code === '23505' || errcode === 2067 || errcode === 1555 || (typeof message === 'string' && message.includes('UNIQUE constraint failed'));
}
