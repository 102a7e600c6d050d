import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * Licensing as software is sold (issue 37, DESIGN.md section 6):
 * - a policy's `max_borrow_days` (0: no borrowing) and a seat's `borrowed_until`: a machine may take a
 *   floating seat with it offline;
 * - a TAN's `suspended` (reversible, an unpaid subscription) and `valid_until` (a subscription's paid
 *   period plus grace). Its licenses carry copies (`suspended`, `tan_valid_until`), kept equal to the
 *   TAN's in the TAN's transaction like `distributor_id` (migration 0018): the desktop protocol reads
 *   a machine's licenses in one indexed lookup and joins no TAN for every refresh.
 * Existing floating TANs need nothing: their activations stay, and from now on their license count
 * bounds the seats in use, not the machines. The database's own guard that activations never pass
 * the license count (migration 0007) therefore now holds for TANs whose licenses are not floating
 * (the TAN's policy, else its product's default): a trigger on both databases, since a CHECK
 * constraint cannot read the policy.
 */

/** Whether a TAN row's licenses float: its policy, else its product's default policy, is FLOATING. */
const FLOATING_TAN = `coalesce((select p.type from license_policies p where p.id = coalesce(new.license_policy_id,
  (select d.default_license_policy_id from products d where d.id = new.product_id))), '') = 'FLOATING'`;
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('license_policies').addColumn('max_borrow_days', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('floating_seats').addColumn('borrowed_until', 'text').execute();
  await db.schema.alterTable('tans').addColumn('suspended', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await db.schema.alterTable('tans').addColumn('valid_until', 'text').execute();
  await db.schema.alterTable('licenses').addColumn('suspended', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await db.schema.alterTable('licenses').addColumn('tan_valid_until', 'text').execute();
  await guardActivations(db, `new.activated_count > new.license_count and not (${FLOATING_TAN})`);
}

/** Replaces the guard of migration 0007 with one that refuses rows matching `violation`. */
async function guardActivations(db: Kysely<any>, violation: string): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table tans drop constraint if exists tans_activations_within_count`.execute(db);
    await sql`drop trigger if exists tans_activations_within_count on tans`.execute(db);
    await sql
      .raw(
        `create or replace function tans_activations_within_count() returns trigger language plpgsql as $$
         begin
           if ${violation} then
             raise exception 'new row for relation "tans" violates check constraint "tans_activations_within_count"' using errcode = 'check_violation';
           end if;
           return new;
         end $$`,
      )
      .execute(db);
    await sql`create trigger tans_activations_within_count before insert or update of activated_count, license_count on tans
      for each row execute function tans_activations_within_count()`.execute(db);
    return;
  }
  for (const event of ['INSERT', 'UPDATE OF activated_count, license_count']) {
    const name = `tans_activations_within_count_${event.startsWith('INSERT') ? 'insert' : 'update'}`;
    await sql.raw(`DROP TRIGGER IF EXISTS ${name}`).execute(db);
    await sql
      .raw(`CREATE TRIGGER ${name} BEFORE ${event} ON tans WHEN ${violation} BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: tans_activations_within_count'); END`)
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger if exists tans_activations_within_count on tans`.execute(db);
    await sql`drop function if exists tans_activations_within_count()`.execute(db);
    await sql`alter table tans add constraint tans_activations_within_count check (activated_count <= license_count) not valid`.execute(db);
  } else {
    await guardActivations(db, 'new.activated_count > new.license_count');
  }
  await db.schema.alterTable('licenses').dropColumn('tan_valid_until').execute();
  await db.schema.alterTable('licenses').dropColumn('suspended').execute();
  await db.schema.alterTable('tans').dropColumn('valid_until').execute();
  await db.schema.alterTable('tans').dropColumn('suspended').execute();
  await db.schema.alterTable('floating_seats').dropColumn('borrowed_until').execute();
  await db.schema.alterTable('license_policies').dropColumn('max_borrow_days').execute();
}
