import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  abilityFor,
  asSubject,
  formatUserName,
  SESSION_COOKIE,
  SESSION_LIFETIME_DAYS,
  withoutUnviewableFields,
  type Action,
  type AppAbility,
  type Role,
  type SubjectName,
  type SubjectWithStaffFields,
} from '@lm/contract';
import type { Actor } from '../context.ts';
import { AppError, forbidden, unauthenticated } from './errors.ts';

export interface RequestUser {
  id: number;
  email: string;
  formattedName: string;
  accessRole: Role;
  locale: string | null;
  /** The account signs in with a second factor. */
  twoFactorEnabled: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    user: RequestUser | null;
    ability: AppAbility;
    sessionTokenHash: string | null;
    /** The API token the request was authenticated with (Authorization: Bearer), if any. */
    apiToken: { id: number; name: string } | null;
    /** When the request's session or API token last wrote (read-routing.ts); null: not signed in or never. */
    wroteAt: string | null;
  }
  interface FastifyContextConfig {
    /** Refused with an API token: the route changes how its account signs in (see sessionRequired). */
    sessionOnly?: boolean;
  }
}

/**
 * What changes how an account signs in (its e-mail, password, second factor, sessions, API tokens),
 * changes any account's role, closes the own or a staff account, or changes the security settings
 * needs the person signed in, not an API token: a leaked token could otherwise take an account over,
 * make itself a staff account or lock the other administrators out, for good: past its own
 * revocation and past the second factor.
 */
export const sessionRequired = () =>
  new AppError(
    403,
    'ERR_FORBIDDEN',
    "Sign in to do this: an API token cannot change how an account signs in, change a role, close its own or a staff account, or change the security settings",
  );

/**
 * The token of an `Authorization: Bearer` header on an /api call, else null (the desktop protocol
 * runs none of the hooks that ask: app.ts). Such a request is authenticated by the token alone, never by a cookie.
 */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header || !/^bearer\s/i.test(header)) return null;
  if (!request.url.startsWith('/api/')) return null;
  return header.slice(6).trim();
}

/** The columns of an account that a signed-in request carries (the session and the API-token lookups read them). */
export interface SignedInRow {
  id: number;
  email: string;
  first_name: string;
  last_name: string;
  company: string | null;
  access_role: Role;
  locale: string | null;
  two_factor_user: number | null;
  /** When the session or token last wrote (read-routing.ts). */
  wrote_at?: string | null;
}

/** The request acts as this account from now on: `request.user` and its abilities. */
export function actAs(request: FastifyRequest, row: SignedInRow): void {
  request.user = {
    id: row.id,
    email: row.email,
    formattedName: formatUserName({ firstName: row.first_name, lastName: row.last_name, company: row.company, email: row.email }),
    accessRole: row.access_role,
    locale: row.locale,
    twoFactorEnabled: row.two_factor_user !== null,
  };
  request.ability = abilityFor({ id: row.id, accessRole: row.access_role });
  request.wroteAt = row.wrote_at ?? null;
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

/** The device cookie (see LOGIN_LIMITS): sent only to the login call, kept a year. */
export const DEVICE_COOKIE = 'lm_device';

export function setDeviceCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(DEVICE_COOKIE, token, { path: '/api/session', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', maxAge: 365 * 86400 });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

export function requireUser(request: FastifyRequest): RequestUser {
  if (!request.user) throw unauthenticated();
  return request.user;
}

export function actorOf(request: FastifyRequest): Actor {
  return { userId: request.user?.id ?? null, tokenName: request.apiToken?.name ?? null };
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

/** The answer without the fields the caller may not view (administrators' notes): one record. */
export function visibleFields<T extends Record<string, unknown>>(request: FastifyRequest, type: SubjectWithStaffFields, record: T): T {
  return withoutUnviewableFields(request.ability, type, record);
}

/** Whether the caller may read this field of the subject (a text filter then searches it). */
export function maySee(request: FastifyRequest, type: SubjectWithStaffFields, field: string): boolean {
  return request.ability.can('view', type, field);
}

/** A list answer whose items come without the fields the caller may not view. */
export function visibleItems<T extends Record<string, unknown>, L extends { items: T[] }>(request: FastifyRequest, type: SubjectWithStaffFields, list: L): L {
  return { ...list, items: list.items.map((item) => withoutUnviewableFields(request.ability, type, item)) };
}

/** Like authorize for one record, but a record the caller may not see is "not found": it reveals nothing. */
export function authorizeRecord(request: FastifyRequest, action: Action, subject: CheckedSubject, record: Record<string, unknown>, what: string): void {
  if (request.ability.can(action, asSubject(subject, record))) return;
  if (!request.user) throw unauthenticated();
  throw new AppError(404, 'ERR_NOT_FOUND', `${what} not found`);
}
