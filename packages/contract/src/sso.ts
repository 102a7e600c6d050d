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

/** `POST /api/sso/second-factor`: the account's code after the identity provider vouched for the person. */
export const ssoSecondFactorRequest = z.object({
  /** A current authenticator code or an unused recovery code. */
  code: z.string().trim().min(1).max(40),
});
export type SsoSecondFactorRequest = z.output<typeof ssoSecondFactorRequest>;

/** Signed in: where the web app goes next (a distributor to their TANs, everyone else home). */
export const ssoSignedIn = z.object({ redirect: z.string() });
