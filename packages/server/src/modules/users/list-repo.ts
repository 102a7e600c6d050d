import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { LIST_COUNT_LIMIT, LIST_SEARCH_COUNT_LIMIT, type ListResult, type SortField, type UserListQuery } from '@lm/contract';
import type { Dialect, Executor } from '../../platform/db/database.ts';
import { boundedCount, filterColumn, inPageOrder, pageOfIds, planOf, type Plan, type SortKey } from '../../platform/db/list-page.ts';
import type { DB } from '../../platform/db/schema.ts';
import type { UserRow } from './repo.ts';
import { sortKey } from './sort-keys.ts';

type UserSortField = UserListQuery['sort'][number]['field'];

/**
 * Each sort of the user list and its indexed key: e-mail regardless of case, names and company by
 * their sort keys, regardless of case and accents (sort-keys.ts). Each key's index (migrations 0014,
 * 0019) carries the role and the search text, so that a page is read from the index alone.
 */
const SORT_KEYS: Record<UserSortField, SortKey> = {
  id: { sql: 'users.id', numeric: true },
  email: { sql: 'lower(users.email)' },
  firstName: { sql: 'users.first_name_key' },
  lastName: { sql: 'users.last_name_key' },
  company: { sql: 'users.company_key', nullable: true },
  accessRole: { sql: 'users.access_role' },
  createdAt: { sql: 'users.created_at' },
};

/**
 * What the search looks in: the e-mail and the sort keys of names and company (a generated column,
 * migrations 0014 and 0020; in every sort index of the list), lowercase and, but for the e-mail,
 * without accents. The search is folded the same way (searchedText).
 */
const SEARCH_TEXT = 'users.search_text';
/** The keys whose start a short search matches: e-mail addresses are stored lowercase, the sort keys are lowercase and without accents. */
const STARTS = ['users.email', 'users.first_name_key', 'users.last_name_key', 'users.company_key'];

/**
 * What was typed, as the searched text and the sort keys have it: lowercase and without accents
 * ("Müller" and "muller" find Müller, "straße" and "strasse" find Straße; "ö" finds Özdemir and
 * Oberst). An e-mail address with letters beyond ASCII is then found by its names only.
 */
function searchedText(filter: string | undefined): string {
  const typed = filter?.trim() ?? '';
  return sortKey(typed) || typed.toLowerCase();
}
/** Shorter than this, the search matches the start of the e-mail, a name or the company (see searchCondition). */
const CONTAINS_FROM = 3;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);
/** The first string after every string that starts with `prefix` (its last character stepped up). */
const afterPrefix = (prefix: string) => prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);

/**
 * The user search as a person types it (case-insensitive):
 * - three characters or more: anywhere in the e-mail, first name, last name or company ("mith"
 *   finds Smith, "example.com" every address there, "ada love" the whole name). `indexed` takes the
 *   trigram index (PostgreSQL pg_trgm, looking up the search's rarest piece, trigramPieces; SQLite
 *   FTS5): what a selective search needs; a search that matches many accounts (searchPlan) reads
 *   rows in the sort's order instead and checks each.
 * - one or two characters: the start of the e-mail, a name or the company. Contained anywhere, one
 *   or two letters match nearly every account and no index can serve them; what a person means
 *   after typing "j" or "jo" is a name that starts so. Each start is a range of a sort key's index.
 */
