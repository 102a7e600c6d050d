import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { anyLicCreate, anyLicLink, anyLicTokenParam } from '@lm/contract/anylic';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize } from '../../platform/http/auth.ts';
import { errorResponses, licenseFileAnswer } from '../../platform/http/openapi.ts';
import { sendLicenseFile } from '../license-files/http.ts';
import { startLicenseFiles } from '../license-files/lifecycle.ts';
import { createAnyLicLink, downloadAnyLic } from './service.ts';

export function anyLicRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await startLicenseFiles(ctx, app);

    app.post(
      '/anylic',
      {
        schema: {
          tags: ['licenses'],
          summary: 'Create an ANY-Lic download link (a file for any machine)',
          body: anyLicCreate,
          response: { 201: anyLicLink, ...errorResponses },
        },
      },
      async (request, reply) => {
        authorize(request, 'create-anylic-download', 'License');
        return reply.status(201).send(await createAnyLicLink(ctx, actorOf(request), request.body));
      },
    );

    app.get(
      '/anylic/:token',
      {
        schema: {
          tags: ['licenses'],
          summary: 'Download the file of an ANY-Lic link; the token is the credential, no session needed',
          params: anyLicTokenParam,
          response: { 200: licenseFileAnswer, ...errorResponses },
        },
        config: { rateLimit: { max: 60, timeWindow: '1 minute' } },
      },
      async (request, reply) => {
        const { file, fileName, format } = await downloadAnyLic(ctx, request.params.token);
        return sendLicenseFile(request, reply, file, fileName, format);
      },
    );
  };
}
