import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * Statistics of the lowercase names and company on PostgreSQL (issue 14; modules/users/list-repo.ts).
 *
 * A search of one or two characters matches the start of the e-mail, a name or the company, and the
 * list asks the planner how many accounts that is: many are found by reading the accounts in the
 * sort's order, few by the ranges of the sort indexes. PostgreSQL knows the distribution of an
 * expression such as lower(last_name) only from an index on it without a WHERE, and since 0014 those
 * indexes hold the open accounts only. So it guessed 1,000 accounts for "c", where all 200,000 last
 * names start so, and the count read four index ranges into one bitmap of 230,000 entries (24 ms)
 * instead of the first 1,001 accounts (1 ms). Expression statistics (PostgreSQL 14) give ANALYZE
 * those distributions again. SQLite plans the short search without estimates: nothing to do there.
 */
const EXPRESSIONS: [name: string, expression: string][] = [
  ['users_lower_first_name', 'lower(first_name)'],
  ['users_lower_last_name', 'lower(last_name)'],
  ['users_lower_company', 'lower(company)'],
];

async function expressionStatistics(db: Kysely<any>): Promise<boolean> {
  if (!isPostgres(db)) return false;
  const { rows } = await sql<{ version: number }>`select current_setting('server_version_num')::int as version`.execute(db);
  return (rows[0]?.version ?? 0) >= 140000;
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!(await expressionStatistics(db))) return;
  for (const [name, expression] of EXPRESSIONS) await sql.raw(`create statistics if not exists ${name} on (${expression}) from users`).execute(db);
  await sql`analyze users`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(await expressionStatistics(db))) return;
  for (const [name] of EXPRESSIONS) await sql.raw(`drop statistics if exists ${name}`).execute(db);
}
