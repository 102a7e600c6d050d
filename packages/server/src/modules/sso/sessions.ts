/**
 * The session a person gets once the identity provider vouched for them (DESIGN.md section 6j): at
 * once when the account signs in without a second factor or the provider asserted one (and is
 * trusted to); otherwise only after the account's own code, asked by the login page, within a few
 * minutes and five tries.
 */
import type { Role } from '@lm/contract';
import { hashToken, randomToken } from '../../platform/auth/secrets.ts';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { openSession, type LoginClient } from '../session/service.ts';
import { acceptSecondFactor } from '../two-factor/service.ts';
import { findOpenUserById, setLastLogin } from '../users/repo.ts';
import { countWrongCode, deleteSecondFactorStep, findSecondFactorStep, insertSecondFactorStep, touchIdentity } from './repo.ts';

/** How long the login page may take to ask for the code, and how many wrong codes it may send. */
const SECOND_FACTOR_MINUTES = 5;
const SECOND_FACTOR_TRIES = 5;

export type SignedIn = { kind: 'signed-in'; token: string; role: Role };

/** Opens the session of a vouched-for account (its identity's last sign-in noted). */
export async function completeSignIn(ctx: AppContext, userId: number, identityId: number | null, client: LoginClient, now = new Date()): Promise<SignedIn> {
  // Closed while the login page asked for the code: no session.
  const account = await findOpenUserById(ctx.db, userId);
  if (!account) throw new AppError(403, 'ERR_SSO_NO_ACCOUNT', 'No account is linked to this identity and none is provisioned');
  if (identityId !== null) await touchIdentity(ctx.db, identityId, now.toISOString());
  const token = await openSession(ctx, userId, client, now);
  await setLastLogin(ctx.db, userId);
  return { kind: 'signed-in', token, role: account.access_role };
}

/** Keeps the vouched-for account waiting for its second factor: the token for the browser's cookie. */
export async function awaitSecondFactor(ctx: AppContext, userId: number, identityId: number | null, now = new Date()): Promise<{ kind: 'second-factor'; token: string }> {
  const token = randomToken();
  const expiresAt = new Date(now.getTime() + SECOND_FACTOR_MINUTES * 60_000).toISOString();
  await insertSecondFactorStep(ctx.db, { tokenHash: hashToken(token), userId, identityId, expiresAt }, now.toISOString());
  return { kind: 'second-factor', token };
}

const stepGone = () => new AppError(401, 'ERR_SSO_SECOND_FACTOR', 'This sign-in waited too long for its code, or got too many wrong ones: sign in again');

/**
 * `POST /api/sso/second-factor`: the account's authenticator or recovery code for the identity the
 * provider vouched for. A wrong code is `ERR_TWO_FACTOR_INVALID`; the fifth, or a step expired or
 * used already, `ERR_SSO_SECOND_FACTOR` (sign in again).
 */
export async function finishSecondFactor(ctx: AppContext, token: string | undefined, code: string, client: LoginClient): Promise<SignedIn> {
  const now = new Date();
  const tokenHash = hashToken(token ?? '');
  const step = token ? await findSecondFactorStep(ctx.db, tokenHash, now.toISOString()) : undefined;
  if (!step) throw stepGone();
  if (!(await acceptSecondFactor(ctx, step.user_id, code, now))) {
    if ((await countWrongCode(ctx.db, tokenHash)) >= SECOND_FACTOR_TRIES) {
      await deleteSecondFactorStep(ctx.db, tokenHash);
      throw stepGone();
    }
    throw new AppError(401, 'ERR_TWO_FACTOR_INVALID', 'This code is not right, or was used already');
  }
  // A step signs in once, also when two right codes (an authenticator's and a recovery code) race.
  if (!(await deleteSecondFactorStep(ctx.db, tokenHash))) throw stepGone();
  return completeSignIn(ctx, step.user_id, step.identity_id, client, now);
}
