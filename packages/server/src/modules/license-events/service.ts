import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { csvLine } from '@lm/contract/csv';
import type { LicenseEvent, LicenseEventCsvQuery, LicenseEventList, LicenseEventQuery, LicenseEventType, LicenseTimelineQuery } from '@lm/contract/license-events';
import type { AppContext } from '../../platform/context.ts';
import { authorize, requireUser } from '../../platform/http/auth.ts';
import { getLicense } from '../licenses/service.ts';
import { getTan } from '../tans/service.ts';
import { licenseEvents } from './recorder.ts';
import { licenseEventRowsForExport, listLicenseEventRows, type EventScope } from './repo.ts';

/** Rows of the CSV export at most. */
export const EVENT_EXPORT_LIMIT = 100_000;
const CSV_HEADER = ['at', 'type', 'code', 'machineId', 'licenseId', 'tanId', 'ownerId', 'repeats'];

type Row = Awaited<ReturnType<typeof listLicenseEventRows>>['rows'][number];
const toEvent = (row: Row): LicenseEvent => ({
  id: row.id,
  type: row.type as LicenseEventType,
  code: row.code,
  machineId: row.machine_id,
  licenseId: row.license_id,
  tanId: row.tan_id,
  ownerId: row.owner_id,
  repeats: row.repeats,
  at: row.at,
});

/** Staff's reach: administrators every event, distributors those of the licenses they distribute (customers: 403). */
function staffScope(request: FastifyRequest): EventScope {
  authorize(request, 'view-list', 'License');
  const user = requireUser(request);
  return user.accessRole === 'ADMIN' ? {} : { distributorId: user.id };
}

async function page(ctx: AppContext, scope: EventScope, query: LicenseEventQuery | LicenseTimelineQuery): Promise<LicenseEventList> {
  // What was recorded a moment ago is written first: support sees the refusal the customer just had.
  await licenseEvents(ctx).flush();
  const { rows, totalCount } = await listLicenseEventRows(ctx.db, scope, query);
  return { items: rows.map(toEvent), totalCount };
}

/** `GET /license-events`: the events staff may see, filtered. */
export function listLicenseEvents(ctx: AppContext, request: FastifyRequest, query: LicenseEventQuery): Promise<LicenseEventList> {
  return page(ctx, staffScope(request), query);
}

/** `GET /licenses/{id}/events`: the timeline of a license its viewer may open (its owner too). */
export async function licenseTimeline(ctx: AppContext, request: FastifyRequest, id: number, query: LicenseTimelineQuery): Promise<LicenseEventList> {
  await getLicense(ctx, request, id);
  return page(ctx, { licenseId: id }, query);
}

/** `GET /tans/{id}/events`: the events of the licenses of a TAN its viewer may open. */
export async function tanTimeline(ctx: AppContext, request: FastifyRequest, id: number, query: LicenseTimelineQuery): Promise<LicenseEventList> {
  await getTan(ctx, request, id);
  return page(ctx, { tanId: id }, query);
}

/** `GET /license-events.csv`: the same events as a CSV stream, newest first. */
export async function licenseEventsCsv(ctx: AppContext, request: FastifyRequest, query: LicenseEventCsvQuery): Promise<Readable> {
  const scope = staffScope(request);
  await licenseEvents(ctx).flush();
  async function* lines(): AsyncGenerator<string> {
    yield `\uFEFF${csvLine(CSV_HEADER)}`;
    for await (const rows of licenseEventRowsForExport(ctx.db, scope, query, EVENT_EXPORT_LIMIT)) {
      yield rows.map((row) => csvLine([row.at, row.type, row.code, row.machine_id, row.license_id, row.tan_id, row.owner_id, row.repeats])).join('');
    }
  }
  return Readable.from(lines(), { objectMode: false, highWaterMark: 64 * 1024 });
}
