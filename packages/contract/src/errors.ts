import { z } from 'zod';

/**
 * Stable error codes. The server answers `{ error, message, details? }`; the web app shows its own
 * translated text for each code (locale key `errors.<CODE>`).
 */
export const ERROR_CODES = [
  'ERR_VALIDATION',
  'ERR_UNAUTHENTICATED',
  'ERR_FORBIDDEN',
  'ERR_NOT_FOUND',
  'ERR_CONFLICT',
  'ERR_CONCURRENT_CHANGE',
  'ERR_RATE_LIMITED',
  'ERR_BAD_REQUEST',
  'ERR_CSRF',
  'ERR_UNSUPPORTED_MEDIA_TYPE',
  'ERR_PAYLOAD_TOO_LARGE',
  'ERR_INTERNAL',
  'ERR_LOGIN_FAILED',
  'ERR_CONFIRMATION_PENDING',
  'ERR_DUPLICATE_EMAIL',
  'ERR_INVALID_TOKEN',
  'ERR_ALREADY_CONFIRMED',
  'ERR_ACCOUNT_CLOSED',
  'ERR_INVALID_LICENSE',
  'ERR_MACHINE_ID_USED',
  'ERR_TOO_MANY_MACHINES',
  'ERR_EXTEND_TOO_FAR',
  'ERR_LIMIT_EXCEEDED',
  'ERR_TRIAL_NOT_ALLOWED',
  'ERR_TRIAL_USED',
  'ERR_NO_LICENSE',
  'ERR_LICENSE_REVOKED',
  'ERR_LICENSE_EXPIRED',
  'ERR_LICENSE_UPGRADED',
  'ERR_NO_SEAT',
  'ERR_LICENSE_SUSPENDED',
  'ERR_BORROW_NOT_ALLOWED',
  'ERR_TRIAL_ENDED',
  'ERR_FEATURE_CYCLE',
  'ERR_UNKNOWN_FEATURE',
  'ERR_IN_USE',
  'ERR_INVALID_SIGNATURE',
  'ERR_STALE_REQUEST',
  'ERR_NOT_TEMPORARY',
  'ERR_UNKNOWN_ACCOUNT',
  'ERR_NO_FREE_UPGRADE',
  'ERR_LAST_ADMIN',
  'ERR_NO_MACHINE',
  'ERR_DATABASE_UNAVAILABLE',
  'ERR_STARTING',
  'ERR_SHUTTING_DOWN',
  'ERR_DATABASE_BUSY',
  'ERR_DISK_FULL',
  'ERR_TWO_FACTOR_REQUIRED',
  'ERR_TWO_FACTOR_INVALID',
  'ERR_TWO_FACTOR_ENABLED',
  'ERR_TWO_FACTOR_DISABLED',
  'ERR_TWO_FACTOR_NOT_STARTED',
  'ERR_TWO_FACTOR_ENROLLMENT_REQUIRED',
  'ERR_WRONG_PASSWORD',
  'ERR_EDIT_CONFLICT',
  'ERR_SSO_NOT_CONFIGURED',
  'ERR_SSO_FAILED',
  'ERR_SSO_EMAIL_NOT_VERIFIED',
  'ERR_SSO_NO_ACCOUNT',
  'ERR_SSO_REQUIRED',
  'ERR_SSO_IDENTITY_TAKEN',
  'ERR_SSO_SECOND_FACTOR',
  'ERR_SSO_LINK_REQUIRED',
  'ERR_NOT_ENTITLED',
  // Organizations and named users (DESIGN.md section 6f).
  'ERR_SEAT_UNASSIGNED',
  'ERR_LAST_OWNER',
  'ERR_ALREADY_MEMBER',
  'ERR_NOT_MEMBER',
  'ERR_SEATS_TAKEN',
  'ERR_SEAT_REASSIGN_WAIT',
  'ERR_DEVICE_DECIDED',
  'ERR_NOT_INSTANCE_KEY',
  'ERR_INVALID_REQUEST_FILE',
  'ERR_REQUEST_TOO_OLD',
  'ERR_INVALID_PROOF',
  'ERR_PROOF_USED',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  path: string;
  /** The problem in the request's language. */
  message: string;
  /** The message key (`tooShort`, `tanCode`, …): stable, for clients that show their own text. */
  code?: string;
  /** The values the message fills in (the field's limits). */
  params?: Record<string, string | number>;
}

export interface ErrorBody {
  error: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  /** Values that the message template uses, e.g. count/days/hours for ERR_TOO_MANY_MACHINES. */
  params?: Record<string, string | number>;
  /** ERR_EDIT_CONFLICT: the record as it is now, as the caller's GET of it shows it (its ETag is the answer's). */
  current?: unknown;
}

export const errorBody = z.object({
  error: z.enum(ERROR_CODES),
  message: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string(), code: z.string().optional(), params: z.record(z.string(), z.union([z.string(), z.number()])).optional() })).optional(),
  params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  current: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('ERR_EDIT_CONFLICT (412): the record as it is now, as its GET shows it; the answer\'s ETag header is its ETag'),
});
