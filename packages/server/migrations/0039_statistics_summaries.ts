import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../src/platform/db/dialect.ts';

/**
 * Two statistics that were counted from raw rows on every read, kept as summaries by the database
 * itself (issue 55: at 10,000,000 licenses they took up to 1.2 s):
 *
 * - `statistics_user_products`: which accounts hold a license of which product now, with how many
 *   licenses, the day the account was created and the day of its latest login. Its rows add to the
 *   day counters `new_user_products` and `active_user_products`, so "new users" and "active users"
 *   of one product are a few counter rows, as without a product. Current state (docs/statistics.md):
 *   an account leaves a product's numbers when its last license of the product goes.
 * - `license_overage_months`: the over-limit grants of each TAN per month. A range of whole months
 *   reads these rows instead of every grant; the partial months at its ends still read the grants.
 *
 * Triggers keep both exact on every write, plain SQL included. PostgreSQL sums the rows of a whole
 * statement at once (a bulk load of licenses writes one summary row per account and product, not one
 * per license) and takes the summary rows' locks in key order, so that two statements never wait
 * for each other in a circle. Both tables are filled from the rows already there.
 */

/** Rows of (owner_id, product_id, n): licenses an owner gained or lost of a product. */
type Pairs = string;
/** Rows of (tan_id, day): over-limit grants. */
type Grants = string;

const holdProducts = (pairs: Pairs) => `INSERT INTO statistics_user_products (user_id, product_id, licenses, created_day, login_day)
    SELECT p.owner_id, p.product_id, p.n, substr(u.created_at, 1, 10), substr(u.last_login_at, 1, 10)
    FROM ${pairs} p JOIN users u ON u.id = p.owner_id WHERE p.owner_id IS NOT NULL ORDER BY p.owner_id, p.product_id
    ON CONFLICT (user_id, product_id) DO UPDATE SET licenses = statistics_user_products.licenses + excluded.licenses;`;

const releaseProducts = (pairs: Pairs) => `UPDATE statistics_user_products SET licenses = licenses - p.n
    FROM ${pairs} p WHERE statistics_user_products.user_id = p.owner_id AND statistics_user_products.product_id = p.product_id;
  DELETE FROM statistics_user_products WHERE licenses <= 0 AND (user_id, product_id) IN (SELECT owner_id, product_id FROM ${pairs} p);`;

/** The day counters of holders (rows of created_day, login_day, product_id) coming (+) or going (-). */
const holderDeltas = (holders: string, sign: '' | '-') => `INSERT INTO statistics_deltas (metric, day, product_id, distributor_id, delta)
    SELECT 'new_user_products', created_day, product_id, 0, ${sign}count(*) FROM ${holders} h WHERE TRUE GROUP BY created_day, product_id
    UNION ALL
    SELECT 'active_user_products', login_day, product_id, 0, ${sign}count(*) FROM ${holders} h WHERE login_day IS NOT NULL GROUP BY login_day, product_id;`;

const addGrants = (grants: Grants) => `INSERT INTO license_overage_months (tan_id, month, grants)
    SELECT tan_id, substr(day, 1, 7), count(*) FROM ${grants} g WHERE TRUE GROUP BY tan_id, substr(day, 1, 7) ORDER BY 1, 2
    ON CONFLICT (tan_id, month) DO UPDATE SET grants = license_overage_months.grants + excluded.grants;`;

const removeGrants = (grants: Grants) => `UPDATE license_overage_months SET grants = grants - g.n
    FROM (SELECT tan_id, substr(day, 1, 7) AS month, count(*) AS n FROM ${grants} r GROUP BY tan_id, substr(day, 1, 7)) g
    WHERE license_overage_months.tan_id = g.tan_id AND license_overage_months.month = g.month;
  DELETE FROM license_overage_months WHERE grants <= 0 AND (tan_id, month) IN (SELECT tan_id, substr(day, 1, 7) FROM ${grants} r);`;

/**
 * PostgreSQL: locks the existing summary rows a statement is about to change in key order, so that
 * two statements changing several of the same rows cannot each wait for the other.
 */
const lockHolders = (pairs: Pairs) => `PERFORM 1 FROM statistics_user_products s JOIN ${pairs} p ON s.user_id = p.owner_id AND s.product_id = p.product_id
    ORDER BY s.user_id, s.product_id FOR UPDATE OF s;`;
const lockGrants = (grants: Grants) => `PERFORM 1 FROM license_overage_months s JOIN ${grants} g ON s.tan_id = g.tan_id AND s.month = substr(g.day, 1, 7)
    ORDER BY s.tan_id, s.month FOR UPDATE OF s;`;

