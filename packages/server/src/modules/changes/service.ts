import { formatUserName } from '@lm/contract';
import { CHANGE_REFERENCE_FIELDS, withoutSecretFields, type ChangeLogEntry, type ChangeLogList, type ChangeLogQuery, type ChangeReferenceModel, type ChangeReferences } from '@lm/contract/change-log';
import { formatProductName } from '@lm/contract/product';
import { formatTanCode } from '@lm/contract/tan';
import type { ChangeLogModel } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import { listChangeLogRows, referencedRecords, type ChangeLogRow } from './repo.ts';

function parseValues(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    // Rows written before a field was known as secret are cleaned on the way out as well.
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? withoutSecretFields(parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function toEntry(row: ChangeLogRow): ChangeLogEntry {
  const userName =
    row.user_id !== null && row.first_name !== null && row.last_name !== null
      ? formatUserName({ firstName: row.first_name, lastName: row.last_name, company: row.company })
      : null;
  return {
    id: row.id,
    model: row.model as ChangeLogModel,
    recordId: row.record_id,
    operation: row.operation,
    timestamp: row.timestamp,
    userId: row.user_id,
    userName,
    tokenName: row.token_name,
    oldValues: parseValues(row.old_values),
    newValues: parseValues(row.new_values),
  };
}

/**
 * What the records that the entries' values point to (product, policy, distributor, owner, TAN) are
 * called now, so that a reader sees "Studio 2.0" where the log keeps productId 2.
 */
async function referencesOf(ctx: AppContext, entries: ChangeLogEntry[]): Promise<ChangeReferences> {
  const ids: Record<ChangeReferenceModel, Set<number>> = { Product: new Set(), LicensePolicy: new Set(), User: new Set(), Tan: new Set() };
  for (const entry of entries) {
    for (const values of [entry.oldValues, entry.newValues]) {
      for (const [field, model] of Object.entries(CHANGE_REFERENCE_FIELDS)) {
        const id = values?.[field];
        if (typeof id === 'number' && Number.isSafeInteger(id)) ids[model].add(id);
      }
    }
  }
  const found = await referencedRecords(ctx.db, { Product: [...ids.Product], LicensePolicy: [...ids.LicensePolicy], User: [...ids.User], Tan: [...ids.Tan] });
  const named = <T extends { id: number }>(rows: T[], name: (row: T) => string) => Object.fromEntries(rows.map((row) => [String(row.id), name(row)]));
  return {
    Product: named(found.products, formatProductName),
    LicensePolicy: named(found.policies, (policy) => policy.name),
    User: named(found.users, (user) => formatUserName({ firstName: user.first_name, lastName: user.last_name, company: user.company, email: user.email })),
    Tan: named(found.tans, (tan) => formatTanCode(tan.code)),
  };
}

/** The change log of one model, newest first unless sorted otherwise, with the names of the records it refers to. */
export async function listChanges(ctx: AppContext, model: ChangeLogModel, query: ChangeLogQuery): Promise<ChangeLogList> {
  const { rows, totalCount } = await listChangeLogRows(ctx.db, { ...query, model });
  const items = rows.map(toEntry);
  return { items, totalCount, references: await referencesOf(ctx, items) };
}
