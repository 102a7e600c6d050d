import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { settingsMap, settingUpdate } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import { authorize } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { allSettings, publicSettings, removeSetting, updateSetting } from './service.ts';

const keyParam = z.object({ key: z.string().min(1).max(100) });

export function settingsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/settings',
      { schema: { tags: ['settings'], summary: 'Settings: all keys for administrators, the public theme for others', response: { 200: settingsMap } } },
      async (request) => (request.ability.can('update', 'Setting') ? allSettings(ctx) : publicSettings(ctx)),
    );

    app.put(
      '/settings/:key',
      { schema: { tags: ['settings'], summary: 'Change a setting', params: keyParam, body: settingUpdate, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        authorize(request, 'update', 'Setting');
        await updateSetting(ctx, request.params.key, request.body.value);
        return reply.status(204).send(null);
      },
    );

    app.delete(
      '/settings/:key',
      { schema: { tags: ['settings'], summary: 'Unset a setting', params: keyParam, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        authorize(request, 'update', 'Setting');
        await removeSetting(ctx, request.params.key);
        return reply.status(204).send(null);
      },
    );
  };
}

/** `GET /theme/index.json` (outside /api, as the spec calls it): the public theme settings. */
export function themeRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/theme/index.json', { schema: { tags: ['settings'], summary: 'Public theme settings', response: { 200: settingsMap } } }, async () =>
      publicSettings(ctx),
    );
  };
}
