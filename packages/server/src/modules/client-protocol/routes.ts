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
import { protocolLimiter, registerProtocolHooks } from './hooks.ts';
import { registerInstanceLeaseRoutes } from '../instance-leases/routes.ts';
import { fetchClientLicense, releaseClientLicense } from './service.ts';
import { desktopBearer, registerDeviceProtocolRoutes } from '../device-sign-in/protocol-routes.ts';
import { fetchSignedInLicense } from '../device-sign-in/service.ts';

/** Desktop sign-in's and instance leases' calls: Fastify's per-address limit (a lease refreshes three times per time to live). */
const PER_ADDRESS = { rateLimit: { max: 600, timeWindow: '1 minute' } };

/**
 * The desktop-software protocol (DESIGN.md section 6): no session; machine id and product identify the
 * license. Registered apart from the web app's hooks (app.ts): none of them applies to it.
 */
export function clientProtocolRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await startLicenseFiles(ctx, app);

    registerProtocolHooks(app, ctx);
    // Per machine and, coarsely, per address (PROTOCOL_RATE_LIMIT*): counted in the handlers, no hook.
    const limit = protocolLimiter(ctx);

    app.options(
      '/client/v1/*',
      { schema: { hide: true } },
      async (_request, reply) =>
        reply
          .header('access-control-allow-methods', 'GET, POST, DELETE')
          .header('access-control-allow-headers', 'content-type, if-none-match, authorization')
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
          description:
            'Answers the file with its ETag. With `If-None-Match: <ETag of the file the machine holds>` it answers 304 without a body while that file is still right. With a desktop sign-in\'s `Authorization: Bearer` token (RFC 8628, see /client/v1/device/authorize) it answers the file of the person\'s named-user seat on this machine, or 403 ERR_SEAT_UNASSIGNED.',
          // No schema for the 304: a serializer would write `null` and a Content-Length for a body a 304 cannot have.
          response: { 200: licenseFileJson, ...errorResponses },
        },
      },
      async (request, reply) => {
        limit(request.ip, request.body.machineId);
        const bearer = desktopBearer(request.headers.authorization);
        const answer = bearer
          ? await fetchSignedInLicense(ctx, bearer, request.body, request.headers['if-none-match'])
          : await fetchClientLicense(ctx, request.body, request.headers['if-none-match']);
        return answer.notModified ? sendNotModified(reply, answer.etag) : sendJsonLicenseFile(reply, answer.file, answer.etag);
      },
    );

    registerDeviceProtocolRoutes(app, ctx, PER_ADDRESS);

    app.delete(
      '/client/v1/license',
      {
        schema: {
          tags: ['desktop protocol'],
          summary: 'Release the floating seat of a machine',
          body: clientReleaseRequest,
          response: { 204: z.null(), ...errorResponses },
        },
      },
      async (request, reply) => {
        limit(request.ip, request.body.machineId);
        await releaseClientLicense(ctx, request.body);
        return reply.status(204).send(null);
      },
    );

    registerInstanceLeaseRoutes(app, ctx, PER_ADDRESS);

    app.get(
      '/client/v1/keys',
      {
        schema: { tags: ['desktop protocol'], summary: 'The public keys that verify license files', response: { 200: publicSigningKeys } },
      },
      async (request) => {
        limit(request.ip);
        return { keys: await signingKeys(ctx).published() };
      },
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
      },
      async (request, reply) => {
        limit(request.ip);
        const key = (await signingKeys(ctx).published()).find((candidate) => candidate.kid === request.params.kid);
        if (!key) throw notFound('Key');
        return sendTextFile(request, reply, { fileName: `${key.kid}.pem`, mediaType: 'application/x-pem-file', content: key.publicKeyPem });
      },
    );
  };
}
