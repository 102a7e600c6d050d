import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SERVER_TIME_HEADER } from '@lm/contract/license-file';
import { clientLicenseRequest, clientReleaseRequest, licenseFileJson, publicSigningKeys } from '@lm/contract/client-protocol';
import type { AppContext } from '../../platform/context.ts';
import { errorCodeOf, notFound } from '../../platform/http/errors.ts';
import { sendTextFile } from '../../platform/http/downloads.ts';
import { errorResponses, textFileAnswer } from '../../platform/http/openapi.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { serverTimeTokens } from '../../platform/signing/server-time.ts';
import { sendJsonLicenseFile, sendNotModified } from '../license-files/http.ts';
import { startLicenseFiles } from '../license-files/lifecycle.ts';
import { fetchClientLicense, releaseClientLicense } from './service.ts';

/** Per address: generous for a company's machines behind one NAT, far too few to guess machine ids. */
export const PER_ADDRESS = { rateLimit: { max: 600, timeWindow: '1 minute' } };

/**
 * Every protocol answer's headers, fixed: CORS for any origin, and the security headers of a JSON API
 * (OWASP's REST cheat sheet) instead of the web app's page headers: no cache keeps an answer, no
 * browser reads one as anything but its type, and no page frames one.
 */
const PROTOCOL_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': `etag, ${SERVER_TIME_HEADER}`,
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** The operation of each protocol route, and the outcomes it answers today, for /metrics. */
const OPERATIONS: Record<string, { operation: string; outcomes: readonly string[] }> = {
  'POST /api/client/v1/license': {
    operation: 'license',
    outcomes: [
      '200',
      '304',
      'ERR_NO_LICENSE',
      'ERR_LICENSE_REVOKED',
      'ERR_LICENSE_SUSPENDED',
      'ERR_LICENSE_EXPIRED',
      'ERR_LICENSE_UPGRADED',
      'ERR_NO_SEAT',
      'ERR_TOO_MANY_MACHINES',
      'ERR_BORROW_NOT_ALLOWED',
      'ERR_VALIDATION',
      'ERR_RATE_LIMITED',
    ],
  },
  'DELETE /api/client/v1/license': { operation: 'release', outcomes: ['204', 'ERR_NO_LICENSE', 'ERR_VALIDATION', 'ERR_RATE_LIMITED'] },
  'GET /api/client/v1/keys': { operation: 'keys', outcomes: ['200', 'ERR_RATE_LIMITED'] },
  'GET /api/client/v1/keys/:kid.pem': { operation: 'key', outcomes: ['200', 'ERR_NOT_FOUND', 'ERR_RATE_LIMITED'] },
};

/**
 * The desktop-software protocol (DESIGN.md section 6): no session; machine id and product identify the
 * license. Registered apart from the web app's hooks (app.ts): none of them applies to it.
 */
export function clientProtocolRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await startLicenseFiles(ctx, app);

    // Each answer counted by its outcome: the status of a success, the error code of a refusal.
    for (const { operation, outcomes } of Object.values(OPERATIONS)) ctx.metrics.expectProtocolOutcomes(operation, outcomes);
    app.addHook('onResponse', (request, reply, done) => {
      const route = OPERATIONS[`${request.method} ${request.routeOptions.url}`];
      if (route) ctx.metrics.protocolResponses.inc({ operation: route.operation, outcome: errorCodeOf(reply) ?? String(reply.statusCode) });
      done();
    });

    // No cookies, no session: any origin may call the protocol, e.g. the SDK in an Electron renderer.
    // Every answer, refusals and 304s included, carries the server's signed time (DESIGN.md 6d).
    const serverTime = serverTimeTokens(ctx);
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(PROTOCOL_HEADERS);
      const token = serverTime.current();
      if (typeof token === 'string') {
        reply.header(SERVER_TIME_HEADER, token);
        done();
      } else {
        token.then((value) => {
          reply.header(SERVER_TIME_HEADER, value);
          done();
        }, done);
      }
    });
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
