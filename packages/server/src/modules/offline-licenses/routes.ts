import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idParam } from '@lm/contract';
import { license } from '@lm/contract/license';
import { OFFLINE_FILE_MAX_BYTES, offlineActivationBody, offlineDeactivationBody, offlineRequestBody, offlineRequestSummary } from '@lm/contract/offline';
import { licenseFileJson } from '@lm/contract/client-protocol';
import type { AppContext } from '../../platform/context.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { startLicenseFiles } from '../license-files/lifecycle.ts';
import { sendLicenseFile } from '../license-files/http.ts';
import { activateOffline, deactivateOffline, summarizeOfflineRequest } from './service.ts';

/** The body limit of the offline calls: the file (64 KB) and the JSON around it. */
const BODY_LIMIT = OFFLINE_FILE_MAX_BYTES + 1024;
const tags = ['licenses'];

/** Offline activation and verifiable deactivation (DESIGN.md section 6h). */
export function offlineLicenseRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await startLicenseFiles(ctx, app);

    app.post(
      '/licenses/offline-request',
      {
        bodyLimit: BODY_LIMIT,
        schema: {
          tags,
          summary: 'Read a license request file of an offline machine: product, machine and install key',
          description: 'Checks the request (signature by its install key, at most a week old, a known product) and shows what it asks for; nothing is changed.',
          body: offlineRequestBody,
          response: { 200: offlineRequestSummary, ...errorResponses },
        },
      },
      async (request) => summarizeOfflineRequest(ctx, request, request.body.request),
    );

    app.post(
      '/licenses/offline-activation',
      {
        bodyLimit: BODY_LIMIT,
        schema: {
          tags,
          summary: 'Activate an offline machine from its request file, with a TAN or an existing license',
          description:
            'Activates with `tan` (a new license) or `licenseId` (an existing license of the caller, moved to the request\'s machine if needed), binds the license to the request\'s install key and answers the `.json` license file, which names the key (`installKeyId`).',
          body: offlineActivationBody,
          response: { 200: licenseFileJson, ...errorResponses },
        },
      },
      async (request, reply) => {
        const { file, fileName } = await activateOffline(ctx, request, request.body);
        return sendLicenseFile(request, reply, file, fileName, 'json');
      },
    );

    app.post(
      '/licenses/:id/offline-deactivation',
      {
        bodyLimit: BODY_LIMIT,
        schema: {
          tags,
          summary: 'Free the machine of a license with the deactivation proof of its offline installation',
          description:
            'Accepts a proof signed by the install key the license is bound to, for its machine and a file at least as new as the one handed out, once: the machine is freed at once and does not count against the machine-change window.',
          params: idParam,
          body: offlineDeactivationBody,
          response: { 200: license, ...errorResponses },
        },
      },
      async (request) => deactivateOffline(ctx, request, request.params.id, request.body),
    );
  };
}
