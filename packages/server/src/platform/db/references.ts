import type { Executor } from './database.ts';

/** Tables whose rows other records and settings refer to by `id`. */
export type ReferencedTable = 'products' | 'license_policies';

/**
 * Whether the row a request refers to exists: checked before writing, so that the answer names the
 * unknown reference. A foreign key still refuses a row deleted between the check and the write.
 * One check for every module: the module that owns a table need not be imported to ask (a setting
 * naming a product made settings and products import each other).
 */
export async function rowExists(db: Executor, table: ReferencedTable, id: number): Promise<boolean> {
  // Each table of the union has an integer `id`; Kysely's types cannot check a union of tables.
  const row = await db.selectFrom(table as 'products').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
