import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { signingKeys } from '../../platform/signing/keys.ts';
import { lastSeenRecorder } from './last-seen.ts';
import { seatRenewals } from './seats.ts';

const started = new WeakSet<AppContext>();

/**
 * Prepares what issuing files needs, once per app whichever module registers first: the signing key
 * (created on the very first start) and the batched writers of last-seen times and seat renewals,
 * flushed when the app closes.
 */
export async function startLicenseFiles(ctx: AppContext, app: FastifyInstance): Promise<void> {
  await signingKeys(ctx).ready();
  if (started.has(ctx)) return;
  started.add(ctx);
  lastSeenRecorder(ctx).start();
  seatRenewals(ctx).start();
  app.addHook('onClose', async () => {
    signingKeys(ctx).stop();
    await Promise.all([lastSeenRecorder(ctx).stop(), seatRenewals(ctx).stop()]);
  });
}
