/**
 * Pages of the large lists (TANs, licenses, users: a million rows) that stay fast wherever a person
 * clicks (DESIGN.md section 9):
 *
 * - The count stops at LIST_COUNT_LIMIT + 1 matches: exact up to there (cheap: at most that many
 *   index entries), "more than LIST_COUNT_LIMIT" beyond, instead of counting a million rows on
 *   every page.
 * - Every sort is by one indexed key and the id (the tiebreaker that keeps pages from overlapping);
 *   each list has an index per sort key, so a page reads about as many index entries as it shows.
 * - Pages far down a list follow a cursor (keyset pagination): the next page starts right after the
 *   last row of this one, found by the index, however deep it is. `offset` still works and is what
 *   the numbered pages within the counted matches use (at most LIST_COUNT_LIMIT rows to skip).
 * - Empty values (no company, no machine, no end date) come last in both directions, as in a
 *   spreadsheet: sorted by company, a person wants the companies first, not the 171,000 accounts
 *   of the bench without one; sorted by valid-until, the licenses that end soonest. No index holds
 *   that order in both directions (SQLite puts NULLs first in an index, and so were PostgreSQL's
 *   built), so a page read in a nullable key's index reads the values, then the NULLs by id, as two
 *   segments; a page of few matches sorts them with NULLS LAST.
 * - The count decides the plan (Strategy). Up to the count limit, the matches are few: found by the
 *   filters' indexes and sorted (at most LIST_COUNT_LIMIT rows). Beyond it they are many (one row in
 *   a hundred or more): read in the sort key's index and checked, about 50 / share rows a page.
 *   The planners are told, since they misjudge it: SQLite took `revoked = 0` for a selective filter
 *   and sorted 980,000 rows (its filter indexes are switched off with the unary `+`, which changes
 *   no value); PostgreSQL guesses a contains search (LIKE '%…%') to match few rows and scanned and
 *   sorted 200,000 accounts for a search matching every fifth (its page query then runs with sorts
 *   switched off, `enable_sort`, for that statement's transaction only).
 * - Between the two, a search that an index finds more than LIST_COUNT_LIMIT matches of (a company
 *   name typed into 200,000 accounts: 28,000) is first read in the sort's order for at most
 *   SCAN_BUDGET rows (PageOptions.scan): spread through the list, a page's matches are among the first
 *   few hundred (1 ms), where finding all 28,000 by the index and sorting them took 60 ms. Only when
 *   the matches cluster beyond the budget (at the far end of the sort) does the page take the filter's
 *   own plan.
 */
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { LIST_COUNT_LIMIT, type SortField } from '@lm/contract';
import { validationError } from '../http/errors.ts';
import type { Dialect, Executor } from './database.ts';

export interface SortKey {
  /** The SQL of the value sorted by, as an index of the list has it (`tans.activated_count`, `lower(users.last_name)`). */
  sql: string;
  /**
   * Rows may have no value. Such keys are text: the rows with a value are `key >= ''`, a range both
   * databases read in the key's index (SQLite reads `IS NOT NULL` of an expression by scanning it).
   */
  nullable?: boolean;
  /** No two rows share a value (a TAN's code, an e-mail address): no rows of the cursor's own value follow it. */
  unique?: boolean;
  /** The values are numbers (an id, a count); otherwise text. A cursor must carry the key's kind of value. */
  numeric?: boolean;
}

/** How a page is found: see the header. */
export type Strategy = 'filter-first' | 'sort-first';

export const strategyOf = (count: CountResult): Strategy => count.strategy ?? (count.totalCountExact ? 'filter-first' : 'sort-first');

/**
 * A filter's column as the strategy wants it: sort-first on SQLite, a column that no index can serve
 * (`+column`), so that the sort key's index is read. Scope columns that lead the sort keys' indexes
 * (the account of a license, the distributor of a TAN) are never switched off.
 */
export function filterColumn(column: string, plan: Plan): RawBuilder<unknown> {
  return sql.raw(plan.strategy === 'sort-first' && plan.dialect === 'sqlite' && column !== plan.sortKey ? `+${column}` : column);
}

