import { z } from 'zod';

/** `GET /api/sso/status`: what the login page needs to offer single sign-on. */
export const ssoStatus = z.object({
  enabled: z.boolean(),
  /** The button's text ("Sign in with Contoso"); null: the web app's own "Sign in with single sign-on". */
  label: z.string().nullable(),
  requiredForStaff: z.boolean(),
});
export type SsoStatus = z.infer<typeof ssoStatus>;

export const ssoStart = z.object({ url: z.string() });

export const ssoIdentity = z.object({ id: z.number().int(), issuer: z.string(), subject: z.string(), createdAt: z.string(), lastLoginAt: z.string().nullable() });
export const ssoIdentityList = z.object({ items: z.array(ssoIdentity) });
export type SsoIdentity = z.infer<typeof ssoIdentity>;
