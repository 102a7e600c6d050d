import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deviceAuthorizeRequest, deviceAuthorizeResponse, deviceGrantError, deviceTokenRequest, deviceTokenResponse } from '@lm/contract/organization';
import type { AppContext } from '../../platform/context.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { authorizeDevice, DeviceGrantError, pollDeviceToken, signOutDesktop } from './service.ts';

const tags = ['desktop protocol'];

/** The bearer token of a protocol request (a desktop sign-in's), or null. */
export function desktopBearer(authorization: string | undefined): string | null {
  if (!authorization || !/^bearer\s/i.test(authorization)) return null;
  return authorization.slice(6).trim() || null;
}

/**
 * The program's side of desktop sign-in, the OAuth 2.0 Device Authorization Grant (RFC 8628, DESIGN.md
 * section 6f), registered in the desktop protocol's scope (its headers and limits).
 */
export function registerDeviceProtocolRoutes(app: FastifyInstance, ctx: AppContext, limits: { rateLimit: { max: number; timeWindow: string } }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/client/v1/device/authorize',
    {
      schema: {
        tags,
        summary: 'Start a desktop sign-in',
        description: 'A device code for the program to poll with, and a user code and address for the person to approve the sign-in at (RFC 8628 section 3.2).',
        body: deviceAuthorizeRequest,
        response: { 200: deviceAuthorizeResponse, ...errorResponses },
      },
      config: limits,
    },
    async (request) => authorizeDevice(ctx, request.body),
  );
  api.post(
    '/client/v1/device/token',
    {
      schema: {
        tags,
        summary: 'Poll for the access token of a desktop sign-in',
        description:
          'RFC 8628 section 3.4: 400 with `authorization_pending` until the person approves, `slow_down` when polled faster than `interval` (which then grows by 5 seconds), `access_denied`, `expired_token`; then once `{ access_token, token_type: "Bearer" }`.',
        body: deviceTokenRequest,
        // RFC 8628's errors, or the API's own for a body that is not a token request at all.
        response: { 200: deviceTokenResponse, 400: z.union([deviceGrantError, errorResponses[400]]), 429: errorResponses[429] },
      },
      config: limits,
    },
    async (request, reply) => {
      try {
        return await pollDeviceToken(ctx, request.body.device_code);
      } catch (error) {
        if (error instanceof DeviceGrantError) return reply.status(400).send({ error: error.grantError, error_description: error.message });
        throw error;
      }
    },
  );
  api.delete(
    '/client/v1/device/token',
    {
      schema: {
        tags,
        summary: 'Sign a program out',
        description: 'With the sign-in\'s `Authorization: Bearer` token: the token stops working.',
        headers: z.object({ authorization: z.string().max(200).optional() }),
        response: { 204: z.null(), ...errorResponses },
      },
      config: limits,
    },
    async (request, reply) => {
      const token = desktopBearer(request.headers.authorization);
      if (!token) return reply.status(401).send({ error: 'ERR_UNAUTHENTICATED', message: 'Send the sign-in as Authorization: Bearer <token>' });
      await signOutDesktop(ctx, token);
      return reply.status(204).send(null);
    },
  );
}
