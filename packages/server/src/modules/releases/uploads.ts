import { Server } from '@tus/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { authorize } from '../../platform/http/auth.ts';
import { uploadStore } from './storage.ts';

export const UPLOADS_PATH = '/api/uploads';
/** An upload untouched this long is abandoned: its files go (a resumed upload touches them with each part). */
export const ABANDONED_UPLOAD_MS = 24 * 3600_000;
const PRUNE_INTERVAL_MS = 3600_000;

/** Removes the abandoned uploads' files; how many. */
export async function pruneAbandonedUploads(ctx: AppContext, now = Date.now()): Promise<number> {
  const store = uploadStore(ctx);
  const abandoned = await store.untouchedSince(now - ABANDONED_UPLOAD_MS);
  for (const id of abandoned) await store.remove(id).catch(() => undefined);
  if (abandoned.length) ctx.log.info({ uploads: abandoned.length }, 'abandoned uploads removed');
  return abandoned.length;
}

/**
 * The tus endpoint `/api/uploads` (DESIGN.md section 6i): creation (`POST` with `Upload-Length`,
 * refused past ARTIFACT_MAX_SIZE before anything is stored), `HEAD` for the offset and `PATCH` to
 * go on after a cut. Administrators only; the bytes stream to disk (and through the hash) as they
 * come, never into memory.
 */
export function registerUploads(app: FastifyInstance, ctx: AppContext): void {
  const tus = new Server({
    path: UPLOADS_PATH,
    datastore: uploadStore(ctx),
    maxSize: ctx.config.artifactMaxSize,
    relativeLocation: true,
    respectForwardedHeaders: false,
    onResponseError: (_request, error) => {
      const status = 'status_code' in error ? error.status_code : 500;
      if (status === 413) return { status_code: 413, body: JSON.stringify({ error: 'ERR_PAYLOAD_TOO_LARGE', message: `Artifacts may have at most ${ctx.config.artifactMaxSize} bytes` }) };
      return undefined;
    },
  });
  // tus reads the body itself, as it streams.
  app.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null));
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    authorize(request, 'update', 'Release');
    reply.hijack();
    await tus.handle(request.raw, reply.raw);
  };
  for (const url of ['/uploads', '/uploads/:uploadId']) {
    app.route({ method: ['POST', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS'], url, schema: { hide: true }, handler });
  }
  // Each hour, without a job runner: abandoned uploads would otherwise fill the disk.
  const prune = () => void pruneAbandonedUploads(ctx).catch((error: unknown) => ctx.log.warn({ err: error }, 'abandoned uploads were not removed'));
  const timer = setInterval(prune, PRUNE_INTERVAL_MS).unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
