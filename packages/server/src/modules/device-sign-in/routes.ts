import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idParam } from '@lm/contract';
import { deviceDecision, devicePending as devicePendingSchema, devicePendingQuery, desktopSignInList } from '@lm/contract/organization';
import type { AppContext } from '../../platform/context.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { decideDevice, devicePending, listDesktopSignIns, revokeDesktopSignIn } from './service.ts';

const tags = ['desktop sign-in'];

/** The portal's side of desktop sign-in (DESIGN.md section 6f): the /device page and the sign-ins under Security. */
export function deviceSignInRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/device',
      {
        schema: { tags, summary: 'A pending desktop sign-in', description: 'The product and machine of the sign-in with this user code, for the person to approve or deny.', querystring: devicePendingQuery, response: { 200: devicePendingSchema, ...errorResponses } },
        config: { sessionOnly: true },
      },
      async (request) => devicePending(ctx, request, request.query.userCode),
    );
    for (const [path, decision] of [['/device/approve', 'approved'], ['/device/deny', 'denied']] as const) {
      app.post(
        path,
        {
          schema: {
            tags,
            summary: decision === 'approved' ? 'Approve a desktop sign-in' : 'Deny a desktop sign-in',
            description: 'The signed-in person decides once (ERR_DEVICE_DECIDED after that); the program polling with the device code then gets its token or access_denied.',
            body: deviceDecision,
            response: { 204: z.null(), ...errorResponses },
          },
          // A leaked API token must not sign programs in as its owner.
          config: { sessionOnly: true },
        },
        async (request, reply) => {
          await decideDevice(ctx, request, request.body.userCode, decision);
          return reply.status(204).send(null);
        },
      );
    }
    app.get(
      '/account/desktop-sign-ins',
      { schema: { tags, summary: 'My desktop sign-ins', description: 'The programs signed in as the caller, per machine and product.', response: { 200: desktopSignInList, ...errorResponses } } },
      async (request) => listDesktopSignIns(ctx, request),
    );
    app.delete(
      '/account/desktop-sign-ins/:id',
      { schema: { tags, summary: 'Revoke a desktop sign-in', description: 'The program is refused at its next refresh and must sign in again.', params: idParam, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        await revokeDesktopSignIn(ctx, request, request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
