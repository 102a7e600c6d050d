import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { artifact, artifactCreate, artifactParams, downloadsList, productReleasesParam, release, releaseFields, releaseIdParam, releaseList, releaseUpdate, signedDownloadQuery } from '@lm/contract/release';
import { MAX_RECORD_ID, wholeNumberText } from '@lm/contract/list';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, requireUser } from '../../platform/http/auth.ts';
import { errorResponses, fileAnswer } from '../../platform/http/openapi.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { checkMayDownload, checkSignedLink, sendArtifact } from './downloads.ts';
import { addArtifact, changeRelease, createRelease, getRelease, listReleases, releaseOfArtifact, removeRelease, toRelease } from './service.ts';
import { downloadsOf } from './updates.ts';
import { registerUploads } from './uploads.ts';

const tags = ['releases'];

const artifactAnswer = fileAnswer(
  'The artifact; `Range` gives a part (206), `If-None-Match` with its ETag (its SHA-256) a 304, `HEAD` the headers only. With `Accept: application/json` (preferred to the file’s type) its description (`Artifact`: size, SHA-256, signature) instead of its bytes',
  { 'application/octet-stream': z.string().describe('The file'), 'application/json': artifact },
);

/** Releases, their uploads and downloads (DESIGN.md section 6i); the desktop protocol's updates call is in client-routes.ts. */
export function releaseRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await signingKeys(ctx).ready();
    registerUploads(app, ctx);

    app.get(
      '/products/:id/releases',
      { schema: { tags, summary: 'The releases of a product version', description: 'Newest version first (semver order), with their artifacts and download counts.', params: productReleasesParam, response: { 200: releaseList, ...errorResponses } } },
      async (request) => {
        authorize(request, 'view-list', 'Release');
        const items = await listReleases(ctx, request.params.id);
        return { items, totalCount: items.length };
      },
    );

    app.post(
      '/products/:id/releases',
      {
        schema: {
          tags,
          summary: 'Publish a release of a product version',
          description: 'The version must be semver and new for the product (409 otherwise). Announced to webhooks as `release.published`.',
          params: productReleasesParam,
          body: releaseFields,
          response: { 201: release, ...errorResponses },
        },
      },
      async (request, reply) => {
        authorize(request, 'create', 'Release');
        return reply.status(201).send(await createRelease(ctx, actorOf(request), request.params.id, request.body));
      },
    );

    app.get('/releases/:id', { schema: { tags, summary: 'One release', description: 'A release with its artifacts.', params: releaseIdParam, response: { 200: release, ...errorResponses } } }, async (request) => {
      authorize(request, 'view', 'Release');
      return toRelease(await getRelease(ctx, request.params.id));
    });

    app.put(
      '/releases/:id',
      { schema: { tags, summary: 'Change a release', description: 'Channel, release time, notes, and `yanked` (a yanked release is offered to nobody).', params: releaseIdParam, body: releaseUpdate, response: { 200: release, ...errorResponses } } },
      async (request) => {
        authorize(request, 'update', 'Release');
        return changeRelease(ctx, request.params.id, request.body);
      },
    );

    app.delete(
      '/releases/:id',
      { schema: { tags, summary: 'Delete a release', description: 'The release, its artifacts and their files.', params: releaseIdParam, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        authorize(request, 'delete', 'Release');
        await removeRelease(ctx, request.params.id);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/releases/:id/artifacts',
      {
        schema: {
          tags,
          summary: 'Add a finished upload to a release as an artifact',
          description: '`uploadId` is the last segment of the tus upload’s Location (`/api/uploads/{uploadId}`). The server signs the file’s SHA-256 (computed while it was uploaded).',
          params: releaseIdParam,
          body: artifactCreate,
          response: { 201: release, ...errorResponses },
        },
      },
      async (request, reply) => {
        authorize(request, 'update', 'Release');
        return reply.status(201).send(await addArtifact(ctx, request.params.id, request.body));
      },
    );

    app.get(
      '/releases/:id/artifacts/:artifactId/download',
      {
        schema: {
          tags,
          summary: 'Download an artifact (signed in)',
          description: 'Administrators download any artifact; customers those of releases a license of theirs is entitled to (403 `ERR_NOT_ENTITLED` otherwise).',
          params: artifactParams,
          response: { 200: artifactAnswer, ...errorResponses },
        },
      },
      async (request, reply) => {
        const user = requireUser(request);
        const found = await getRelease(ctx, request.params.id);
        await checkMayDownload(ctx, user, found);
        return sendArtifact(ctx, request, reply, found, request.params.artifactId);
      },
    );

    app.get(
      '/artifacts/:artifactId/file',
      {
        schema: {
          tags,
          summary: 'Download an artifact through the signed link of an updates answer',
          description: 'No session: the link’s signature and expiry are the credential (403 `ERR_INVALID_SIGNATURE` when wrong or past).',
          params: z.object({ artifactId: wholeNumberText(1, MAX_RECORD_ID).describe('The artifact id') }),
          querystring: signedDownloadQuery,
          response: { 200: artifactAnswer, ...errorResponses },
        },
        config: { rateLimit: { max: 120, timeWindow: '1 minute' } },
      },
      async (request, reply) => {
        await checkSignedLink(ctx, request.params.artifactId, request.query.expires, request.query.signature);
        return sendArtifact(ctx, request, reply, await releaseOfArtifact(ctx, request.params.artifactId), request.params.artifactId);
      },
    );

    app.get(
      '/downloads',
      {
        schema: {
          tags,
          summary: 'What the caller may download',
          description: 'Per license of the caller: the releases it is entitled to, newest first, and the newest release it is not entitled to with the reason (free updates ended, beta not allowed).',
          response: { 200: downloadsList, ...errorResponses },
        },
      },
      async (request) => downloadsOf(ctx, requireUser(request).id),
    );
  };
}
