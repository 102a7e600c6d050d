import { z } from 'zod';
import { accessRole } from './user.ts';

export const loginRequest = z.object({
  username: z.string().trim().min(1).max(255),
  password: z.string().min(1).max(1024),
  /** For an account with a second factor: a current authenticator code or an unused recovery code. */
  code: z.string().trim().min(1).max(40).optional(),
});
export type LoginRequest = z.output<typeof loginRequest>;

export const sessionUser = z.object({
  id: z.number().int(),
  username: z.string(),
  formattedName: z.string(),
  accessRole,
  /** CASL's packed rules. */
  rules: z.array(z.array(z.unknown())),
  /** The settings require a second factor of this account, and it has none yet: only enrolment is open. */
  twoFactorEnrollmentRequired: z.boolean().optional(),
});
export type SessionUser = z.output<typeof sessionUser>;

/** A visitor without a session: no account, but permission rules all the same (CASL's packed rules). */
export const anonymousSession = z.object({
  id: z.null(),
  username: z.null(),
  formattedName: z.null(),
  accessRole: z.null(),
  rules: z.array(z.array(z.unknown())),
});
export type AnonymousSession = z.output<typeof anonymousSession>;

/** `GET /session`: the signed-in user, or the anonymous rules (200 either way, so that a visit logs no error). */
export const sessionState = z.union([sessionUser, anonymousSession]);
export type SessionState = z.output<typeof sessionState>;
