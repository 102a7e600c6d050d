import { formatUserName, type ListResult } from '@lm/contract';
import { withoutSecretFields, type ChangeLogEntry, type ChangeLogQuery } from '@lm/contract/change-log';
import type { ChangeLogModel } from '@lm/contract';
import type { AppContext } from '../../platform/context.ts';
import { listChangeLogRows, type ChangeLogRow } from './repo.ts';

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

/** The change log of one model, newest first unless sorted otherwise. */
export async function listChanges(ctx: AppContext, model: ChangeLogModel, query: ChangeLogQuery): Promise<ListResult<ChangeLogEntry>> {
  const { rows, totalCount } = await listChangeLogRows(ctx.db, { ...query, model });
  return { items: rows.map(toEntry), totalCount };
}
