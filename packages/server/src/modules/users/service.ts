import {
  asSubject,
  USER_FIELD_NAMES,
  type AppAbility,
  type ListResult,
  type User,
  type UserCreate,
  type UserFieldName,
  type UserFields,
  type UserListQuery,
  type UserUpdate,
  withoutUnviewableFields,
} from '@lm/contract';
import { hashPassword, randomToken } from '../../platform/auth/secrets.ts';
import { recordChange } from '../../platform/changelog.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { lockRow } from '../../platform/db/dialect.ts';
import { isUniqueViolation } from '../../platform/db/search.ts';
import { checkPrecondition, type Precondition } from '../../platform/http/versioned.ts';
import { AppError, forbidden, notFound } from '../../platform/http/errors.ts';
import { sessionRequired } from '../../platform/http/auth.ts';
import { duplicateEmail } from './registration.ts';
import { countUsersWithRole, findOpenUserById, findUserByEmail, insertUser, toUser, updateUser, type UserRow } from './repo.ts';
import { listUsers, organizationsOfUsers } from './list-repo.ts';

/** Who calls: for the change log, and for the field rules that the route cannot check alone. */
export interface Caller {
  actor: Actor;
  ability: AppAbility;
}

export const byToken = (caller: Caller) => caller.actor.tokenName !== null;

/** Whether the caller acts on its own account through an API token (see sessionRequired). */
export const byTokenOnOwnAccount = (caller: Caller, id: number) => byToken(caller) && caller.actor.userId === id;

export const lastAdministrator = () => new AppError(422, 'ERR_LAST_ADMIN', 'The last administrator cannot be removed or demoted');

export async function userPage(ctx: AppContext, query: UserListQuery): Promise<ListResult<User>> {
  const page = await listUsers(ctx.db, ctx.dialect, query);
  const organizations = await organizationsOfUsers(
    ctx.db,
    page.items.map((row) => row.id),
  );
  return { ...page, items: page.items.map((row) => ({ ...toUser(row), organizations: organizations.get(row.id) ?? [] })) };
}

/** The record that the User rules' conditions look at (`{ id }`). */
export const userSubject = (row: { id: number }) => asSubject<Record<string, unknown>>('User', { id: row.id });

/** An open account the caller may see; any other is "not found", which reveals nothing. */
export async function visibleUser(ctx: AppContext, ability: AppAbility, id: number): Promise<UserRow> {
  const row = await findOpenUserById(ctx.db, id);
  if (!row || !ability.can('view', userSubject(row))) throw notFound('User');
  return row;
}

/** The user as this caller may see it: a customer's own account comes without the administrators' notes. */
export const shownTo = (ability: AppAbility, user: User): User => withoutUnviewableFields(ability, 'User', user);

export async function getUser(ctx: AppContext, ability: AppAbility, id: number): Promise<User> {
  return shownTo(ability, toUser(await visibleUser(ctx, ability, id)));
}

function refuseFields(fields: string[]): AppError {
  return new AppError(403, 'ERR_FORBIDDEN', `You are not allowed to change ${fields.join(', ')}`, {
    details: fields.map((path) => ({ path, message: 'may not be changed by you' })),
  });
}

/**
 * An account created by an administrator: confirmed, with a random password nobody is told (the
 * person sets their own through "Forgot password"), and no mail (spec section 4).
 */
export async function createUser(ctx: AppContext, caller: Caller, input: UserCreate & UserFields): Promise<User> {
  const denied = USER_FIELD_NAMES.filter((field) => input[field] !== undefined && !caller.ability.can('create', 'User', field));
  if (denied.length) throw refuseFields(denied);
  // A shop makes customers with its token; a staff account made so would outlive the token's revocation.
  if (byToken(caller) && (input.accessRole ?? 'USER') !== 'USER') throw sessionRequired();
  if (await findUserByEmail(ctx.db, input.email)) throw duplicateEmail();
  const passwordHash = await hashPassword(randomToken(24));
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const row = await insertUser(trx, { ...input, passwordHash, confirmed: true });
      const created = toUser(row);
      await recordChange(trx, caller.actor, { model: 'User', recordId: row.id, operation: 'insert', newValues: created });
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateEmail();
    throw error;
  }
}

