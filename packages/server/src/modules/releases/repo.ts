import { sql } from 'kysely';
import type { Artifact, Release, ReleaseChannel } from '@lm/contract/release';
import type { Executor } from '../../platform/db/database.ts';

export interface ReleaseRow extends Omit<Release, 'artifacts' | 'downloads'> {
  artifacts: (Artifact & { storageKey: string })[];
  downloads: number;
}

const RELEASE_COLUMNS = ['id', 'product_id', 'version', 'channel', 'released_at', 'notes', 'yanked'] as const;

async function withArtifacts(
  db: Executor,
  rows: { id: number; product_id: number; version: string; channel: ReleaseChannel; released_at: string; notes: string; yanked: boolean | number }[],
): Promise<ReleaseRow[]> {
  if (!rows.length) return [];
  const ids = rows.map((row) => row.id);
  const [artifacts, downloads] = await Promise.all([
    db.selectFrom('release_artifacts').selectAll().where('release_id', 'in', ids).orderBy('id').execute(),
    db.selectFrom('release_downloads').select(['release_id', (eb) => eb.fn.sum<number | string>('count').as('count')]).where('release_id', 'in', ids).groupBy('release_id').execute(),
  ]);
  const counts = new Map(downloads.map((row) => [row.release_id, Number(row.count)]));
  return rows.map((row) => ({
    id: row.id,
    productId: row.product_id,
    version: row.version,
    channel: row.channel,
    releasedAt: row.released_at,
    notes: JSON.parse(row.notes) as Release['notes'],
    yanked: Boolean(row.yanked),
    downloads: counts.get(row.id) ?? 0,
    artifacts: artifacts
      .filter((artifact) => artifact.release_id === row.id)
      .map((artifact) => ({
        id: artifact.id,
        platform: artifact.platform,
        arch: artifact.arch,
        filename: artifact.filename,
        size: Number(artifact.size),
        sha256: artifact.sha256,
        sig: artifact.sig,
        kid: artifact.kid,
        storageKey: artifact.storage_key,
      })),
  }));
}

/** The releases of products, newest release time first (callers order by semver). */
export async function findReleasesOfProducts(db: Executor, productIds: readonly number[]): Promise<ReleaseRow[]> {
  if (!productIds.length) return [];
  const rows = await db.selectFrom('releases').select(RELEASE_COLUMNS).where('product_id', 'in', productIds).orderBy('released_at', 'desc').orderBy('id', 'desc').execute();
  return withArtifacts(db, rows);
}

export async function findRelease(db: Executor, id: number): Promise<ReleaseRow | undefined> {
  const rows = await db.selectFrom('releases').select(RELEASE_COLUMNS).where('id', '=', id).execute();
  return (await withArtifacts(db, rows))[0];
}

export async function insertRelease(
  db: Executor,
  values: { productId: number; version: string; channel: ReleaseChannel; releasedAt: string; notes: string },
  now: string,
): Promise<number> {
  const row = await db
    .insertInto('releases')
    .values({ product_id: values.productId, version: values.version, channel: values.channel, released_at: values.releasedAt, notes: values.notes, yanked: false, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateRelease(db: Executor, id: number, values: { channel?: ReleaseChannel; released_at?: string; notes?: string; yanked?: boolean }, now: string): Promise<void> {
  await db.updateTable('releases').set({ ...values, updated_at: now }).where('id', '=', id).execute();
}

export async function deleteRelease(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('releases').where('id', '=', id).execute();
}

export async function insertArtifact(
  db: Executor,
  values: { releaseId: number; platform: Artifact['platform']; arch: Artifact['arch']; filename: string; size: number; sha256: string; sig: string; kid: string; storageKey: string },
  now: string,
): Promise<number> {
  const row = await db
    .insertInto('release_artifacts')
    .values({
      release_id: values.releaseId,
      platform: values.platform,
      arch: values.arch,
      filename: values.filename,
      size: values.size,
      sha256: values.sha256,
      sig: values.sig,
      kid: values.kid,
      storage_key: values.storageKey,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function deleteArtifact(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('release_artifacts').where('id', '=', id).execute();
}

/** Counts a download started in its month (one upsert: parallel downloads never lose a count). */
export async function countDownload(db: Executor, releaseId: number, month: string): Promise<void> {
  await db
    .insertInto('release_downloads')
    .values({ release_id: releaseId, month, count: 1 })
    .onConflict((oc) => oc.columns(['release_id', 'month']).doUpdateSet({ count: sql`release_downloads.count + 1` }))
    .execute();
}

/** Downloads per month between two months (inclusive), of one product's releases or all. */
export async function downloadsByMonth(db: Executor, from: string, to: string, productId?: number): Promise<{ month: string; count: number }[]> {
  let query = db
    .selectFrom('release_downloads as d')
    .innerJoin('releases as r', 'r.id', 'd.release_id')
    .select(['d.month', (eb) => eb.fn.sum<number | string>('d.count').as('count')])
    .where('d.month', '>=', from)
    .where('d.month', '<=', to);
  if (productId !== undefined) query = query.where('r.product_id', '=', productId);
  const rows = await query.groupBy('d.month').orderBy('d.month').execute();
  return rows.map((row) => ({ month: row.month, count: Number(row.count) }));
}

/** The licenses of an owner (ids and products), for what the owner may download. */
export async function findOwnLicenseIds(db: Executor, ownerId: number, productId?: number): Promise<number[]> {
  let query = db.selectFrom('licenses').select('id').where('owner_id', '=', ownerId);
  if (productId !== undefined) query = query.where('product_id', '=', productId);
  return (await query.orderBy('id').execute()).map((row) => row.id);
}

/** What entitlement needs beyond a license's file data: when it began and whether its policy allows betas. */
export async function findUpdateRights(db: Executor, licenseId: number): Promise<{ startedAt: string; betaUpdates: boolean } | undefined> {
  const row = await db
    .selectFrom('licenses as l')
    .innerJoin('license_policies as p', 'p.id', 'l.license_policy_id')
    .select(['l.created_at', 'p.beta_updates'])
    .where('l.id', '=', licenseId)
    .executeTakeFirst();
  return row && { startedAt: row.created_at, betaUpdates: Boolean(row.beta_updates) };
}

/** The release an artifact belongs to. */
export async function findReleaseIdOfArtifact(db: Executor, artifactId: number): Promise<number | undefined> {
  const row = await db.selectFrom('release_artifacts').select('release_id').where('id', '=', artifactId).executeTakeFirst();
  return row?.release_id;
}