function searchCondition(eb: ExpressionBuilder<DB, 'users'>, text: string, plan: Plan, search: SearchPlan): Expression<SqlBool> {
  const { indexed } = search;
  if (text.length < CONTAINS_FROM) {
    // Many matches ("b" in a list of Browns): PostgreSQL would build the bitmaps of four ranges first.
    if (!indexed && plan.dialect === 'postgres') return eb.or(STARTS.map((key) => sql<SqlBool>`(${sql.raw(key)} || '') like ${`${escapeLike(text)}%`} escape '\\'`));
    return eb.or(
      STARTS.map((key) => {
        const column = filterColumn(key, plan);
        return sql<SqlBool>`(${column} >= ${text} and ${column} < ${afterPrefix(text)} and ${column} like ${`${escapeLike(text)}%`} escape '\\')`;
      }),
    );
  }
  // Checked row by row in the sort's index: a plain substring test of the lowercase text, which the
  // trigram index cannot serve (so PostgreSQL reads the sort's index) and which costs less than
  // LIKE '%…%' (90,000 accounts: 18 instead of 29 ms on PostgreSQL).
  if (!indexed || plan.strategy === 'sort-first') {
    return sql<SqlBool>`${sql.raw(plan.dialect === 'postgres' ? 'strpos' : 'instr')}(${sql.raw(SEARCH_TEXT)}, ${text}) > 0`;
  }
  if (plan.dialect === 'postgres') {
    const found = sql<SqlBool>`${sql.raw(SEARCH_TEXT)} like ${`%${escapeLike(search.indexPiece)}%`} escape '\\'`;
    return search.indexPiece === text ? found : sql<SqlBool>`(${found} and strpos(${sql.raw(SEARCH_TEXT)}, ${text}) > 0)`;
  }
  return sql<SqlBool>`users.id in (select rowid from users_search where users_search match ${ftsPhrase(text)})`;
}

/**
 * Whether a search matches too many accounts to find them by its index and sort them: beyond, a page
 * reads accounts in the sort's order and checks each; below, the index finds them and they are
 * sorted. SQLite finds them in its FTS table and looks each up (about 1 µs); beyond MANY_MATCHES
 * (a quarter of the bench's 200,000 accounts) reading in the sort's order wins. PostgreSQL checks a
 * contains search in the sort key's index alone (migration 0014: 0.2 µs an account) but looks up
 * each match the trigram index finds (2 µs: 28,000 matches of "company" took 50–60 ms), so there a
 * tenth of the accounts is many: reading them all in the sort's order then costs no more than the
 * lookups. A start of one or two characters is checked against four columns of the row, not the
 * index: MANY_MATCHES on both. SQLite counts its FTS table's matches (13 ms for 50,000);
 * PostgreSQL's planner estimates them (good for trigram searches, and for the starts of names since the
 * expression statistics of migration 0015) and the accounts.
 */
const MANY_MATCHES = 5 * LIST_COUNT_LIMIT;

/** How the search is looked for: by its index (few matches) or not, and on PostgreSQL the part of it that the trigram index looks up. */
interface SearchPlan {
  indexed: boolean;
  indexPiece: string;
}

async function searchPlan(db: Executor, dialect: Dialect, text: string): Promise<SearchPlan> {
  const plan = (many: boolean, indexPiece = text): SearchPlan => ({ indexed: !many, indexPiece });
  if (text.length < CONTAINS_FROM) {
    // The start of e-mail, names or company: SQLite reads ranges of its sort indexes well either way.
    if (dialect === 'sqlite') return plan(false);
    const pattern = `${escapeLike(text)}%`;
    const starts = sql.join(STARTS.map((key) => sql`${sql.raw(key)} like ${pattern}::text escape '\\'`), sql` or `);
    return plan((await estimatedRows(db, sql`explain (format json) select 1 from users where ${starts}`)) > MANY_MATCHES);
  }
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ count: number }>`select count(*) as count from (select rowid from users_search where users_search match ${ftsPhrase(text)} limit ${MANY_MATCHES + 1})`.execute(db);
    return plan(Number(rows[0]?.count ?? 0) > MANY_MATCHES);
  }
  const containing = (part: string) => estimatedRows(db, sql`explain (format json) select 1 from users where ${sql.raw(SEARCH_TEXT)} like ${`%${escapeLike(part)}%`}::text escape '\\'`);
  const [matches, accounts] = await Promise.all([
    containing(text),
    sql<{ accounts: number }>`select reltuples as accounts from pg_class where oid = to_regclass('users')`.execute(db),
  ]);
  if (matches > Math.max(LIST_COUNT_LIMIT, Number(accounts.rows[0]?.accounts ?? 0) / 10)) return plan(true);
  // Only a search the index serves needs its pieces' estimates (while typing, the first characters
  // of an address match most accounts: no statements for them).
  const pieces = trigramPieces(text);
  const perPiece = await Promise.all(pieces.map(containing));
  // The rarest piece by the planner's estimate, the longer of two alike: the estimates of rare pieces
  // are alike (a row or two), but a short piece has fewer and commoner trigrams. "-c" of a TAN code
  // typed into the staff search ("e3me-k9yr-c") reads the trigram of every word that starts with a
  // c: every account (2,000,000, a second), where "-k9yr-" reads a few. (The pieces come longest first.)
  let rarest = pieces.length ? 0 : -1;
  for (let index = 1; index < pieces.length; index++) if (perPiece[index] < perPiece[rarest]) rarest = index;
  // The whole search only when every piece is commoner than it: it reads more trigrams, each at least as rare.
  return plan(false, rarest >= 0 && perPiece[rarest] <= matches ? pieces[rarest] : text);
}

