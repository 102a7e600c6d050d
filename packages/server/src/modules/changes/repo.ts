import type { ChangeLogModel, SortField } from '@lm/contract';
import type { ChangeOperation, ChangeReferenceModel } from '@lm/contract/change-log';
import type { Executor } from '../../platform/db/database.ts';
import { anyColumnContains } from '../../platform/db/search.ts';

export interface ChangeLogRowQuery {
  model: ChangeLogModel;
  recordId?: number;
  operation?: ChangeOperation;
  /** Case-insensitive text searched in the old and new values. */
  filter?: string;
  sort: SortField<'timestamp' | 'recordId' | 'operation'>[];
  offset: number;
  limit: number;
}

export interface ChangeLogRow {
  id: number;
  model: string;
  record_id: number;
  operation: ChangeOperation;
  timestamp: string;
  user_id: number | null;
  token_name: string | null;
  old_values: string | null;
  new_values: string | null;
  first_name: string | null;
  last_name: string | null;
  company: string | null;
}

const SORT_COLUMNS = { timestamp: 'change_log.timestamp', recordId: 'change_log.record_id', operation: 'change_log.operation' } as const;

function filtered(db: Executor, query: ChangeLogRowQuery) {
  let select = db.selectFrom('change_log').where('change_log.model', '=', query.model);
  if (query.recordId !== undefined) select = select.where('change_log.record_id', '=', query.recordId);
  if (query.operation) select = select.where('change_log.operation', '=', query.operation);
  const text = query.filter;
  if (text) select = select.where((eb) => anyColumnContains(db, eb, ['change_log.old_values', 'change_log.new_values'], text));
  return select;
}

/** One page of a model's change log with the acting users' names, and the count of all matching rows. */
export async function listChangeLogRows(db: Executor, query: ChangeLogRowQuery): Promise<{ rows: ChangeLogRow[]; totalCount: number }> {
  let page = filtered(db, query)
    .leftJoin('users', 'users.id', 'change_log.user_id')
    .select([
      'change_log.id',
      'change_log.model',
      'change_log.record_id',
      'change_log.operation',
      'change_log.timestamp',
      'change_log.user_id',
      'change_log.token_name',
      'change_log.old_values',
      'change_log.new_values',
      'users.first_name',
      'users.last_name',
      'users.company',
    ]);
  const sort = query.sort.length ? query.sort : [{ field: 'timestamp' as const, descending: true }];
  for (const { field, descending } of sort) page = page.orderBy(SORT_COLUMNS[field], descending ? 'desc' : 'asc');
  // Rows of one transaction share a timestamp: the id keeps them in the order they were written.
  page = page.orderBy('change_log.id', sort[0].descending ? 'desc' : 'asc');
  const [rows, count] = await Promise.all([
    page.offset(query.offset).limit(query.limit).execute(),
    filtered(db, query).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as ChangeLogRow[], totalCount: Number(count.count) };
}

/** The current names of referenced records, by model: at most a page's worth of ids each. */
export async function referencedRecords(db: Executor, ids: Record<ChangeReferenceModel, number[]>) {
  const none = Promise.resolve([]);
  const [products, policies, users, tans] = await Promise.all([
    ids.Product.length ? db.selectFrom('products').select(['id', 'name', 'version']).where('id', 'in', ids.Product).execute() : none,
    ids.LicensePolicy.length ? db.selectFrom('license_policies').select(['id', 'name']).where('id', 'in', ids.LicensePolicy).execute() : none,
    ids.User.length ? db.selectFrom('users').select(['id', 'first_name', 'last_name', 'company', 'email']).where('id', 'in', ids.User).execute() : none,
    ids.Tan.length ? db.selectFrom('tans').select(['id', 'code']).where('id', 'in', ids.Tan).execute() : none,
  ]);
  return { products, policies, users, tans };
}
