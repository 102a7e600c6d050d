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
 * Wrong tokens are limited per client address like failed logins (thirty within 15 minutes, counted
 * in the database for every instance); while an address is blocked, its right tokens are refused
 * too, or the answers would tell a guesser which guess was right.
 */
export const TOKEN_LIMIT = { name: 'token-address', max: 30, windowMs: FIFTEEN_MINUTES };

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
  const blocked = await ctx.limits.blockedFor(TOKEN_LIMIT, limitedClient(request.ip));
  if (blocked !== null) throw rateLimited('Too many wrong API tokens from this address, please try again later', blocked);
  const now = new Date();
  // Looked up by the SHA-256 of the whole token: the index compares hashes, so timing tells nothing
  // about how much of a guessed token was right.
  const row = token.startsWith(API_TOKEN_PREFIX) ? await findTokenUser(ctx.db, hashToken(token), now.toISOString()) : undefined;
  if (!row) {
    const attempt = await ctx.limits.attempt(TOKEN_LIMIT, limitedClient(request.ip), now);
    if (!attempt.allowed) throw rateLimited('Too many wrong API tokens from this address, please try again later', attempt.retryAfter);
    throw invalidApiToken();
  }
  request.apiToken = { id: row.token_id, name: row.token_name };
  // A token stands for a sign-in done before: it passes the second-factor requirement only if the
  // owner has a second factor (an account that must set one up cannot use tokens meanwhile).
  actAs(request, row);
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_PRECISION_MS) await touchApiToken(ctx.db, row.token_id, now.toISOString());
}