/** What the conditions of a page need to know: the strategy, the database, and the sort key (whose own range stays indexed). */
export interface Plan {
  strategy: Strategy;
  dialect: Dialect;
  sortKey: string;
}

/** The plan of a page: the count's strategy, and the key of the requested (or default) sort's first field. */
export function planOf<F extends string>(dialect: Dialect, count: CountResult, keys: Record<F, SortKey>, sort: SortField<F>[], defaultSort: SortField<F>): Plan {
  const first = sort[0] ?? defaultSort;
  return { strategy: strategyOf(count), dialect, sortKey: keys[first.field]?.sql ?? '' };
}

export interface CountResult {
  totalCount: number;
  /** False when there are more than totalCount matches. */
  totalCountExact: boolean;
  /** The plan when the count knows better than its exactness (boundedCount with a table, on PostgreSQL). */
  strategy?: Strategy;
}

/** Rows of a page that a sort-first plan must find: it reads about PAGE_ROWS × rows ÷ matches of the table. */
const PAGE_ROWS = 50;

/**
 * How many matches make a sort-first page cheaper than finding the matches and sorting them, in a
 * table of `rows` rows: sort-first reads about PAGE_ROWS × rows ÷ matches rows a page, filter-first
 * the matches; the two meet at √(PAGE_ROWS × rows). Below the count limit either way: at 1,000,000
 * rows that is 7,000, and the count limit decides as before. At 10,000,000 it is 22,000: a TAN code's
 * first two characters (10,400 of 10,000,000 TANs) sorted by date read 48,000 rows sort-first (200 ms)
 * where finding the 10,400 by the code's index and sorting them takes a few milliseconds.
 */
async function sortFirstFrom(db: Executor, table: string, limit: number): Promise<number> {
  const { rows } = await sql<{ rows: number }>`select reltuples as rows from pg_class where oid = to_regclass(${table})`.execute(db);
  return Math.max(limit, Math.floor(Math.sqrt(PAGE_ROWS * Math.max(0, Number(rows[0]?.rows ?? 0)))));
}

type AnyQuery = SelectQueryBuilder<any, any, any>;

/** How many rows the query matches, counted up to `limit` + 1 (see the header); beyond, totalCount is the limit. */
export async function boundedCount(db: Executor, matches: (db: Executor) => AnyQuery, dialect: Dialect, limit = LIST_COUNT_LIMIT, table?: string): Promise<CountResult> {
  if (dialect === 'postgres') {
    // Read only: a replica may answer it (platform/db/replica-driver.ts).
    return db.transaction().setAccessMode('read only').execute(async (trx) => {
      await sql`set local max_parallel_workers_per_gather = 0`.execute(trx);
      // A sequential scan of a large table starts where another scan of it is (synchronized scans):
      // counting up to the limit then read 86,000 rows in one call and 4,000 in the next.
      await sql`set local synchronize_seqscans = off`.execute(trx);
      // With its table: counted on to where sort-first pays (sortFirstFrom), shown up to the limit.
      const fewUpTo = table ? await sortFirstFrom(trx, table, limit) : limit;
      return countOn(trx, matches(trx), limit, fewUpTo);
    });
  }
  return countOn(db, matches(db), limit);
}

async function countOn(db: Executor, matches: AnyQuery, limit: number, fewUpTo = limit): Promise<CountResult> {
  const row = await db
    .selectFrom(
      matches
        .select(sql<number>`1`.as('one'))
        .limit(fewUpTo + 1)
        .as('matches'),
    )
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  const count = Number(row.count);
  const shown = count > limit ? { totalCount: limit, totalCountExact: false } : { totalCount: count, totalCountExact: true };
  return fewUpTo > limit ? { ...shown, strategy: count > fewUpTo ? 'sort-first' : 'filter-first' } : shown;
}

export interface PageRequest<F extends string> {
  offset: number;
  limit: number;
  sort: SortField<F>[];
  after?: string;
}

