import * as oidc from 'openid-client';
import { ROLES, type Role } from '@lm/contract';
import { hashToken } from '../../platform/auth/secrets.ts';
import { recordChange } from '../../platform/changelog.ts';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import type { LoginClient } from '../session/service.ts';
import { hasSecondFactor } from '../two-factor/service.ts';
import { countUsersWithRole, findOpenUserById, findUserByEmail, insertUser, NO_CONTACT_DETAILS, updateUser } from '../users/repo.ts';
import { providerConfiguration, ssoFailed, ssoSettings, type SsoSettings } from './provider.ts';
import { deleteIdentityOfUser, findIdentity, identitiesOfUser, insertIdentity, insertPendingLogin, takePendingLogin } from './repo.ts';
import { awaitSecondFactor, completeSignIn, type SignedIn } from './sessions.ts';
import { notFound } from '../../platform/http/errors.ts';
import type { SsoIdentity } from '@lm/contract/sso';

/** How long a sign-in may stay at the provider. */
const PENDING_MINUTES = 10;
/** `amr` values that say the provider asked for more than a password (RFC 8176). */
const SECOND_FACTOR_AMR = new Set(['mfa', 'otp', 'hwk', 'swk', 'sms', 'fpt', 'face', 'iris', 'retina', 'vbm', 'sc']);

export const redirectUri = (ctx: AppContext) => `${ctx.config.publicUrl}/api/sso/callback`;

async function requireSettings(ctx: AppContext): Promise<SsoSettings> {
  const settings = await ssoSettings(ctx);
  if (!settings) throw new AppError(404, 'ERR_SSO_NOT_CONFIGURED', 'Single sign-on is not set up');
  return settings;
}

/**
 * `GET /api/sso/login` (and linking, `POST /api/account/sso`): the provider's authorization URL with
 * PKCE, `state` and `nonce`; the state goes to the browser's cookie as well, so that the callback is
 * taken only in the browser that started it. `linkUserId` links the identity to that signed-in
 * account instead of signing in.
 */
export async function startSsoLogin(ctx: AppContext, linkUserId: number | null): Promise<{ url: string; state: string }> {
  const settings = await requireSettings(ctx);
  const config = await providerConfiguration(settings);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const now = new Date();
  await insertPendingLogin(
    ctx.db,
    { stateHash: hashToken(state), nonce, codeVerifier, linkUserId, expiresAt: new Date(now.getTime() + PENDING_MINUTES * 60_000).toISOString() },
    now.toISOString(),
  );
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(ctx),
    scope: settings.scopes.split(' ').includes('openid') ? settings.scopes : `openid ${settings.scopes}`,
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { url: url.href, state };
}

/** The highest role that the person's groups map to, or null when none maps. */
export function mappedRole(groups: unknown, mapping: Record<string, Role>): Role | null {
  const list = Array.isArray(groups) ? groups.filter((group): group is string => typeof group === 'string') : typeof groups === 'string' ? [groups] : [];
  let best: Role | null = null;
  for (const group of list) {
    const role = mapping[group];
    if (role && (best === null || ROLES.indexOf(role) < ROLES.indexOf(best))) best = role;
  }
  return best;
}

type Claims = Record<string, unknown> & { iss: string; sub: string };

