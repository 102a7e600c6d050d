import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { clientLeaseRequest, licenseFileJson } from '@lm/contract/client-protocol';
import type { AppContext } from '../../platform/context.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { sendJsonLicenseFile, sendNotModified } from '../license-files/http.ts';
import { leaseInstance, leaseRenewals, releaseInstance } from './service.ts';

/**
 * The instance-lease calls of the desktop protocol (DESIGN.md section 6h), registered in its scope
 * (client-protocol/routes.ts) so that its hooks apply; `limits` is its per-address rate limit.
 */
export function registerInstanceLeaseRoutes(app: FastifyInstance, ctx: AppContext, limits: object): void {
  const renewals = leaseRenewals(ctx);
  renewals.start();
  app.addHook('onClose', () => renewals.stop());
  const zod = app.withTypeProvider<ZodTypeProvider>();

  zod.post(
    '/client/v1/lease',
    {
      schema: {
        tags: ['desktop protocol'],
        summary: 'Lease a seat for a process instance with the license key (an INSTANCE policy\'s TAN), or renew it',
        description:
          'Answers a file valid for the policy\'s lease time to live, whose `machineId` is the instance id, with its ETag; `409 ERR_NO_SEAT` while every seat is leased. With `If-None-Match: <ETag of the file the instance holds>` it renews the lease and answers 304 while that file is still right. A lease not renewed within its time to live frees its seat.',
        body: clientLeaseRequest,
        response: { 200: licenseFileJson, ...errorResponses },
      },
      config: limits,
    },
    async (request, reply) => {
      const answer = await leaseInstance(ctx, request.body, request.headers['if-none-match']);
      return answer.notModified ? sendNotModified(reply, answer.etag) : sendJsonLicenseFile(reply, answer.file, answer.etag);
    },
  );

  zod.delete(
    '/client/v1/lease',
    {
      schema: {
        tags: ['desktop protocol'],
        summary: 'End the lease of a process instance (its clean exit), freeing its seat at once',
        description: 'Frees the seat the instance holds; nothing happens when it holds none.',
        body: clientLeaseRequest,
        response: { 204: z.null(), ...errorResponses },
      },
      config: limits,
    },
    async (request, reply) => {
      await releaseInstance(ctx, request.body);
      return reply.status(204).send(null);
    },
  );
}