export interface PageOptions<F extends string> {
  dialect: Dialect;
  /** The scan within a budget to try first (see the header): the list without the search, and the search as a condition. */
  scan?: { scope: (db: Executor) => AnyQuery; hit: Expression<SqlBool> };
  strategy: Strategy;
  /** The list's rows with its filters applied (no select, no order), on the given connection. */
  matches: (db: Executor) => AnyQuery;
  db: Executor;
  /** The id column, e.g. `tans.id`. */
  id: string;
  keys: Record<F, SortKey>;
  defaultSort: SortField<F>;
}

export interface PageOfIds {
  ids: number[];
  /** The `after` value of the next page; null on the last page and for sorts by several fields. */
  nextCursor: string | null;
}

type CursorValue = string | number | null;

const sortText = (field: SortField) => `${field.descending ? '-' : ''}${field.field}`;

function encodeCursor(sort: string, value: CursorValue, id: number): string {
  return Buffer.from(JSON.stringify([sort, value, id]), 'utf8').toString('base64url');
}

/** A cursor that is not one of this list and sort (made up, altered, or kept from another sort): in the request's language. */
const badCursor = () => validationError('after', 'pageCursor');

function decodeCursor(text: string, sort: string, key: SortKey): { value: CursorValue; id: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== sort) throw badCursor();
  const [, value, id] = parsed as [string, unknown, unknown];
  if (!fitsKey(value, key)) throw badCursor();
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw badCursor();
  return { value, id };
}

/**
 * Whether a cursor's value is of the key's kind. Another kind compared differently on each database
 * (SQLite orders numbers before text, PostgreSQL refused the comparison); no cursor a list made has one.
 */
function fitsKey(value: unknown, key: SortKey): value is CursorValue {
  if (value === null) return Boolean(key.nullable);
  return key.numeric ? typeof value === 'number' && Number.isFinite(value) : typeof value === 'string';
}

/**
 * `key asc|desc` as a page shows it: empty values last (see the header). On SQLite filter-first,
 * `+key`, so that the sort key's index is not walked in search of the few matches.
 */
function orderTerm(key: SortKey, descending: boolean, dialect: Dialect, strategy: Strategy = 'sort-first'): RawBuilder<unknown> {
  const expression = strategy === 'filter-first' && dialect === 'sqlite' ? `+${key.sql}` : key.sql;
  return sql.raw(`${expression} ${descending ? 'desc' : 'asc'}${key.nullable ? ' nulls last' : ''}`);
}

/**
 * `key asc|desc` in the order its index reads (NULLs first ascending, last descending), for a
 * segment without NULLs, where the two orders agree and the index serves the sort.
 */
function indexOrderTerm(key: SortKey, descending: boolean, dialect: Dialect): RawBuilder<unknown> {
  const nulls = dialect === 'postgres' && key.nullable ? (descending ? ' nulls last' : ' nulls first') : '';
  return sql.raw(`${key.sql} ${descending ? 'desc' : 'asc'}${nulls}`);
}

/**
 * The ids of one page, in order. One sort field: by its key and the id, from the cursor or the
 * offset, with the next page's cursor. Several fields (the API allows it, the web app does not use
 * it): by each and the id, from the offset, without a cursor.
 */
export async function pageOfIds<F extends string>(options: PageOptions<F>, page: PageRequest<F>): Promise<PageOfIds> {
  if (options.scan && page.sort.length <= 1) {
    const scanned = await pageOn(options.db, { ...options, strategy: 'sort-first', matches: options.scan.scope }, page, options.scan.hit);
    if (scanned) return scanned;
  }
  return (await pageOn(options.db, options, page))!;
}

/** Rows a scan reads in the sort's order before the page takes the filter's own plan (see the header). */
export const SCAN_BUDGET = 5_000;

/** Thrown inside a budgeted scan (pageOfIdsOn with `hit`) that read SCAN_BUDGET rows without filling the page. */
class OverBudget extends Error {}

/** The page, or null when `hit` is given and its scan ran out of budget before the page was full. */
async function pageOn<F extends string>(db: Executor, options: PageOptions<F>, page: PageRequest<F>, hit?: Expression<SqlBool>): Promise<PageOfIds | null> {
  try {
    return await pageInTransaction(db, options, page, hit);
  } catch (error) {
    if (error instanceof OverBudget) return null;
    throw error;
  }
}