/**
 * Changes the given fields. Each field that really changes needs the update right on that field of
 * this record (a customer may change name and address, not e-mail, notes or role); fields sent
 * unchanged are ignored, so that a form may send everything it shows.
 */
export async function updateUserFields(ctx: AppContext, caller: Caller, id: number, input: UserUpdate & Partial<UserFields>, precondition?: Precondition): Promise<User> {
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const row = await lockedVisibleUser(trx, caller.ability, id, precondition);
      const current = toUser(row);
      const subject = userSubject(row);
      if (!caller.ability.can('update', subject)) throw forbidden();
      const changed = (Object.keys(input) as UserFieldName[]).filter((field) => input[field] !== undefined && input[field] !== current[field]);
      if (changed.length === 0) return shownTo(caller.ability, current);
      const denied = changed.filter((field) => !caller.ability.can('update', subject, field));
      if (denied.length) throw refuseFields(denied);
      if (byToken(caller)) {
        // The e-mail address is where a password is reset: a token moves no staff account's, and not its own.
        if (changed.includes('email') && (current.accessRole !== 'USER' || byTokenOnOwnAccount(caller, id))) throw sessionRequired();
        // No role changes at all: raising one makes a staff account, lowering one takes an administrator's
        // rights away from its owner (a leaked administrator's token would lock the others out).
        if (changed.includes('accessRole')) throw sessionRequired();
      }
      const changes = Object.fromEntries(changed.map((field) => [field, input[field]])) as Partial<UserFields>;
      if (changes.accessRole && current.accessRole === 'ADMIN' && (await countUsersWithRole(trx, 'ADMIN')) <= 1) throw lastAdministrator();
      if (changes.email && (await findUserByEmail(trx, changes.email))) throw duplicateEmail();
      const updated = toUser(await updateUser(trx, id, changes));
      const oldValues = Object.fromEntries(changed.map((field) => [field, current[field]]));
      await recordChange(trx, caller.actor, { model: 'User', recordId: id, operation: 'update', oldValues, newValues: changes });
      return shownTo(caller.ability, updated);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateEmail();
    throw error;
  }
}

/**
 * An open account the caller may see, its row locked for a change, checked against the caller's
 * If-Match (the account as the caller reads it, platform/http/versioned.ts).
 */
export async function lockedVisibleUser(trx: Executor, ability: AppAbility, id: number, precondition?: Precondition): Promise<UserRow> {
  await lockRow(trx, 'users', id);
  const row = await findOpenUserById(trx, id);
  if (!row || !ability.can('view', userSubject(row))) throw notFound('User');
  checkPrecondition(precondition, shownTo(ability, toUser(row)));
  return row;
}

/** E-mail consent on or off (`POST`/`DELETE /users/{id}/consent/email`). */
export async function setEmailConsent(ctx: AppContext, caller: Caller, id: number, consent: boolean, precondition?: Precondition): Promise<User> {
  return ctx.db.transaction().execute(async (trx) => {
    const row = await lockedVisibleUser(trx, caller.ability, id, precondition);
    const current = toUser(row);
    if (!caller.ability.can('update', userSubject(row), 'optInEmail')) throw forbidden();
    if (current.optInEmail === consent) return shownTo(caller.ability, current);
    const updated = toUser(await updateUser(trx, id, { optInEmail: consent }));
    await recordChange(trx, caller.actor, { model: 'User', recordId: id, operation: 'update', oldValues: { optInEmail: !consent }, newValues: { optInEmail: consent } });
    return shownTo(caller.ability, updated);
  });
}