/** One trigger row as a one-row table, for the statements above. */
const rowPairs = (row: 'NEW' | 'OLD') => `(SELECT ${row}.owner_id AS owner_id, ${row}.product_id AS product_id, 1 AS n)`;
const rowHolder = (row: 'NEW' | 'OLD') => `(SELECT ${row}.created_day AS created_day, ${row}.login_day AS login_day, ${row}.product_id AS product_id)`;
const rowGrant = (row: 'NEW' | 'OLD') => `(SELECT ${row}.tan_id AS tan_id, ${row}.day AS day)`;
const movedPairs = `(SELECT OLD.owner_id AS owner_id, OLD.product_id AS product_id UNION ALL SELECT NEW.owner_id, NEW.product_id)`;
const movedGrants = `(SELECT OLD.tan_id AS tan_id, OLD.day AS day UNION ALL SELECT NEW.tan_id, NEW.day)`;
/** A statement's licenses (a transition table) as pairs. */
const statementPairs = (table: string) => `(SELECT owner_id, product_id, count(*) AS n FROM ${table} WHERE owner_id IS NOT NULL GROUP BY owner_id, product_id)`;

const ownerMoved = (old: string, neu: string) => `${old}.owner_id IS DISTINCT FROM ${neu}.owner_id OR ${old}.product_id IS DISTINCT FROM ${neu}.product_id`;
const holderMoved = (old: string, neu: string) => `${old}.created_day IS DISTINCT FROM ${neu}.created_day OR ${old}.login_day IS DISTINCT FROM ${neu}.login_day`;
const grantMoved = (old: string, neu: string) => `${old}.tan_id IS DISTINCT FROM ${neu}.tan_id OR substr(${old}.day, 1, 7) IS DISTINCT FROM substr(${neu}.day, 1, 7)`;
const accountDaysChanged = (old: string, neu: string) =>
  `substr(${old}.created_at, 1, 10) IS DISTINCT FROM substr(${neu}.created_at, 1, 10) OR substr(${old}.last_login_at, 1, 10) IS DISTINCT FROM substr(${neu}.last_login_at, 1, 10)`;
const followAccount = `UPDATE statistics_user_products SET created_day = substr(NEW.created_at, 1, 10), login_day = substr(NEW.last_login_at, 1, 10) WHERE user_id = NEW.id;`;

interface Trigger {
  name: string;
  table: string;
  event: 'INSERT' | 'DELETE' | 'UPDATE';
  /** SQLite: the columns an UPDATE watches. */
  columns?: string;
  /** The condition for an UPDATE (written with OLD and NEW). */
  when?: string;
  /** For each row; SQLite always, PostgreSQL where no statement form is given. */
  row: string;
  /** PostgreSQL: the body for the whole statement, reading the transition table `changed`. */
  statement?: string;
  /** PostgreSQL: taken before the body, to lock several summary rows in order. */
  lock?: string;
}

const TRIGGERS: Trigger[] = [
  // Licenses make their owners holders of the product.
  { name: 'summary_licenses_insert', table: 'licenses', event: 'INSERT', row: holdProducts(rowPairs('NEW')), statement: holdProducts(statementPairs('changed')) },
  {
    name: 'summary_licenses_delete',
    table: 'licenses',
    event: 'DELETE',
    row: releaseProducts(rowPairs('OLD')),
    statement: releaseProducts(statementPairs('changed')),
    lock: lockHolders(statementPairs('changed')),
  },
  {
    name: 'summary_licenses_owner',
    table: 'licenses',
    event: 'UPDATE',
    columns: 'owner_id, product_id',
    when: ownerMoved('OLD', 'NEW'),
    row: `${releaseProducts(rowPairs('OLD'))}\n  ${holdProducts(rowPairs('NEW'))}`,
    lock: lockHolders(movedPairs),
  },
  // An account's days follow it into every product it holds.
  { name: 'summary_users_days', table: 'users', event: 'UPDATE', columns: 'created_at, last_login_at', when: accountDaysChanged('OLD', 'NEW'), row: followAccount },
  // Holders come and go in the day counters.
  { name: 'summary_holders_insert', table: 'statistics_user_products', event: 'INSERT', row: holderDeltas(rowHolder('NEW'), ''), statement: holderDeltas('changed', '') },
  { name: 'summary_holders_delete', table: 'statistics_user_products', event: 'DELETE', row: holderDeltas(rowHolder('OLD'), '-'), statement: holderDeltas('changed', '-') },
  {
    name: 'summary_holders_update',
    table: 'statistics_user_products',
    event: 'UPDATE',
    columns: 'created_day, login_day, product_id',
    when: holderMoved('OLD', 'NEW'),
    row: `${holderDeltas(rowHolder('OLD'), '-')}\n  ${holderDeltas(rowHolder('NEW'), '')}`,
  },
  // Over-limit grants by TAN and month.
  { name: 'summary_overages_insert', table: 'license_overages', event: 'INSERT', row: addGrants(rowGrant('NEW')), statement: addGrants('changed') },
  {
    name: 'summary_overages_delete',
    table: 'license_overages',
    event: 'DELETE',
    row: removeGrants(rowGrant('OLD')),
    statement: removeGrants('changed'),
    lock: lockGrants('changed'),
  },
  {
    name: 'summary_overages_update',
    table: 'license_overages',
    event: 'UPDATE',
    columns: 'tan_id, day',
    when: grantMoved('OLD', 'NEW'),
    row: `${removeGrants(rowGrant('OLD'))}\n  ${addGrants(rowGrant('NEW'))}`,
    lock: lockGrants(movedGrants),
  },
];

