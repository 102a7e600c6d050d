import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loginRequest, sessionUser } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import { clearSessionCookie, requireUser, setSessionCookie } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { login, logout, sessionUserOf } from './service.ts';

export function sessionRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/session',
      {
        schema: { tags: ['session'], summary: 'Log in', body: loginRequest, response: { 200: sessionUser, ...errorResponses } },
        config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      },
      async (request, reply) => {
        const { token, user } = await login(ctx, request.body);
        setSessionCookie(request, reply, token);
        return user;
      },
    );

    app.get(
      '/session',
      { schema: { tags: ['session'], summary: 'Validate the session', response: { 200: sessionUser, ...errorResponses } } },
      async (request) => sessionUserOf(requireUser(request)),
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
