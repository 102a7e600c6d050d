/**
 * Two-factor sign-in and the account's sessions (DESIGN.md section 6b): TOTP as every authenticator
 * app computes it (RFC 6238: 30 s, 6 digits, SHA-1), ten single-use recovery codes, and the sessions
 * an account can see and end.
 */
import { z } from 'zod';
import { password } from './user.ts';
import { isoDateTime } from './list.ts';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
export const RECOVERY_CODE_COUNT = 10;
/** 16 characters of the TAN alphabet (80 bits), shown in groups of four. */
export const RECOVERY_CODE_LENGTH = 16;

/** What a code field takes: six digits, or a recovery code with or without dashes and spaces. */
export function normalizeSecondFactorCode(input: string): string {
  return input.replace(/[\s-]/g, '').toLowerCase();
}

export function isTotpCode(code: string): boolean {
  return new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(code);
}

export const secondFactorCode = z.string().trim().min(1).max(40);

export const twoFactorStatus = z.object({
  enabled: z.boolean(),
  enabledAt: isoDateTime.nullable(),
  recoveryCodesLeft: z.number().int(),
  /** The settings require a second factor for this account's role. */
  required: z.boolean(),
});
export type TwoFactorStatus = z.output<typeof twoFactorStatus>;

/** The start of enrolment: the secret as text and as an otpauth:// link, and that link as a QR code (SVG). */
export const twoFactorSetup = z.object({ secret: z.string(), otpauthUrl: z.string(), qrCodeSvg: z.string() });
export type TwoFactorSetup = z.output<typeof twoFactorSetup>;

export const twoFactorConfirm = z.object({ code: secondFactorCode });
export const recoveryCodes = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodes = z.output<typeof recoveryCodes>;
/** Turning the second factor off, or new recovery codes: the password proves the person. */
export const passwordProof = z.object({ password: z.string().min(1).max(1024) });

export const passwordChange = z.object({ currentPassword: z.string().min(1).max(1024), newPassword: password });

export const accountSession = z.object({
  /** An id of its own (never the token). */
  id: z.string(),
  current: z.boolean(),
  /** The browser and system from the User-Agent ("Firefox", "Windows"); null when unknown. */
  browser: z.string().nullable(),
  system: z.string().nullable(),
  address: z.string().nullable(),
  createdAt: isoDateTime,
  lastUsedAt: isoDateTime,
});
export type AccountSession = z.output<typeof accountSession>;
export const accountSessions = z.object({ items: z.array(accountSession) });

const BROWSERS: [RegExp, string][] = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\/|Chromium\//, 'Chrome'],
  [/Safari\//, 'Safari'],
  [/curl\//, 'curl'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Windows/, 'Windows'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Android/, 'Android'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/** The browser and the system a User-Agent names, as a person would say them ("Firefox", "Windows"). */
export function describeUserAgent(userAgent: string | null | undefined): { browser: string | null; system: string | null } {
  if (!userAgent) return { browser: null, system: null };
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null;
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null;
  return { browser, system };
}
