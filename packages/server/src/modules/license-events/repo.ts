import type { SelectQueryBuilder } from 'kysely';
import type { LicenseEventCsvQuery, LicenseEventQuery } from '@lm/contract/license-events';
import type { Executor } from '../../platform/db/database.ts';
import type { DB } from '../../platform/db/schema.ts';

export interface NewLicenseEvent {
  type: string;
  license_id: number | null;
  tan_id: number | null;
  owner_id: number | null;
  machine_id: string | null;
  code: string | null;
  repeats: number;
  at: string;
}

const CHUNK = 500;

export async function insertLicenseEvents(db: Executor, rows: readonly NewLicenseEvent[]): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) await db.insertInto('license_events').values(rows.slice(start, start + CHUNK)).execute();
}

export async function deleteLicenseEventsBefore(db: Executor, cutoff: string): Promise<number> {
  const result = await db.deleteFrom('license_events').where('at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The distributors of licenses, by license id (for the webhooks' receivers). */
export async function distributorsOf(db: Executor, licenseIds: readonly number[]): Promise<Map<number, number | null>> {
  if (!licenseIds.length) return new Map();
  const rows = await db.selectFrom('licenses').select(['id', 'distributor_id']).where('id', 'in', [...new Set(licenseIds)]).execute();
  return new Map(rows.map((row) => [row.id, row.distributor_id]));
}

export interface EventScope {
  /** A distributor sees the events of the licenses it distributes only. */
  distributorId?: number;
  licenseId?: number;
  tanId?: number;
}

type Filters = Partial<Pick<LicenseEventCsvQuery, 'type' | 'code' | 'machine' | 'licenseId' | 'tanId' | 'from' | 'to'>>;

function filtered(db: Executor, scope: EventScope, filters: Filters): SelectQueryBuilder<DB, 'license_events', object> {
  let query = db.selectFrom('license_events');
  const licenseId = scope.licenseId ?? filters.licenseId;
  const tanId = scope.tanId ?? filters.tanId;
  if (licenseId !== undefined) query = query.where('license_id', '=', licenseId);
  if (tanId !== undefined) query = query.where('tan_id', '=', tanId);
  if (filters.type) query = query.where('type', '=', filters.type);
  if (filters.code) query = query.where('code', '=', filters.code);
  if (filters.machine) query = query.where('machine_id', '=', filters.machine);
  if (filters.from) query = query.where('at', '>=', new Date(filters.from).toISOString());
  if (filters.to) query = query.where('at', '<', new Date(filters.to).toISOString());
  if (scope.distributorId !== undefined) {
    const distributorId = scope.distributorId;
    query = query.where('license_id', 'in', (eb) => eb.selectFrom('licenses').select('licenses.id').where('licenses.distributor_id', '=', distributorId));
  }
  return query;
}

const COLUMNS = ['id', 'type', 'code', 'machine_id', 'license_id', 'tan_id', 'owner_id', 'repeats', 'at'] as const;

export async function listLicenseEventRows(db: Executor, scope: EventScope, query: Filters & Pick<LicenseEventQuery, 'offset' | 'limit' | 'sort'>) {
  const base = filtered(db, scope, query);
  let page = base.select(COLUMNS);
  const sort = query.sort.length ? query.sort : [{ field: 'at' as const, descending: true }];
  for (const { field, descending } of sort) page = page.orderBy(field, descending ? 'desc' : 'asc');
  page = page.orderBy('id', sort[0].descending ? 'desc' : 'asc');
  const [rows, count] = await Promise.all([
    page.limit(query.limit).offset(query.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, totalCount: Number(count.count) };
}

/** Every matching event, newest first, in pages (for the CSV export). */
export async function* licenseEventRowsForExport(db: Executor, scope: EventScope, filters: Filters, limit: number) {
  let lastId: number | null = null;
  let sent = 0;
  while (sent < limit) {
    let query = filtered(db, scope, filters).select(COLUMNS);
    if (lastId !== null) query = query.where('id', '<', lastId);
    const rows = await query.orderBy('id', 'desc').limit(Math.min(1000, limit - sent)).execute();
    if (!rows.length) return;
    yield rows;
    sent += rows.length;
    lastId = rows[rows.length - 1].id;
  }
}
