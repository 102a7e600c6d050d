import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loginRequest, sessionState, sessionUser } from '@lm/contract';
import { accountSessions as accountSessionList, passwordChange } from '@lm/contract/two-factor';
import type { AppContext } from '../../platform/context.ts';
import { clearSessionCookie, DEVICE_COOKIE, requireUser, setDeviceCookie, setSessionCookie } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { anonymousSession, login, logout, sessionUserOf } from './service.ts';
import { accountSessions, changePassword, endAccountSession, endOtherSessions } from './account.ts';

const noContent = { 204: z.null(), ...errorResponses };

export function sessionRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/session',
      {
        schema: { tags: ['session'], summary: 'Log in', body: loginRequest, response: { 200: sessionUser, ...errorResponses } },
        // A flood guard per instance (each login costs an Argon2 hash); the limits on guessing are
        // LOGIN_LIMITS, in the database.
        config: { rateLimit: { max: 60, timeWindow: '1 minute' } },
      },
      async (request, reply) => {
        const { token, user, deviceToken } = await login(ctx, request.body, {
          address: request.ip,
          deviceToken: request.cookies[DEVICE_COOKIE],
          userAgent: request.headers['user-agent'],
        });
        setSessionCookie(request, reply, token);
        setDeviceCookie(request, reply, deviceToken);
        return user;
      },
    );

    app.get(
      '/session',
      {
        schema: {
          tags: ['session'],
          summary: 'Validate the session',
          description: 'The signed-in user with its rules; without a valid session, `id: null` and the rules of an anonymous visitor.',
          response: { 200: sessionState, ...errorResponses },
        },
      },
      async (request) => (request.user ? sessionUserOf(ctx, request.user) : anonymousSession()),
    );

    app.get(
      '/account/sessions',
      { schema: { tags: ['account'], summary: "The own account's sessions: browser, address, last use", response: { 200: accountSessionList, ...errorResponses } }, config: { sessionOnly: true } },
      async (request) => ({ items: await accountSessions(ctx, requireUser(request).id, request.sessionTokenHash) }),
    );

    app.delete(
      '/account/sessions',
      { schema: { tags: ['account'], summary: 'End every session of the own account but this one', response: noContent }, config: { sessionOnly: true } },
      async (request, reply) => {
        await endOtherSessions(ctx, requireUser(request).id, request.sessionTokenHash);
        return reply.status(204).send(null);
      },
    );

    app.delete(
      '/account/sessions/:id',
      {
        schema: { tags: ['account'], summary: 'End one session of the own account', params: z.object({ id: z.string().regex(/^[0-9a-f]{24}$/) }), response: noContent },
        config: { sessionOnly: true },
      },
      async (request, reply) => {
        await endAccountSession(ctx, requireUser(request).id, request.params.id);
        return reply.status(204).send(null);
      },
    );

    app.put(
      '/account/password',
      {
        schema: { tags: ['account'], summary: 'Change the own password (the current one proves the person); the other sessions end', body: passwordChange, response: noContent },
        config: { rateLimit: { max: 30, timeWindow: '1 minute' }, sessionOnly: true },
      },
      async (request, reply) => {
        await changePassword(ctx, requireUser(request).id, request.sessionTokenHash, request.body);
        return reply.status(204).send(null);
      },
    );

    app.delete(
      '/session',
      { schema: { tags: ['session'], summary: 'Log out', response: { 204: z.null() } } },
      async (request, reply) => {
        await logout(ctx, request.sessionTokenHash);
        clearSessionCookie(reply);
        return reply.status(204).send(null);
      },
    );
  };
}
