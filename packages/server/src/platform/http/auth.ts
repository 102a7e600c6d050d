import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  abilityFor,
  asSubject,
  formatUserName,
  SESSION_COOKIE,
  SESSION_LIFETIME_DAYS,
  type Action,
  type AppAbility,
  type Role,
  type SubjectName,
} from '@lm/contract';
import { findSessionUser } from '../../modules/session/repo.ts';
import { hashToken } from '../auth/secrets.ts';
import type { Actor, AppContext } from '../context.ts';
import { AppError, forbidden, unauthenticated } from './errors.ts';

export interface RequestUser {
  id: number;
  email: string;
  formattedName: string;
  accessRole: Role;
  locale: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    user: RequestUser | null;
    ability: AppAbility;
    sessionTokenHash: string | null;
  }
}

const anonymousAbility = abilityFor(null);

/** Resolves the session cookie of every request into `request.user` and `request.ability`. */
export function registerSessionAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('user', null);
  app.decorateRequest('ability', null as never);
  app.decorateRequest('sessionTokenHash', null);
  app.addHook('onRequest', async (request) => {
    request.ability = anonymousAbility;
    const token = request.cookies[SESSION_COOKIE];
    if (!token || !request.url.startsWith('/api/') || request.url.startsWith('/api/client/')) return;
    const tokenHash = hashToken(token);
    const row = await findSessionUser(ctx.db, tokenHash, new Date());
    if (!row) return;
    request.sessionTokenHash = tokenHash;
    request.user = {
      id: row.id,
      email: row.email,
      formattedName: formatUserName({ firstName: row.first_name, lastName: row.last_name, company: row.company, email: row.email }),
      accessRole: row.access_role,
      locale: row.locale,
    };
    request.ability = abilityFor({ id: row.id, accessRole: row.access_role });
  });
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    maxAge: SESSION_LIFETIME_DAYS * 86400,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

export function requireUser(request: FastifyRequest): RequestUser {
  if (!request.user) throw unauthenticated();
  return request.user;
}

export function actorOf(request: FastifyRequest): Actor {
  return { userId: request.user?.id ?? null };
}

type CheckedSubject = Exclude<SubjectName, 'all'>;

/**
 * Refuses unless the ability allows the action: on the subject type, or on one record when given
 * (conditions such as ownership then apply), optionally on one field.
 */
export function authorize(request: FastifyRequest, action: Action, subject: CheckedSubject, record?: Record<string, unknown> | null, field?: string): void {
  const target = record ? asSubject(subject, record) : subject;
  if (request.ability.can(action, target, field)) return;
  if (!request.user) throw unauthenticated();
  throw forbidden();
}

/** Like authorize for one record, but a record the caller may not see is "not found": it reveals nothing. */
export function authorizeRecord(request: FastifyRequest, action: Action, subject: CheckedSubject, record: Record<string, unknown>, what: string): void {
  if (request.ability.can(action, asSubject(subject, record))) return;
  if (!request.user) throw unauthenticated();
  throw new AppError(404, 'ERR_NOT_FOUND', `${what} not found`);
}
