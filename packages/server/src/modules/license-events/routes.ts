import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParam } from '@lm/contract';
import { licenseEventCsvQuery, licenseEventList, licenseEventQuery, licenseTimelineQuery } from '@lm/contract/license-events';
import type { AppContext } from '../../platform/context.ts';
import { sendTextFile } from '../../platform/http/downloads.ts';
import { errorResponses, textFileAnswer } from '../../platform/http/openapi.ts';
import { licenseEvents } from './recorder.ts';
import { licenseEventsCsv, licenseTimeline, listLicenseEvents, tanTimeline } from './service.ts';

const tags = ['license events'];
const listAnswer = { 200: licenseEventList, ...errorResponses };
const csvBody = textFileAnswer('The CSV file, as an attachment', { 'text/csv': z.string().describe('at, type, code, machineId, licenseId, tanId, ownerId, repeats') });

/** The runtime events of licenses (DESIGN.md section 6j): refusals, no seat, leases expired, clock tampering, … */
export function licenseEventRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onClose', () => licenseEvents(ctx).stop());

    app.get(
      '/license-events',
      {
        schema: {
          tags,
          summary: 'Runtime events of licenses, newest first (staff)',
          description: 'What happened to licenses that is no change of a record: refusals with their code, no seat, leases expired, clock tampering reported, offline deactivations. Administrators see all, distributors those of the licenses of their TANs.',
          querystring: licenseEventQuery,
          response: listAnswer,
        },
      },
      async (request) => listLicenseEvents(ctx, request, request.query),
    );

    app.get(
      '/license-events.csv',
      {
        schema: { tags, summary: 'The runtime events as CSV (staff; same filters)', description: `Newest first, at most 100,000 rows.`, querystring: licenseEventCsvQuery, response: { 200: csvBody, ...errorResponses } },
      },
      async (request, reply) =>
        sendTextFile(request, reply.header('cache-control', 'no-store'), {
          fileName: `license-events-${new Date().toISOString().slice(0, 10)}.csv`,
          mediaType: 'text/csv',
          contentType: 'text/csv; charset=utf-8',
          content: await licenseEventsCsv(ctx, request, request.query),
        }),
    );

    app.get(
      '/licenses/:id/events',
      { schema: { tags, summary: "A license's timeline of runtime events", description: 'For whoever may open the license: its owner, its distributor, administrators.', params: idParam, querystring: licenseTimelineQuery, response: listAnswer } },
      async (request) => licenseTimeline(ctx, request, request.params.id, request.query),
    );

    app.get(
      '/tans/:id/events',
      { schema: { tags, summary: "The runtime events of a TAN's licenses", description: 'For whoever may open the TAN: its distributor, administrators.', params: idParam, querystring: licenseTimelineQuery, response: listAnswer } },
      async (request) => tanTimeline(ctx, request, request.params.id, request.query),
    );
  };
}
