/** A boolean column: a boolean in PostgreSQL, 0 or 1 in SQLite (read it with `Boolean()`). */
export type Bool = boolean | number;
