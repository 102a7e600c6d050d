import { z } from 'zod';
import { accessRole } from './user.ts';

export const loginRequest = z.object({
  username: z.string().trim().min(1).max(255),
  password: z.string().min(1).max(1024),
});
export type LoginRequest = z.output<typeof loginRequest>;

export const sessionUser = z.object({
  id: z.number().int(),
  username: z.string(),
  formattedName: z.string(),
  accessRole,
  /** CASL's packed rules. */
  rules: z.array(z.array(z.unknown())),
});
export type SessionUser = z.output<typeof sessionUser>;
