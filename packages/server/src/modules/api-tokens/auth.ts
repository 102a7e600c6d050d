import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_TOKEN_PREFIX } from '@lm/contract/api-token';
import { hashToken } from '../../platform/auth/secrets.ts';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { actAs, bearerToken, sessionRequired } from '../../platform/http/auth.ts';
import { FIFTEEN_MINUTES, rateLimited } from '../../platform/limits/limiter.ts';
import { limitedClient } from '../../platform/limits/client-address.ts';
import { findTokenUser, touchApiToken } from './repo.ts';

/**
 * Wrong tokens are counted per token (its hash) and per address, in the database for every instance
 * (thirty within 15 minutes each): a broken integration that repeats its one stale token is refused
 * after thirty tries, and takes one of its address's thirty. Only wrong tokens are refused: a right
 * token always passes, so that a broken integration behind a NAT shuts no neighbour out. (A token
 * carries 256 random bits: no guess can be right, so refusing right tokens would protect nothing.)
 */
export const TOKEN_LIMIT = { name: 'token-address', max: 30, windowMs: FIFTEEN_MINUTES };
/** The same wrong token, repeated: counted on its own. */
export const WRONG_TOKEN_LIMIT = { name: 'token-wrong', max: 30, windowMs: FIFTEEN_MINUTES };

/** last_used_at is written at most this often per token, not at every call. */
const LAST_USED_PRECISION_MS = 60_000;

export const invalidApiToken = () => new AppError(401, 'ERR_INVALID_TOKEN', 'The API token is unknown, revoked or expired');

/**
 * `Authorization: Bearer <token>` on any /api call (DESIGN.md section 6b): the request acts as the
 * token's owner with the owner's current rules. Cookies are not read for it (so no CSRF check is
 * needed: a browser never adds this header to a cross-site request on its own).
 */
export function registerTokenAuth(app: FastifyInstance, ctx: AppContext): void {
  // Synchronous without a token (most requests): an async hook costs a promise and a microtask turn.
  app.addHook('onRequest', (request, _reply, done) => {
    const token = bearerToken(request);
    if (token === null) return done();
    // Refused before the token is looked at: the answer tells nothing about it.
    if (request.routeOptions.config.sessionOnly) return done(sessionRequired());
    authenticate(ctx, request, token).then(() => done(), done);
  });
}

async function authenticate(ctx: AppContext, request: FastifyRequest, token: string): Promise<void> {
  const now = new Date();
  // Looked up by the SHA-256 of the whole token: the index compares hashes, so timing tells nothing
  // about how much of a guessed token was right.
  const tokenHash = hashToken(token);
  const row = token.startsWith(API_TOKEN_PREFIX) ? await findTokenUser(ctx.db, tokenHash, now.toISOString()) : undefined;
  if (!row) return countWrongToken(ctx, request, tokenHash, now);
  request.apiToken = { id: row.token_id, name: row.token_name };
  // A token stands for a sign-in done before: it passes the second-factor requirement only if the
  // owner has a second factor (an account that must set one up cannot use tokens meanwhile).
  actAs(request, row);
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_PRECISION_MS) await touchApiToken(ctx.db, row.token_id, now.toISOString());
}

/** A wrong token: 401, or 429 once this token, or this address with other wrong tokens, has used up its tries. */
async function countWrongToken(ctx: AppContext, request: FastifyRequest, tokenHash: string, now: Date): Promise<never> {
  const message = 'Too many wrong API tokens, please try again later';
  const repeated = await ctx.limits.attempt(WRONG_TOKEN_LIMIT, tokenHash.slice(0, 32), now);
  if (!repeated.allowed) throw rateLimited(message, repeated.retryAfter);
  // The address counts distinct wrong tokens: a repeat of one already counted takes no more of it.
  const first = (await ctx.limits.blockedFor({ ...WRONG_TOKEN_LIMIT, max: 2 }, tokenHash.slice(0, 32), now)) === null;
  if (first) {
    const fromAddress = await ctx.limits.attempt(TOKEN_LIMIT, limitedClient(request.ip), now);
    if (!fromAddress.allowed) throw rateLimited(message, fromAddress.retryAfter);
  } else {
    const blocked = await ctx.limits.blockedFor(TOKEN_LIMIT, limitedClient(request.ip), now);
    if (blocked !== null) throw rateLimited(message, blocked);
  }
  throw invalidApiToken();
}
