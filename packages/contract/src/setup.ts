import { z } from 'zod';

/**
 * What a new installation's administrator has set up (GET /api/setup-status), for the first-run
 * checklist: a product, a policy of their own (optional: the built-in ones may do), a TAN, the
 * mail sender and a distributor.
 */
export const setupStatus = z.object({
  hasProduct: z.boolean(),
  hasOwnPolicy: z.boolean(),
  hasTan: z.boolean(),
  /** SMTP_URL and a MAIL_FROM of the vendor's own are configured: mails leave the machine, from the vendor. */
  mailSenderSet: z.boolean(),
  hasDistributor: z.boolean(),
});
export type SetupStatus = z.infer<typeof setupStatus>;

/** The steps the checklist needs done before it goes away by itself (a policy of one's own is optional). */
export const REQUIRED_SETUP_STEPS = ['hasProduct', 'hasTan', 'mailSenderSet', 'hasDistributor'] as const satisfies readonly (keyof SetupStatus)[];

export function setupComplete(status: SetupStatus): boolean {
  return REQUIRED_SETUP_STEPS.every((step) => status[step]);
}