function postgresStatements(trigger: Trigger): string[] {
  const body = `${trigger.lock ?? ''}\n  ${trigger.statement ?? trigger.row}`;
  const scope = trigger.statement
    ? `AFTER ${trigger.event} ON ${trigger.table} REFERENCING ${trigger.event === 'DELETE' ? 'OLD' : 'NEW'} TABLE AS changed FOR EACH STATEMENT`
    : `AFTER ${trigger.event} ON ${trigger.table} FOR EACH ROW${trigger.when ? ` WHEN (${trigger.when})` : ''}`;
  return [
    `CREATE FUNCTION ${trigger.name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${body}
  RETURN NULL;
END
$$`,
    `CREATE TRIGGER ${trigger.name} ${scope} EXECUTE FUNCTION ${trigger.name}()`,
  ];
}

const sqliteStatement = (trigger: Trigger) =>
  `CREATE TRIGGER ${trigger.name} AFTER ${trigger.event}${trigger.columns ? ` OF ${trigger.columns}` : ''} ON ${trigger.table}${trigger.when ? ` WHEN ${trigger.when}` : ''} BEGIN
  ${trigger.row}
END`;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('statistics_user_products')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.notNull())
    .addColumn('licenses', 'integer', (c) => c.notNull())
    .addColumn('created_day', 'text', (c) => c.notNull())
    .addColumn('login_day', 'text')
    .addPrimaryKeyConstraint('statistics_user_products_pk', ['user_id', 'product_id'])
    .execute();
  await db.schema
    .createTable('license_overage_months')
    .addColumn('tan_id', 'integer', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('grants', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('license_overage_months_pk', ['tan_id', 'month'])
    .execute();
  // A range of months reads its rows from this index alone.
  await sql
    .raw(postgres ? 'CREATE INDEX license_overage_months_month ON license_overage_months (month, tan_id) INCLUDE (grants)' : 'CREATE INDEX license_overage_months_month ON license_overage_months (month, tan_id, grants)')
    .execute(db);

  // The triggers first: creating them locks the tables they watch until this migration commits, so
  // the rows copied below are all there are.
  for (const trigger of TRIGGERS) {
    for (const statement of postgres ? postgresStatements(trigger) : [sqliteStatement(trigger)]) await sql.raw(statement).execute(db);
  }
  // The holders' own insert trigger counts them into the day counters.
  await sql`insert into statistics_user_products (user_id, product_id, licenses, created_day, login_day)
    select l.owner_id, l.product_id, count(*), substr(min(u.created_at), 1, 10), substr(min(u.last_login_at), 1, 10)
    from licenses l join users u on u.id = l.owner_id group by l.owner_id, l.product_id`.execute(db);
  await sql`insert into license_overage_months (tan_id, month, grants)
    select tan_id, substr(day, 1, 7), count(*) from license_overages group by tan_id, substr(day, 1, 7)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  for (const trigger of TRIGGERS) {
    await sql.raw(postgres ? `DROP TRIGGER ${trigger.name} ON ${trigger.table}` : `DROP TRIGGER ${trigger.name}`).execute(db);
    if (postgres) await sql.raw(`DROP FUNCTION ${trigger.name}()`).execute(db);
  }
  await sql`delete from statistics_deltas where metric in ('new_user_products', 'active_user_products')`.execute(db);
  await sql`delete from statistics_daily where metric in ('new_user_products', 'active_user_products')`.execute(db);
  await db.schema.dropTable('license_overage_months').execute();
  await db.schema.dropTable('statistics_user_products').execute();
}

/** Tables filled by the copy above, vacuumed on PostgreSQL so that their index-only scans read no rows. */
export const vacuumAfter = ['statistics_user_products', 'license_overage_months'];
