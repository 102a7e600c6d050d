import type { AppContext } from '../../platform/context.ts';
import { settingValue } from '../settings/service.ts';
import { deleteLicenseEventsBefore } from './repo.ts';

/** Removes the events older than `events.retentionDays` (180 by default); how many went. */
export async function pruneLicenseEvents(ctx: AppContext, now = new Date()): Promise<number> {
  const days = await settingValue<number>(ctx.db, 'events.retentionDays');
  return deleteLicenseEventsBefore(ctx.db, new Date(now.getTime() - days * 86400_000).toISOString());
}