/** The verified claims of the callback: the code exchanged with the PKCE verifier, state and nonce checked, the ID token's signature too. */
async function verifiedClaims(ctx: AppContext, settings: SsoSettings, currentUrl: URL, state: string, pending: { nonce: string; codeVerifier: string }): Promise<Claims> {
  const config = await providerConfiguration(settings);
  // The provider redirected to redirectUri: that is the URL the code was issued for, whatever proxy this request came through.
  const callbackUrl = new URL(redirectUri(ctx));
  callbackUrl.search = currentUrl.search;
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: pending.codeVerifier, expectedState: state, expectedNonce: pending.nonce, idTokenExpected: true });
  } catch (error) {
    throw ssoFailed(error instanceof Error ? error.message : String(error));
  }
  const idClaims = tokens.claims();
  if (!idClaims) throw ssoFailed('no ID token');
  let claims: Record<string, unknown> = { ...idClaims };
  // Providers that keep groups and e-mail out of the ID token (conforming ones) answer them at userinfo.
  if ((!(settings.groupsClaim in claims) || !('email' in claims)) && config.serverMetadata().userinfo_endpoint) {
    try {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      claims = { ...info, ...claims };
    } catch (error) {
      throw ssoFailed(`userinfo: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return claims as Claims;
}

/** Signed in; waiting for the account's second factor (sessions.ts); or an identity linked to the signed-in account. */
export type SsoOutcome = SignedIn | { kind: 'second-factor'; token: string } | { kind: 'linked' };

/**
 * `GET /api/sso/callback`: a session for the person the provider vouches for. An identity known
 * here signs its account in, its role synchronized from its groups (a removed group demotes); an
 * unknown one is provisioned when provisioning is on and a group gives it a role. An identity is
 * linked to an existing account only by that account's signed-in owner (startSsoLogin with
 * linkUserId), never because an e-mail address matches.
 */
export async function finishSsoLogin(ctx: AppContext, currentUrl: URL, stateCookie: string | undefined, client: LoginClient): Promise<SsoOutcome> {
  const settings = await requireSettings(ctx);
  const state = currentUrl.searchParams.get('state');
  if (!state || !stateCookie || state !== stateCookie) throw ssoFailed('the state does not match this browser');
  const now = new Date();
  const pending = await takePendingLogin(ctx.db, hashToken(state), now.toISOString());
  if (!pending) throw ssoFailed('unknown or expired state');
  const claims = await verifiedClaims(ctx, settings, currentUrl, state, pending);
  const identity = await findIdentity(ctx.db, claims.iss, claims.sub);

  if (pending.linkUserId !== null) {
    if (identity && identity.user_id !== pending.linkUserId) throw new AppError(409, 'ERR_SSO_IDENTITY_TAKEN', 'This identity is linked to another account');
    if (!identity) await insertIdentity(ctx.db, { userId: pending.linkUserId, issuer: claims.iss, subject: claims.sub }, now.toISOString());
    return { kind: 'linked' };
  }

  const role = mappedRole(claims[settings.groupsClaim], settings.roleMapping);
  const userId = identity ? await syncKnownAccount(ctx, settings, identity.user_id, role) : await provisionAccount(ctx, settings, claims, role);
  const identityId = identity?.id ?? (await findIdentity(ctx.db, claims.iss, claims.sub))?.id ?? null;
  if (await hasSecondFactor(ctx.db, userId)) {
    // The account's own second factor is asked unless the provider asserted one and is trusted to.
    const amr = Array.isArray(claims.amr) ? claims.amr : [];
    const asserted = settings.trustProviderMfa && amr.some((method) => typeof method === 'string' && SECOND_FACTOR_AMR.has(method));
    if (!asserted) return awaitSecondFactor(ctx, userId, identityId, now);
  }
  return completeSignIn(ctx, userId, identityId, client, now);
}

const noAccount = () => new AppError(403, 'ERR_SSO_NO_ACCOUNT', 'No account is linked to this identity and none is provisioned');

/** The linked account, its role set from the groups when a mapping is set (none mapped: a customer). The last administrator keeps the role. */
async function syncKnownAccount(ctx: AppContext, settings: SsoSettings, userId: number, role: Role | null): Promise<number> {
  const user = await findOpenUserById(ctx.db, userId);
  if (!user) throw noAccount();
  if (Object.keys(settings.roleMapping).length === 0) return user.id;
  const wanted = role ?? 'USER';
  if (wanted === user.access_role) return user.id;
  await ctx.db.transaction().execute(async (trx) => {
    if (user.access_role === 'ADMIN' && (await countUsersWithRole(trx, 'ADMIN')) <= 1) {
      ctx.log.warn({ userId }, 'single sign-on: the last administrator keeps the role its groups no longer give');
      return;
    }
    await updateUser(trx, user.id, { accessRole: wanted });
    await recordChange(trx, { userId: null }, { model: 'User', recordId: user.id, operation: 'update', oldValues: { accessRole: user.access_role }, newValues: { accessRole: wanted, via: 'sso' } });
  });
  return user.id;
}

function nameOf(claims: Claims): { firstName: string; lastName: string } {
  const given = typeof claims.given_name === 'string' ? claims.given_name.trim() : '';
  const family = typeof claims.family_name === 'string' ? claims.family_name.trim() : '';
  if (given || family) return { firstName: given || '-', lastName: family || '-' };
  const parts = (typeof claims.name === 'string' ? claims.name.trim() : '').split(/\s+/).filter(Boolean);
  return { firstName: parts.slice(0, -1).join(' ') || parts[0] || '-', lastName: parts.length > 1 ? parts[parts.length - 1] : '-' };
}

/** A new account for a first sign-in: only with provisioning on, a group that gives a role and an e-mail address the provider verified. */
async function provisionAccount(ctx: AppContext, settings: SsoSettings, claims: Claims, role: Role | null): Promise<number> {
  if (!settings.provisioning || !role) throw noAccount();
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email) throw noAccount();
  if (claims.email_verified !== true) throw new AppError(403, 'ERR_SSO_EMAIL_NOT_VERIFIED', 'The provider has not verified the e-mail address');
  // An account with this address exists: only its owner, signed in, links the identity to it.
  if (await findUserByEmail(ctx.db, email)) throw new AppError(409, 'ERR_SSO_LINK_REQUIRED', 'An account with this e-mail exists: sign in to it and link the identity in the account settings');
  const { firstName, lastName } = nameOf(claims);
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, { email, passwordHash: null, confirmed: true, firstName, lastName, ...NO_CONTACT_DETAILS, accessRole: role, optInEmail: false });
      await insertIdentity(trx, { userId: user.id, issuer: claims.iss, subject: claims.sub }, new Date().toISOString());
      await recordChange(trx, { userId: null }, { model: 'User', recordId: user.id, operation: 'insert', oldValues: null, newValues: { email, accessRole: role, via: 'sso' } });
      return user.id;
    });
  } catch (error) {
    // The same person's first sign-in twice at once: the other one made the account.
    const again = await findIdentity(ctx.db, claims.iss, claims.sub);
    if (again) return again.user_id;
    throw error;
  }
}

/** `GET /account/sso`: the account's identities at the provider. */
export async function accountIdentities(ctx: AppContext, userId: number): Promise<SsoIdentity[]> {
  const rows = await identitiesOfUser(ctx.db, userId);
  return rows.map((row) => ({ id: row.id, issuer: row.issuer, subject: row.subject, createdAt: row.created_at, lastLoginAt: row.last_login_at }));
}

/** `DELETE /account/sso/{id}`: unlinks one of the account's own identities. */
export async function unlinkIdentity(ctx: AppContext, userId: number, id: number): Promise<void> {
  if (!(await deleteIdentityOfUser(ctx.db, userId, id))) throw notFound('Identity');
}
