import { recordChange } from '../../platform/changelog.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Executor } from '../../platform/db/database.ts';
import { forbidden } from '../../platform/http/errors.ts';
import { removeMailsTo } from '../../platform/mail/index.ts';
import { endSeatsOfLicense } from '../license-files/seats.ts';
import { deleteLoginDevicesOfUser, deleteSessionsOfUser } from '../session-store/repo.ts';
import { deleteApiTokensOfUser } from '../api-tokens/repo.ts';
import { leaveAllOrganizations } from '../organizations/account-closing.ts';
import { anonymizeUser, revokeLicensesOfOwner, rewriteChangeLogValues, userChangeLogEntries } from './closing-repo.ts';
import { countUsersWithRole } from './repo.ts';
import { sessionRequired } from '../../platform/http/auth.ts';
import type { Precondition } from '../../platform/http/versioned.ts';
import { byToken, byTokenOnOwnAccount, lastAdministrator, lockedVisibleUser, userSubject, visibleUser, type Caller } from './service.ts';
import { deleteTokensOfUser, pendingNewEmails } from './token-repo.ts';

/** The fields of a User change-log entry that name or locate a person. */
const PERSONAL_FIELDS = new Set([
  'email',
  'username',
  'firstName',
  'lastName',
  'formattedName',
  'company',
  'address',
  'address2',
  'zip',
  'city',
  'country',
  'phone',
  'fax',
  'notes',
]);

/** A change-log value without personal fields (the entry keeps what happened, not to whom). */
export function redactPersonalFields(json: string | null): string | null {
  if (!json) return json;
  let values: unknown;
  try {
    values = JSON.parse(json);
  } catch {
    return null;
  }
  if (!values || typeof values !== 'object' || Array.isArray(values)) return null;
  return JSON.stringify(Object.fromEntries(Object.entries(values).filter(([key]) => !PERSONAL_FIELDS.has(key))));
}

/**
 * Closes an account for good (its owner from My account, or an administrator): the personal data is
 * removed from the account and from its change log, its sessions, tokens, API tokens and queued mails are
 * deleted, so that it can never log in again, and its licenses are revoked but kept (README,
 * "Closing an account").
 */
export async function closeAccount(ctx: AppContext, caller: Caller, id: number, precondition?: Precondition): Promise<void> {
  const row = await visibleUser(ctx, caller.ability, id);
  if (!caller.ability.can('delete', userSubject(row))) throw forbidden();
  // A token closes customers' accounts (a shop's clean-up), never its own or a staff account.
  if (byTokenOnOwnAccount(caller, id) || (byToken(caller) && row.access_role !== 'USER')) throw sessionRequired();
  if (row.access_role === 'ADMIN' && (await countUsersWithRole(ctx.db, 'ADMIN')) <= 1) throw lastAdministrator();
  const now = new Date();
  await ctx.db.transaction().execute(async (trx) => {
    if (precondition) await lockedVisibleUser(trx, caller.ability, id, precondition);
    await leaveAllOrganizations(trx, caller.actor, id, now);
    for (const license of await revokeLicensesOfOwner(trx, id, now)) {
      await endSeatsOfLicense(trx, license, now);
      await recordChange(trx, caller.actor, { model: 'License', recordId: license.id, operation: 'update', oldValues: { revoked: false }, newValues: { revoked: true } });
    }
    await anonymizeUser(trx, id, now);
    await deleteSessionsOfUser(trx, id);
    await deleteLoginDevicesOfUser(trx, id);
    // Queued mails name the person too: to the account's address, and to an address it was changing to.
    for (const address of [row.email, ...(await pendingNewEmails(trx, id))]) await removeMailsTo(trx, address);
    await deleteTokensOfUser(trx, id);
    await deleteApiTokensOfUser(trx, id);
    await redactChangeLog(trx, id);
    await recordChange(trx, caller.actor, { model: 'User', recordId: id, operation: 'delete', oldValues: { accessRole: row.access_role }, newValues: null });
  });
}

async function redactChangeLog(trx: Executor, userId: number): Promise<void> {
  for (const entry of await userChangeLogEntries(trx, userId)) {
    const oldValues = redactPersonalFields(entry.old_values);
    const newValues = redactPersonalFields(entry.new_values);
    if (oldValues !== entry.old_values || newValues !== entry.new_values) await rewriteChangeLogValues(trx, entry.id, oldValues, newValues);
  }
}
