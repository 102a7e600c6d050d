import type { FastifyInstance } from 'fastify';
import type { Role } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { twoFactorRequiredFor } from './service.ts';

/** What an account that must still set up its second factor may call: its session, the set-up, the theme. */
const OPEN_DURING_ENROLMENT = new Set([
  'GET /api/session',
  'DELETE /api/session',
  'GET /api/account/two-factor',
  'POST /api/account/two-factor',
  'POST /api/account/two-factor/confirm',
  'GET /api/settings',
  'POST /api/client-errors',
]);

/**
 * When the settings require a second factor for administrators and distributors (they can mint
 * licenses), such an account without one can do nothing but set it up: the server refuses every
 * other call with 403 ERR_TWO_FACTOR_ENROLLMENT_REQUIRED, whatever the web app shows.
 */
export function registerTwoFactorGate(api: FastifyInstance, ctx: AppContext): void {
  // Synchronous for anonymous calls and customers (the desktop protocol, most calls): an async hook
  // costs a promise and a microtask turn.
  api.addHook('preHandler', (request, _reply, done) => {
    const user = request.user;
    if (!user || user.twoFactorEnabled || user.accessRole === 'USER') return done();
    if (OPEN_DURING_ENROLMENT.has(`${request.method} ${request.routeOptions.url}`)) return done();
    twoFactorRequiredFor(ctx.db, user.accessRole).then(
      (required) => done(required ? new AppError(403, 'ERR_TWO_FACTOR_ENROLLMENT_REQUIRED', 'Set up two-factor sign-in first: it is required for your account') : undefined),
      done,
    );
  });
}

/** For the session's answer: whether the account must set up its second factor before anything else. */
export async function enrollmentRequired(ctx: AppContext, user: { accessRole: Role; twoFactorEnabled: boolean }): Promise<boolean> {
  return !user.twoFactorEnabled && (await twoFactorRequiredFor(ctx.db, user.accessRole));
}
