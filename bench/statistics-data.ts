/**
 * What the statistics benchmark adds to the shared data set of `npm run cli -- seed:bench`
 * (200,000 users, 1,000,000 TANs, 1,000,000 licenses at scale 1), which has no logins, no desktop
 * contacts, no releases and no over-limit seats: a last login for three users in five, a last-seen
 * record for every third TAN license, ten releases per product each downloaded in every month since it
 * came out, and for every hundredth TAN license over-limit grants on ten days, a week apart. Each part
 * is added once (an installation of an earlier bench has the first two already); the statistics
 * triggers count every row they touch.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../packages/server/src/platform/db/dialect.ts';
import type { DB } from '../packages/server/src/platform/db/schema.ts';

const RELEASES_PER_PRODUCT = 10;
const MONTHS = 36;
const OVERAGE_DAYS = 10;

const any = async (db: Kysely<DB>, table: 'license_last_seen' | 'release_downloads' | 'license_overages') =>
  Boolean(await db.selectFrom(table).select(sql`1`.as('one')).limit(1).executeTakeFirst());

/** Adds what is missing; true when it added anything. */
export async function addStatisticsActivity(db: Kysely<DB>, log: (text: string) => void): Promise<boolean> {
  let added = false;
  const timed = async (what: string, work: () => Promise<number>) => {
    const started = performance.now();
    const rows = await work();
    added = true;
    log(`${what}: ${rows.toLocaleString('en')} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  if (!(await any(db, 'license_last_seen'))) {
    await timed('last logins', async () => Number((await sql`update users set last_login_at = created_at where last_login_at is null and id % 5 < 3`.execute(db)).numAffectedRows ?? 0));
    await timed('last-seen records', async () => {
      const seen = await sql`
        insert into license_last_seen (license_id, machine_id, last_seen_at)
        select id, machine_id, created_at from licenses where kind = 'TAN' and machine_id is not null and id % 3 = 0
        on conflict (license_id, machine_id) do nothing`.execute(db);
      return Number(seen.numAffectedRows ?? 0);
    });
  }
  if (!(await any(db, 'release_downloads'))) await timed('release downloads (month rows)', () => addReleaseDownloads(db));
  if (!(await any(db, 'license_overages'))) await timed('over-limit grants', () => addOverages(db));
  return added;
}

/** Ten releases per bench product, one every 3.6 months of the last three years, each downloaded every month since. */
async function addReleaseDownloads(db: Kysely<DB>): Promise<number> {
  const products = await db.selectFrom('products').select('id').where('name', 'like', 'Bench Product %').orderBy('id').execute();
  const now = new Date();
  const monthsAgo = (months: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, 1));
  const at = now.toISOString();
  const releases = products.flatMap((product) =>
    Array.from({ length: RELEASES_PER_PRODUCT }, (_, n) => ({
      product_id: product.id,
      version: `${n + 1}.0.0`,
      channel: 'stable' as const,
      released_at: monthsAgo(Math.round(MONTHS - (n * MONTHS) / RELEASES_PER_PRODUCT)).toISOString(),
      notes: '{}',
      yanked: false,
      created_at: at,
      updated_at: at,
    })),
  );
  const ids = await db.insertInto('releases').values(releases).returning(['id', 'released_at']).execute();
  const downloads = ids.flatMap((release) => {
    const first = new Date(release.released_at);
    const months: { release_id: number; month: string; count: number }[] = [];
    for (let month = new Date(first); month <= now; month = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1))) {
      months.push({ release_id: release.id, month: month.toISOString().slice(0, 7), count: 1 + ((release.id * 31 + month.getUTCMonth() * 7) % 500) });
    }
    return months;
  });
  for (let start = 0; start < downloads.length; start += 5000) await db.insertInto('release_downloads').values(downloads.slice(start, start + 5000)).execute();
  return downloads.length;
}

/** Every hundredth TAN license (of those older than ten weeks) over its TAN's seat count on ten days, a week apart from its creation. */
async function addOverages(db: Kysely<DB>): Promise<number> {
  const createdBefore = new Date(Date.now() - OVERAGE_DAYS * 7 * 86_400_000).toISOString();
  const day = isPostgres(db) ? sql`to_char(l.created_at::date + d.n * 7, 'YYYY-MM-DD')` : sql`date(l.created_at, '+' || (d.n * 7) || ' days')`;
  const result = await sql`
    with recursive d(n) as (select 0 union all select n + 1 from d where n < ${sql.lit(OVERAGE_DAYS - 1)})
    insert into license_overages (tan_id, license_id, machine_id, day)
    select l.tan_id, l.id, l.machine_id, ${day} from licenses l cross join d
    where l.tan_id is not null and l.machine_id is not null and l.id % 100 = 0 and l.created_at < ${createdBefore}
    on conflict do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
