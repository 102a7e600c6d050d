import type { ClientLicenseRequest } from '@lm/contract/client-protocol';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { recordLicenseEvent } from '../license-events/recorder.ts';
import { lastSeenRecorder } from './last-seen.ts';
import type { LicenseForFile } from './repo.ts';
import { answerLicenseFile, type FileAnswer } from './service.ts';

/**
 * The desktop protocol's answer for the license a machine uses, anonymous or signed in (DESIGN.md
 * sections 6 and 6f): the file or a 304, borrowing as asked, and what the contact leaves behind,
 * written off the answer's path: the machine's last contact (the active-machines statistics count
 * it, refused or not), a clock set back, and why a machine was refused (runtime events, for support
 * and the vendor's webhooks: recorder.ts).
 */
export function answerDesktopContact(ctx: AppContext, license: LicenseForFile, request: ClientLicenseRequest, ifNoneMatch: string | undefined, now: Date): Promise<FileAnswer> {
  lastSeenRecorder(ctx).record(license.id, request.machineId, now);
  const event = { licenseId: license.id, tanId: license.tanId, ownerId: license.ownerId, machineId: request.machineId };
  if (request.clockTamperedAt) recordLicenseEvent(ctx, { ...event, type: 'clock.tampered', at: new Date(Math.min(Date.parse(request.clockTamperedAt), now.getTime())).toISOString() });
  return answerLicenseFile(ctx, license, { machineId: request.machineId, now, refusalStatus: 403, ifNoneMatch, borrowDays: request.borrowDays }).catch((error: unknown) => {
    if (error instanceof AppError && error.code !== 'ERR_NO_LICENSE') recordLicenseEvent(ctx, { ...event, type: error.code === 'ERR_NO_SEAT' ? 'seat.denied' : 'activation.refused', code: error.code });
    throw error;
  });
}
