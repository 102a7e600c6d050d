import type { FastifyInstance, FastifyRequest } from 'fastify';
import { abilityFor, SESSION_COOKIE } from '@lm/contract';
import { hashToken } from '../../platform/auth/secrets.ts';
import type { AppContext } from '../../platform/context.ts';
import { actAs, bearerToken } from '../../platform/http/auth.ts';
import { findSessionUser, touchSession } from '../session-store/repo.ts';

/** A session's last use is written at most this often: the list of sessions needs no write per request. */
const TOUCH_INTERVAL_MS = 60_000;

const anonymousAbility = abilityFor(null);

/** Resolves the session cookie of every request into `request.user` and `request.ability`. */
export function registerSessionAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('user', null);
  app.decorateRequest('ability', null as never);
  app.decorateRequest('sessionTokenHash', null);
  app.decorateRequest('apiToken', null);
  app.decorateRequest('wroteAt', null);
  // Synchronous where there is no session to look up (most requests): an async hook costs every
  // request a promise and a turn of the microtask queue.
  app.addHook('onRequest', (request, _reply, done) => {
    request.ability = anonymousAbility;
    if (bearerToken(request) !== null) return done();
    const token = request.cookies[SESSION_COOKIE];
    if (!token || !request.url.startsWith('/api/')) return done();
    resolveSession(ctx, request, token).then(() => done(), done);
  });
}

/** The session the cookie names, if it is still valid, as the request's user. */
async function resolveSession(ctx: AppContext, request: FastifyRequest, token: string): Promise<void> {
  const tokenHash = hashToken(token);
  const row = await findSessionUser(ctx.db, tokenHash, new Date());
  if (!row) return;
  request.sessionTokenHash = tokenHash;
  actAs(request, row);
  const now = new Date();
  if (Date.parse(row.last_used_at) < now.getTime() - TOUCH_INTERVAL_MS) {
    await touchSession(ctx.db, tokenHash, now).catch((error: unknown) => request.log.warn({ err: error }, 'the session use was not recorded'));
  }
}
