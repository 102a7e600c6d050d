import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { settingsMap, settingsPatch, settingUpdate, settingUploadResult } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import { authorize, sessionRequired } from '../../platform/http/auth.ts';
import { editResponses, errorResponses } from '../../platform/http/openapi.ts';
import { ETAG_CONFIG, ifMatchHeaders, preconditionOf, withEtag } from '../../platform/http/versioned.ts';
import { AppError } from '../../platform/http/errors.ts';
import { allSettings, isSecuritySetting, patchSettings, publicSettings, removeSetting, themeFile, updateSetting, uploadSettingFile } from './service.ts';

const keyParam = z.object({ key: z.string().min(1).max(100) });

/** Who may change this key: an administrator, and for the security settings only one signed in (see sessionRequired). */
function authorizeSettingChange(request: FastifyRequest, key: string): void {
  authorize(request, 'update', 'Setting');
  if (request.apiToken && isSecuritySetting(key)) throw sessionRequired();
}

/** The bytes of the upload's file, or null without one; a body that is not valid multipart is the client's error. */
async function uploadedFile(request: FastifyRequest): Promise<Buffer | null> {
  try {
    const file = await request.file();
    return file ? await file.toBuffer() : null;
  } catch (error) {
    if (error instanceof Error && (error as { statusCode?: number }).statusCode === 413) throw error;
    throw new AppError(400, 'ERR_BAD_REQUEST', 'The upload is not a valid multipart/form-data body', { details: [{ path: 'file', message: error instanceof Error ? error.message : String(error) }] });
  }
}

export function settingsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/settings',
      { schema: { tags: ['settings'], summary: 'Settings: all keys for administrators, the public theme for others; with their ETag', response: { 200: settingsMap } }, config: ETAG_CONFIG },
      async (request, reply) => withEtag(reply, request.ability.can('update', 'Setting') ? await allSettings(ctx) : await publicSettings(ctx)),
    );

    app.patch(
      '/settings',
      {
        schema: {
          tags: ['settings'],
          summary: 'Change several settings at once, only the keys given (null unsets one); with If-Match only while the settings are still the version read',
          headers: ifMatchHeaders,
          body: settingsPatch,
          response: { 200: settingsMap, ...editResponses },
        },
        config: ETAG_CONFIG,
      },
      async (request, reply) => {
        authorize(request, 'update', 'Setting');
        for (const key of Object.keys(request.body)) authorizeSettingChange(request, key);
        return withEtag(reply, await patchSettings(ctx, request.body, preconditionOf(request)));
      },
    );

    app.put(
      '/settings/:key',
      {
        schema: {
          tags: ['settings'],
          summary: 'Change a setting: JSON `{ value }`, or for theme.logo and theme.favicon a multipart upload with the field `file` (2 MB at most)',
          params: keyParam,
          // Absent for a multipart upload, which the handler reads as a stream.
          body: settingUpdate.nullish(),
          response: { 200: settingUploadResult, 204: z.null(), ...errorResponses },
        },
      },
      async (request, reply) => {
        authorizeSettingChange(request, request.params.key);
        if (request.isMultipart()) {
          const value = await uploadSettingFile(ctx, request.params.key, await uploadedFile(request));
          return reply.status(200).send({ value });
        }
        if (!request.body) throw new AppError(400, 'ERR_VALIDATION', 'The request is not valid', { details: [{ path: 'value', message: 'value is required' }] });
        await updateSetting(ctx, request.params.key, request.body.value);
        return reply.status(204).send(null);
      },
    );

    app.delete(
      '/settings/:key',
      { schema: { tags: ['settings'], summary: 'Unset a setting', params: keyParam, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        authorizeSettingChange(request, request.params.key);
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

    app.get(
      '/theme/files/:name',
      { schema: { tags: ['settings'], summary: 'An uploaded theme file (logo, favicon)', params: z.object({ name: z.string().max(50) }), querystring: z.object({ v: z.string().max(64).optional() }) } },
      async (request, reply) => {
        const file = await themeFile(ctx, request.params.name);
        if (!file) return reply.status(404).send({ error: 'ERR_NOT_FOUND', message: 'File not found' });
        // The URL in the setting carries the version: such a request may be cached for good.
        const versioned = request.query.v === file.version;
        const etag = `"${file.version}"`;
        reply
          .header('content-type', file.contentType)
          .header('etag', etag)
          .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache')
          // An SVG opened on its own must not run scripts in this origin.
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
          .header('x-content-type-options', 'nosniff');
        if (request.headers['if-none-match'] === etag) return reply.status(304).send();
        return reply.send(Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength));
      },
    );
  };
}
