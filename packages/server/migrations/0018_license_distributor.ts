import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * The distributor of a license's TAN, on the license (issue 14: a distributor's view of one account).
 *
 * A distributor sees the licenses of an account that came from its TANs. The list found them by
 * looking up each of the account's licenses' TAN: for the bench's account with 10,000 licenses,
 * 10,000 lookups (or a hash of the distributor's 15,000 TANs) for the count and again for the page,
 * 53 ms a page on PostgreSQL. With the distributor on the license, the index on (owner_id,
 * distributor_id) finds the 138 of them at once.
 *
 * The copy always equals the TAN's: insertLicense reads it from the TAN under a share lock, a TAN
 * given to another distributor passes it on in the same transaction (tans/repo.ts updateTan), and a
 * deleted distributor account empties both, as the TAN's own foreign key does (the app never deletes
 * accounts, it closes them: no index by distributor alone is kept for that).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('licenses')
    .addColumn('distributor_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  await copyDistributors(db);
  await db.schema.createIndex('licenses_owner_distributor').on('licenses').columns(['owner_id', 'distributor_id']).execute();
}

/**
 * Gives each license its TAN's distributor. Only the licenses of TANs that have one (a third in the
 * bench): an UPDATE of every license would rewrite the whole table.
 */
export async function copyDistributors(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`update licenses set distributor_id = tans.distributor_id from tans where tans.id = licenses.tan_id and tans.distributor_id is not null`.execute(db);
  } else {
    await sql`update licenses set distributor_id = (select tans.distributor_id from tans where tans.id = licenses.tan_id)
      where tan_id in (select id from tans where distributor_id is not null)`.execute(db);
  }
}

/** PostgreSQL's visibility map after the UPDATE, for the index-only count of the list. */
export const vacuumAfter = ['licenses'];

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('licenses_owner_distributor').execute();
  await db.schema.alterTable('licenses').dropColumn('distributor_id').execute();
}
