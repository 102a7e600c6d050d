import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idParam } from '@lm/contract';
import { z } from 'zod';
import { licenseEntitlements, licenseEntitlementsUpdate, overageQuery } from '@lm/contract/entitlement';
import { sendTextFile } from '../../platform/http/downloads.ts';
import type { AppContext } from '../../platform/context.ts';
import { errorResponses, textFileAnswer } from '../../platform/http/openapi.ts';
import { licenseEntitlementsFor, overageCsv, updateLicenseEntitlementsFor } from './service.ts';

const csvBody = textFileAnswer('The CSV file, as an attachment', { 'text/csv': z.string().describe('day, licenseId, machineId, email') });

const tags = ['licenses'];

export function entitlementRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/licenses/:id/entitlements',
      {
        schema: {
          tags,
          summary: "A license's entitlements and metadata",
          description:
            "The license's own grants and metadata (given after the sale), its TAN's, and the resolved entitlements its file carries (DESIGN.md section 6g). Metadata keys starting with `_` only for those who may change them.",
          params: idParam,
          response: { 200: licenseEntitlements, ...errorResponses },
        },
      },
      async (request) => licenseEntitlementsFor(ctx, request, request.params.id),
    );

    app.put(
      '/licenses/:id/entitlements',
      {
        schema: {
          tags,
          summary: "Change a license's own entitlements and metadata (administrators)",
          description:
            'Adds features and sets values (`entitlements`, replacing the license\'s own list) and metadata on one license after the sale; a field left out keeps its value. The next conditional refresh of the license file delivers the change.',
          params: idParam,
          body: licenseEntitlementsUpdate,
          response: { 200: licenseEntitlements, ...errorResponses },
        },
      },
      async (request) => updateLicenseEntitlementsFor(ctx, request, request.params.id, request.body),
    );

    app.get(
      '/tans/:id/overage',
      {
        schema: {
          tags: ['tans'],
          summary: "A TAN's monthly true-up: its over-limit grants as CSV",
          description: 'Every floating seat granted beyond the TAN\'s count in the month (a soft limit, the policy\'s overagePercent): day, license, machine and owner, one line each (DESIGN.md section 6g).',
          params: idParam,
          querystring: overageQuery,
          response: { 200: csvBody, ...errorResponses },
        },
      },
      async (request, reply) =>
        sendTextFile(request, reply.header('cache-control', 'no-store'), {
          fileName: `true-up-tan-${request.params.id}-${request.query.month}.csv`,
          mediaType: 'text/csv',
          contentType: 'text/csv; charset=utf-8',
          content: await overageCsv(ctx, request, request.params.id, request.query.month),
        }),
    );
  };
}
