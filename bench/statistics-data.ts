/**
 * What the statistics benchmark adds to the shared data set of `npm run cli -- seed:bench`
 * (200,000 users, 1,000,000 TANs, 1,000,000 licenses), which has no logins and no desktop contacts:
 * a last login for three users in five, and a last-seen record for every third TAN license. Two
 * statements, the same on SQLite and PostgreSQL; the statistics triggers count every row they touch.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../packages/server/src/platform/db/schema.ts';

export async function addStatisticsActivity(db: Kysely<DB>, log: (text: string) => void): Promise<void> {
  let started = performance.now();
  const logins = await sql`update users set last_login_at = created_at where last_login_at is null and id % 5 < 3`.execute(db);
  log(`last logins: ${Number(logins.numAffectedRows ?? 0).toLocaleString('en')} users in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  started = performance.now();
  const seen = await sql`
    insert into license_last_seen (license_id, machine_id, last_seen_at)
    select id, machine_id, created_at from licenses where kind = 'TAN' and machine_id is not null and id % 3 = 0
    on conflict (license_id, machine_id) do nothing`.execute(db);
  log(`last-seen records: ${Number(seen.numAffectedRows ?? 0).toLocaleString('en')} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
