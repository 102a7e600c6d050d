/**
 * The TANs that need someone (the staff home, the TAN list's `state` filter), as SQL conditions on
 * the tans table. Each repeats word for word the condition of its partial index (migration 0029),
 * without which neither database uses the index; the bounds of a range come as parameters beside.
 * `license_count + 0` keeps SQLite's planner off the sort index of license_count, whose range
 * (`> 1`: most TANs) it took for cheaper than the partial index (2.9 s at a million TANs).
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { addDays } from '@lm/contract/license';
import { DASHBOARD_ENDING_DAYS, type TanAttentionState } from '@lm/contract/dashboard';

const NOT_REVOKED = 'revoked = false';
export const SUSPENDED = `suspended = true and ${NOT_REVOKED}`;
export const HAS_VALID_UNTIL = `valid_until is not null and ${NOT_REVOKED}`;
export const NEAR_COUNT = `license_count + 0 > 1 and activated_count * 5 >= license_count * 4 and ${NOT_REVOKED}`;

/** The condition of one attention state on `today` (UTC day). */
export function attentionCondition(state: TanAttentionState, today: string): RawBuilder<SqlBool> {
  switch (state) {
    case 'suspended':
      return sql<SqlBool>`(${sql.raw(SUSPENDED)})`;
    case 'nearCount':
      return sql<SqlBool>`(${sql.raw(NEAR_COUNT)})`;
    case 'ending':
      return sql<SqlBool>`(${sql.raw(HAS_VALID_UNTIL)} and valid_until >= ${today} and valid_until <= ${addDays(today, DASHBOARD_ENDING_DAYS)})`;
  }
}
