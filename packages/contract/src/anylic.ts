import { z } from 'zod';
import { LICENSE_FILE_FORMATS } from './license-file.ts';
import { isoDate, isoDateTime, recordId } from './list.ts';

/** `POST /api/anylic`: an ANY-Lic download link (machine `*`) valid until the end of `validUntil` (UTC). */
export const anyLicCreate = z.object({
  productId: recordId,
  validUntil: isoDate,
  format: z.enum(LICENSE_FILE_FORMATS),
});
export type AnyLicCreate = z.output<typeof anyLicCreate>;

export const anyLicLink = z.object({
  url: z.string(),
  expiresAt: isoDateTime,
});
export type AnyLicLink = z.output<typeof anyLicLink>;

/** The link token (43 base64url characters); anything else is simply not found. */
export const anyLicTokenParam = z.object({ token: z.string().min(1).max(200) });
