import type { SetupStatus } from '@lm/contract';
import { DEFAULT_MAIL_FROM, type Config } from '../../platform/config.ts';
import type { AppContext } from '../../platform/context.ts';
import { setupRows } from './repo.ts';

/**
 * Mails leave the machine (SMTP_URL) from the vendor's own sender (MAIL_FROM other than the
 * localhost default). Both are server configuration, which the checklist can only point to.
 */
export function mailSenderSet(config: Pick<Config, 'smtpUrl' | 'mailFrom'>): boolean {
  return Boolean(config.smtpUrl) && config.mailFrom !== DEFAULT_MAIL_FROM;
}

/** The first-run checklist's state: what of a new installation is set up. */
export async function setupStatus(ctx: AppContext): Promise<SetupStatus> {
  return { ...(await setupRows(ctx.db)), mailSenderSet: mailSenderSet(ctx.config) };
}
