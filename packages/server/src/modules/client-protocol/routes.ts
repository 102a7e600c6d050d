import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { clientLicenseRequest, clientReleaseRequest, licenseFileJson, publicSigningKeys } from '@lm/contract/client-protocol';
import type { AppContext } from '../../platform/context.ts';
import { notFound } from '../../platform/http/errors.ts';
import { sendTextFile } from '../../platform/http/downloads.ts';
import { errorResponses, textFileAnswer } from '../../platform/http/openapi.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { sendJsonLicenseFile, sendNotModified } from '../license-files/http.ts';
import { startLicenseFiles } from '../license-files/lifecycle.ts';
import { registerProtocolHooks } from './hooks.ts';
import { fetchClientLicense, releaseClientLicense } from './service.ts';

/** Per address: generous for a company's machines behind one NAT, far too few to guess machine ids. */
export const PER_ADDRESS = { rateLimit: { max: 600, timeWindow: '1 minute' } };

/**
 * The desktop-software protocol (DESIGN.md section 6): no session; machine id and product identify the
 * license. Registered apart from the web app's hooks (app.ts): none of them applies to it.
 */
export function clientProtocolRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await startLicenseFiles(ctx, app);

    registerProtocolHooks(app, ctx);

    app.options(
      '/client/v1/*',
      { schema: { hide: true } },
      async (_request, reply) =>
        reply
          .header('access-control-allow-methods', 'GET, POST, DELETE')
          .header('access-control-allow-headers', 'content-type, if-none-match')
          .header('access-control-max-age', '86400')
          .status(204)
          .send(),
    );

    app.post(
      '/client/v1/license',
      {
        schema: {
          tags: ['desktop protocol'],
          summary: 'The signed license file of a machine (.json format), or 304 while the file named by If-None-Match is still right',
          body: clientLicenseRequest,
          // If-None-Match (the ETag of the file the machine holds) is read, not validated: anything
          // but a tag this server made is ignored (file-tag.ts), and validating every header costs.
          description: 'Answers the file with its ETag. With `If-None-Match: <ETag of the file the machine holds>` it answers 304 without a body while that file is still right.',
          // No schema for the 304: a serializer would write `null` and a Content-Length for a body a 304 cannot have.
          response: { 200: licenseFileJson, ...errorResponses },
        },
        config: PER_ADDRESS,
      },
      async (request, reply) => {
        const answer = await fetchClientLicense(ctx, request.body, request.headers['if-none-match']);
        return answer.notModified ? sendNotModified(reply, answer.etag) : sendJsonLicenseFile(reply, answer.file, answer.etag);
      },
    );

    app.delete(
      '/client/v1/license',
      {
        schema: {
          tags: ['desktop protocol'],
          summary: 'Release the floating seat of a machine',
          body: clientReleaseRequest,
          response: { 204: z.null(), ...errorResponses },
        },
        config: PER_ADDRESS,
      },
      async (request, reply) => {
        await releaseClientLicense(ctx, request.body);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/client/v1/keys',
      {
        schema: { tags: ['desktop protocol'], summary: 'The public keys that verify license files', response: { 200: publicSigningKeys } },
        config: PER_ADDRESS,
      },
      async () => ({ keys: await signingKeys(ctx).published() }),
    );

    app.get(
      '/client/v1/keys/:kid.pem',
      {
        schema: {
          tags: ['desktop protocol'],
          summary: 'One public key as a PEM file, for `openssl pkeyutl -verify -pubin -inkey`',
          params: z.object({ kid: z.string().min(1).max(100) }),
          response: { 200: textFileAnswer('The public key', { 'application/x-pem-file': z.string() }), ...errorResponses },
        },
        config: PER_ADDRESS,
      },
      async (request, reply) => {
        const key = (await signingKeys(ctx).published()).find((candidate) => candidate.kid === request.params.kid);
        if (!key) throw notFound('Key');
        return sendTextFile(request, reply, { fileName: `${key.kid}.pem`, mediaType: 'application/x-pem-file', content: key.publicKeyPem });
      },
    );
  };
}
