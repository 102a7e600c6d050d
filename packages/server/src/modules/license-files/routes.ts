import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idParam } from '@lm/contract';
import { licenseFileQuery } from '@lm/contract/client-protocol';
import type { AppContext } from '../../platform/context.ts';
import { requireUser } from '../../platform/http/auth.ts';
import { errorResponses, licenseFileAnswer } from '../../platform/http/openapi.ts';
import { downloadLicenseFile } from './download.ts';
import { sendLicenseFile } from './http.ts';
import { startLicenseFiles } from './lifecycle.ts';

export function licenseFileRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await startLicenseFiles(ctx, app);

    app.get(
      '/licenses/:id/file',
      {
        schema: {
          tags: ['licenses'],
          summary: 'Download the signed license file of a license (format lic or json)',
          params: idParam,
          querystring: licenseFileQuery,
          response: { 200: licenseFileAnswer, ...errorResponses },
        },
      },
      async (request, reply) => {
        requireUser(request);
        const { file, fileName, format } = await downloadLicenseFile(ctx, request, request.params.id, request.query.format);
        return sendLicenseFile(request, reply, file, fileName, format);
      },
    );
  };
}
