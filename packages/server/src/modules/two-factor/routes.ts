import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParam } from '@lm/contract';
import { passwordProof, recoveryCodes, twoFactorConfirm, twoFactorSetup, twoFactorStatus } from '@lm/contract/two-factor';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, requireUser } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import type { RequestUser } from '../../platform/http/auth.ts';
import type { FastifyRequest } from 'fastify';
import { confirmEnrolment, disableTwoFactor, regenerateRecoveryCodes, startEnrolment, twoFactorStatus as statusOf } from './service.ts';
import { resetTwoFactorOf, twoFactorStatusOf } from './reset.ts';

const tags = ['two-factor sign-in'];
const noContent = { 204: z.null(), ...errorResponses };

function account(request: FastifyRequest) {
  const user: RequestUser = requireUser(request);
  return { id: user.id, email: user.email, accessRole: user.accessRole, sessionTokenHash: request.sessionTokenHash };
}

/** The account's own second factor (DESIGN.md section 6b), and an administrator's reset of another's. */
export function twoFactorRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/account/two-factor',
      { schema: { tags, summary: 'Whether the own account signs in with a second factor', response: { 200: twoFactorStatus, ...errorResponses } } },
      async (request) => statusOf(ctx, account(request)),
    );

    app.post(
      '/account/two-factor',
      {
        schema: { tags, summary: 'Start setting up an authenticator: a new secret, as text, otpauth:// link and QR code', response: { 200: twoFactorSetup, ...errorResponses } },
        config: { sessionOnly: true },
      },
      async (request) => startEnrolment(ctx, account(request)),
    );

    app.post(
      '/account/two-factor/confirm',
      {
        schema: {
          tags,
          summary: 'Confirm the authenticator with a current code: two-factor sign-in is on, the other sessions end, and ten recovery codes are shown once',
          body: twoFactorConfirm,
          response: { 200: recoveryCodes, ...errorResponses },
        },
        config: { rateLimit: { max: 30, timeWindow: '1 minute' }, sessionOnly: true },
      },
      async (request) => ({ recoveryCodes: await confirmEnrolment(ctx, account(request), request.body.code) }),
    );

    app.delete(
      '/account/two-factor',
      { schema: { tags, summary: 'Turn two-factor sign-in off (the password proves the person)', body: passwordProof, response: noContent }, config: { sessionOnly: true } },
      async (request, reply) => {
        await disableTwoFactor(ctx, account(request), request.body.password);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/account/two-factor/recovery-codes',
      {
        schema: { tags, summary: 'Ten new recovery codes, shown once; the old ones stop working', body: passwordProof, response: { 200: recoveryCodes, ...errorResponses } },
        config: { sessionOnly: true },
      },
      async (request) => ({ recoveryCodes: await regenerateRecoveryCodes(ctx, account(request), request.body.password) }),
    );

    app.get(
      '/users/:id/two-factor',
      { schema: { tags, summary: "Whether an account signs in with a second factor (for an administrator's reset)", params: idParam, response: { 200: twoFactorStatus, ...errorResponses } } },
      async (request) => {
        requireUser(request);
        authorize(request, 'update', 'User', { id: request.params.id }, 'twoFactor');
        return twoFactorStatusOf(ctx, request.params.id);
      },
    );

    app.delete(
      '/users/:id/two-factor',
      {
        schema: { tags, summary: "An administrator resets an account's second factor (the account is mailed)", params: idParam, response: noContent },
        config: { sessionOnly: true },
      },
      async (request, reply) => {
        requireUser(request);
        authorize(request, 'update', 'User', { id: request.params.id }, 'twoFactor');
        await resetTwoFactorOf(ctx, actorOf(request), request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
