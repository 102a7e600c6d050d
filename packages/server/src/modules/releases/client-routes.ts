import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clientUpdatesAnswer, clientUpdatesRequest } from '@lm/contract/release';
import type { AppContext } from '../../platform/context.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { checkForUpdates } from './updates.ts';

/** `POST /api/client/v1/updates` (DESIGN.md section 6i), beside the desktop protocol and like it without session. */
export function releaseClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await signingKeys(ctx).ready();
    app.post(
      '/client/v1/updates',
      {
        schema: {
          tags: ['desktop protocol'],
          summary: 'Is there an update this machine may install?',
          description:
            'A signed answer (`enc`: base64 JSON `{ latest, newer, issuedAt }`, `sig`: Ed25519 over `updates/` + enc): `latest` the newest release newer than `version` that the license is entitled to, with each file of the platform and architecture (size, SHA-256, signature over `artifact/` + SHA-256, and a signed link valid 15 minutes); `newer` the newest one it is not entitled to, with the reason.',
          body: clientUpdatesRequest,
          response: { 200: clientUpdatesAnswer, ...errorResponses },
        },
        config: { rateLimit: { max: 600, timeWindow: '1 minute' } },
      },
      async (request) => checkForUpdates(ctx, request.body),
    );
  };
}