function pageInTransaction<F extends string>(db: Executor, options: PageOptions<F>, page: PageRequest<F>, hit?: Expression<SqlBool>): Promise<PageOfIds> {
  if (options.dialect !== 'postgres') return pageOfIdsOn(db, options, page, hit);
  return db.transaction().setAccessMode('read only').execute(async (trx) => {
    // A page reads a few hundred rows: starting parallel workers costs more (30 ms measured) than it saves.
    await sql`set local max_parallel_workers_per_gather = 0`.execute(trx);
    if (options.strategy === 'sort-first') {
      // Switched-off sorts are costed at 10^10, which starts JIT compilation (110 ms measured) for
      // a scan's sort of a few thousand rows or a sort by several fields: nothing a page needs.
      await sql`set local enable_sort = off`.execute(trx);
      await sql`set local jit = off`.execute(trx);
    }
    return pageOfIdsOn(trx, options, page, hit);
  });
}

/** The page on one connection; with `hit`, the budgeted scan of the header, which throws OverBudget. */
async function pageOfIdsOn<F extends string>(db: Executor, options: PageOptions<F>, page: PageRequest<F>, hit?: Expression<SqlBool>): Promise<PageOfIds> {
  const { dialect, id, strategy } = options;
  const matches = () => options.matches(db);
  const fields = page.sort.length ? page.sort : [options.defaultSort];
  const idKey: SortKey = { sql: id, numeric: true };
  const keyOf = (field: F): SortKey => (options.keys[field] ?? idKey);
  const last = fields[fields.length - 1];

  if (fields.length > 1) {
    if (page.after) throw badCursor();
    let query = matches().select(sql.raw<number>(id).as('id'));
    for (const field of fields) query = query.orderBy(orderTerm(keyOf(field.field), field.descending, dialect, strategy));
    query = query.orderBy(orderTerm(idKey, last.descending, dialect, strategy));
    const rows = (await query.limit(page.limit).offset(page.offset).execute()) as { id: number }[];
    return { ids: rows.map((row) => Number(row.id)), nextCursor: null };
  }

  const field = fields[0];
  const key = keyOf(field.field);
  const descending = field.descending;
  const byId = key.sql === id;
  const sorted = (query: AnyQuery, onlyId = false): AnyQuery => {
    const columns = [sql.raw<number>(id).as('id'), sql.raw<CursorValue>(key.sql).as('sort_value')];
    const selected = query.select(hit ? [...columns, sql<SqlBool>`${hit}`.as('hit')] : columns);
    if (dialect === 'postgres' && strategy === 'filter-first') {
      // Few matches: found first, then sorted. PostgreSQL's planner guesses a share for a contains
      // search and walked the sort key's index when the matches clustered at its far end (240 ms);
      // planned apart (OFFSET 0 keeps the subquery from being merged into the sorted query), the
      // matches are taken by the filters' indexes, whatever it guesses, and stream into the page's
      // top-N sort. A materialized CTE did the same but first wrote them all out: 111,000 matches
      // spilled 5 MB to disk (93 ms, 71 without).
      let page = db.selectFrom(selected.offset(0).as('page_matches')).select(['page_matches.id', 'page_matches.sort_value']);
      if (!onlyId && !byId) page = page.orderBy(orderTerm({ sql: 'page_matches.sort_value', nullable: key.nullable }, descending, dialect));
      return page.orderBy(orderTerm({ sql: 'page_matches.id' }, descending, dialect)) as unknown as AnyQuery;
    }
    // Read in the key's index (a segment without NULLs, or the NULLs by id), or few matches sorted.
    const keyOrder = strategy === 'sort-first' ? indexOrderTerm(key, descending, dialect) : orderTerm(key, descending, dialect, strategy);
    const ordered = onlyId ? selected : selected.orderBy(keyOrder);
    return byId ? ordered : ordered.orderBy(orderTerm(idKey, descending, dialect, strategy));
  };
  const want = page.limit + 1;
  const rows: { id: number; sort_value: CursorValue }[] = [];
  /** Adds the segment's rows from `offset` on; returns how much of the offset the segment did not have, for the next one. */
  const run = async (query: AnyQuery, offset = 0): Promise<number> => {
    if (rows.length >= want) return 0;
    if (!hit) {
      const found = (await query.limit(want - rows.length).offset(offset).execute()) as typeof rows;
      rows.push(...found);
      if (found.length || !offset) return 0;
      // The offset went past the segment: how many rows it had (at most `offset`).
      const counted = await db.selectFrom(query.limit(offset).as('segment')).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
      return offset - Number(counted.count);
    }
    // The first SCAN_BUDGET rows of the segment in the sort's order, each checked against the search.
    const scanned = query.limit(SCAN_BUDGET).as('scanned');
    const found = (await db
      .selectFrom(scanned)
      .select(['scanned.id', 'scanned.sort_value'])
      .where(sql<SqlBool>`scanned.hit`)
      .orderBy(orderTerm({ sql: 'scanned.sort_value', nullable: key.nullable }, descending, dialect))
      .orderBy(orderTerm({ sql: 'scanned.id' }, descending, dialect))
      .limit(want - rows.length)
      .offset(offset)
      .execute()) as typeof rows;
    rows.push(...found);
    if (rows.length >= want) return 0;
    // Short of a page: the segment ended (fine), or the budget did (the filter's own plan must find
    // the page). The segment's hits are what an offset past them leaves for the next segment.
    const tally = await db
      .selectFrom(query.limit(SCAN_BUDGET).as('segment'))
      .select((eb) => [eb.fn.countAll<number>().as('read'), sql<number>`sum(case when segment.hit then 1 else 0 end)`.as('hits')])
      .executeTakeFirstOrThrow();
    if (Number(tally.read) >= SCAN_BUDGET) throw new OverBudget();
    return found.length ? 0 : offset - Number(tally.hits ?? 0);
  };

  const keyRef = sql.raw(key.sql);
  const idRef = sql.raw(id);
  const where = (condition: Expression<SqlBool>) => matches().where(condition);
  if (!page.after) {
    if (key.nullable && strategy === 'sort-first') {
      // In the key's index: the values, then the NULLs by id (see the header).
      const offsetLeft = await run(sorted(where(sql<SqlBool>`${keyRef} >= ''`)), page.offset);
      await run(sorted(where(sql<SqlBool>`${keyRef} is null`), true), offsetLeft);
    } else {
      await run(sorted(matches()), page.offset);
    }
  } else {
    const cursor = decodeCursor(page.after, sortText(field), byId ? idKey : key);
    const after = sql.raw(descending ? '<' : '>');
    // The rest of the list after the cursor, in segments that each read one range of the key's
    // index: SQLite seeks a row value `(key, id) > (v, i)` by the key alone and would read every
    // row of a key with few values (activations: 0 or 1) up to the cursor's id.
    if (byId) {
      await run(sorted(where(sql<SqlBool>`${idRef} ${after} ${cursor.id}`)));
    } else if (cursor.value === null) {
      // Within the NULLs, the last segment in both directions: by id.
      await run(sorted(where(sql<SqlBool>`${keyRef} is null and ${idRef} ${after} ${cursor.id}`), true));
    } else {
      // The cursor's own key value after its id, then the values beyond, then the NULLs.
      if (!key.unique) await run(sorted(where(sql<SqlBool>`${keyRef} = ${cursor.value} and ${idRef} ${after} ${cursor.id}`), true));
      await run(sorted(where(sql<SqlBool>`${keyRef} ${after} ${cursor.value}`)));
      if (key.nullable) await run(sorted(where(sql<SqlBool>`${keyRef} is null`), true));
    }
  }
  const shown = rows.slice(0, page.limit);
  const end = shown[shown.length - 1];
  const nextCursor = rows.length > page.limit && end ? encodeCursor(sortText(field), normalized(end.sort_value), Number(end.id)) : null;
  return { ids: shown.map((row) => Number(row.id)), nextCursor };
}

/** Numbers and booleans as the database gives them (PostgreSQL booleans, SQLite 0/1) in one form for the cursor. */
function normalized(value: CursorValue | boolean): CursorValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** Rows fetched for a page's ids, put in the page's order. */
export function inPageOrder<T extends { id: number }>(ids: readonly number[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
