import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { clientLicenseRequest, clientReleaseRequest, licenseFileJson, publicSigningKeys } from '@lm/contract/client-protocol';
import type { AppContext } from '../../platform/context.ts';
import { notFound } from '../../platform/http/errors.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { sendJsonLicenseFile } from '../license-files/http.ts';
import { startLicenseFiles } from '../license-files/lifecycle.ts';
import { fetchClientLicense, releaseClientLicense } from './service.ts';

/** Per address: generous for a company's machines behind one NAT, far too few to guess machine ids. */
export const PER_ADDRESS = { rateLimit: { max: 600, timeWindow: '1 minute' } };

/** The desktop-software protocol (DESIGN.md section 6): no session; machine id and product identify the license. */
export function clientProtocolRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await startLicenseFiles(ctx, app);

    // No cookies, no session: any origin may call the protocol, e.g. the SDK in an Electron renderer.
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('access-control-allow-origin', '*');
    });
    app.options(
      '/client/v1/*',
      { schema: { hide: true } },
      async (_request, reply) =>
        reply
          .header('access-control-allow-methods', 'GET, POST, DELETE')
          .header('access-control-allow-headers', 'content-type')
          .header('access-control-max-age', '86400')
          .status(204)
          .send(),
    );

    app.post(
      '/client/v1/license',
      {
        schema: {
          tags: ['desktop protocol'],
          summary: 'The signed license file of a machine (.json format)',
          body: clientLicenseRequest,
          response: { 200: licenseFileJson, ...errorResponses },
        },
        config: PER_ADDRESS,
      },
      async (request, reply) => sendJsonLicenseFile(reply, await fetchClientLicense(ctx, request.body)),
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
          response: { 200: z.string(), ...errorResponses },
        },
        config: PER_ADDRESS,
      },
      async (request, reply) => {
        const key = (await signingKeys(ctx).published()).find((candidate) => candidate.kid === request.params.kid);
        if (!key) throw notFound('Key');
        return reply.header('content-type', 'application/x-pem-file').send(key.publicKeyPem);
      },
    );
  };
}