/** Words as pg_trgm splits text: letters and digits; everything else separates them. */
const WORD = /[\p{L}\p{N}]+/gu;
/** The letters and the digits of a word that has both ("bench", "160032" of "bench160032"). */
const RUN = /\p{L}+|\p{N}+/gu;
/** Estimates asked for per search: one statement each, at once. */
const MAX_PIECES = 4;

/**
 * The parts of a search that the trigram index can look up on their own: each word with the
 * character on either side of it ("bench-user-3" gives "bench-", "-user-" and "-3"). A trigram
 * search reads the index entries of every trigram of its text and keeps the rows in all of them:
 * "bench-user-188396@bench.invalid" read 30 trigrams, most of them in every address (16 ms), where
 * "-188396@" reads 8 rare ones (0.1 ms). So the index looks up the rarest piece, and the whole
 * text is checked on the rows it finds. A piece gives trigrams only from three characters, or from
 * the start of a word after a separator (pg_trgm pads words with spaces): shorter ones are no use.
 * A word of letters and digits also gives its runs of three or more of each, with the character on either side: the
 * name "bench160032" read the trigrams of "bench" in every account (2,000,000: 55 ms), "h160032"
 * reads rare ones (2 ms).
 */
export function trigramPieces(text: string): string[] {
  const pieces = new Set<string>();
  const add = (start: number, end: number) => pieces.add(text.slice(Math.max(0, start - 1), Math.min(text.length, end + 1)));
  for (const match of text.matchAll(WORD)) {
    const start = match.index;
    const end = start + match[0].length;
    if (match[0].length >= 3 || start > 0) add(start, end);
    const runs = [...match[0].matchAll(RUN)];
    if (runs.length < 2) continue;
    for (const run of runs) {
      const runStart = start + run.index;
      if (run[0].length >= 3) add(runStart, runStart + run[0].length);
    }
  }
  pieces.delete(text);
  // A single piece is the whole search, or nearly: nothing to choose.
  if (pieces.size < 2) return [];
  return [...pieces].sort((a, b) => b.length - a.length).slice(0, MAX_PIECES);
}

/** PostgreSQL's estimate of the rows of an `explain (format json)` statement. */
async function estimatedRows(db: Executor, explain: ReturnType<typeof sql>): Promise<number> {
  const { rows } = await explain.execute(db);
  return (rows[0] as { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] } | undefined)?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0;
}

/** A quoted FTS5 phrase: with the trigram tokenizer it matches the text as a substring. */
const ftsPhrase = (text: string) => `"${text.replace(/"/g, '""')}"`;

/**
 * The accounts of `scope` that the FTS table matches, read in the FTS table's order: a count stops at
 * its limit. searchCondition's `id in (select rowid …)` collects every match first (11,111 for
 * "bench-user-3": 8 ms to count 1,001 of them, against 1 ms here), which a page sorting them all needs anyway.
 */
function ftsMatching(scope: (executor: Executor) => SelectQueryBuilder<DB, 'users', object>, text: string) {
  return (executor: Executor) =>
    scope(executor).innerJoin(sql<{ id: number }>`(select rowid as id from users_search where users_search match ${ftsPhrase(text)})`.as('fts'), (join) => join.onRef('fts.id', '=', 'users.id'));
}

/** One page of open accounts, filtered by role and the search (searchCondition), with a bounded count. */
export async function listUsers(db: Executor, dialect: Dialect, query: UserListQuery): Promise<ListResult<UserRow>> {
  const text = searchedText(query.filter);
  const defaultSort = { field: 'id', descending: true } as const;
  // A trigram index answers a search that matches many accounts only after reading them all (SQLite's
  // FTS table; PostgreSQL's GIN index, which gives a bitmap of every match): a search of more than
  // many matches (searchPlan) reads the accounts instead, in the sort's order (a few rows each to find a page).
  // SQLite counts the index's own matches first; PostgreSQL's planner estimates them.
  const search: SearchPlan = text ? await searchPlan(db, dialect, text) : { indexed: true, indexPiece: '' };
  const { indexed } = search;
  const scope = (plan: Plan) => (executor: Executor) => {
    const open = executor.selectFrom('users').where('users.closed_at', 'is', null);
    const { organizationId } = query;
    const members =
      organizationId === undefined
        ? open
        : open.where((eb) => eb(filterColumn('users.id', plan), 'in', eb.selectFrom('organization_members').select('organization_members.user_id').where('organization_members.organization_id', '=', organizationId)));
    return query.accessRole ? members.where(filterColumn('users.access_role', plan), '=', query.accessRole) : members;
  };
  const matching = (plan: Plan) => (executor: Executor) => (text ? scope(plan)(executor).where((eb) => searchCondition(eb, text, plan, search)) : scope(plan)(executor));
  const countPlan: Plan = { strategy: 'filter-first', dialect, sortKey: '' };
  const countedInFts = dialect === 'sqlite' && indexed && text.length >= CONTAINS_FROM;
  const count = await boundedCount(db, countedInFts ? ftsMatching(scope(countPlan), text) : matching(countPlan), dialect, text ? LIST_SEARCH_COUNT_LIMIT : LIST_COUNT_LIMIT);
  const counted = planOf(dialect, count, SORT_KEYS, query.sort as SortField<UserSortField>[], defaultSort);
  // A search that its index serves finds its matches there and sorts them, also beyond the count
  // limit (up to many matches, searchPlan) when the scan below cannot fill the page: matches that cluster far
  // down the sort's order (every account with a company, sorted by company, after 170,000 without
  // one) would make a page read most of the accounts.
  const plan: Plan = text && indexed ? { ...counted, strategy: 'filter-first' } : counted;
  // Many matches (beyond the count limit) are first looked for in the sort's order (list-page.ts, SCAN_BUDGET).
  const scanned: Plan = { ...counted, strategy: 'sort-first' };
  const scan = text && !count.totalCountExact ? { scope: scope(scanned), hit: searchCondition(expressionBuilder<DB, 'users'>(), text, scanned, { ...search, indexed: false }) } : undefined;
  const page = await pageOfIds({ db, dialect, strategy: plan.strategy, matches: matching(plan), scan, id: 'users.id', keys: SORT_KEYS, defaultSort }, query);
  const rows = page.ids.length ? inPageOrder(page.ids, await db.selectFrom('users').selectAll().where('id', 'in', page.ids).execute()) : [];
  return { items: rows, ...count, nextCursor: page.nextCursor };
}

/** The organizations of a page of accounts (the staff list's column), by account, by name. */
export async function organizationsOfUsers(db: Executor, userIds: readonly number[]): Promise<Map<number, { id: number; name: string }[]>> {
  const byUser = new Map<number, { id: number; name: string }[]>(userIds.map((id) => [id, []]));
  if (!userIds.length) return byUser;
  const rows = await db
    .selectFrom('organization_members')
    .innerJoin('organizations', 'organizations.id', 'organization_members.organization_id')
    .select(['organization_members.user_id', 'organizations.id', 'organizations.name'])
    .where('organization_members.user_id', 'in', [...userIds])
    .orderBy('organizations.name')
    .orderBy('organizations.id')
    .execute();
  for (const row of rows) byUser.get(row.user_id)?.push({ id: row.id, name: row.name });
  return byUser;
}
