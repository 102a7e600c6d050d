/**
 * A seeded statistics data set (deterministic pseudo-random rows written straight into the tables),
 * and the expected numbers computed from the raw rows in plain JavaScript, independently of the SQL.
 */
import type { StatisticsCategory } from '@lm/contract';
import type { App } from '../src/app.ts';

/** A small deterministic generator (mulberry32), so that every run seeds the same data. */
function generator(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)];
  const timestamp = (fromYear = 2024, toYear = 2025) => {
    const start = Date.UTC(fromYear, 0, 1);
    const end = Date.UTC(toYear + 1, 0, 1);
    return new Date(start + Math.floor(next() * (end - start))).toISOString();
  };
  return { next, int, pick, timestamp };
}

export interface SeededIds {
  products: number[];
  distributors: number[];
}

/** Products, customers, TANs, TAN and temporary licenses and last-seen records over 2024 and 2025. */
export async function seedStatistics(app: App, distributors: number[], seed = 7): Promise<SeededIds> {
  const random = generator(seed);
  const db = app.ctx.db;
  const now = new Date().toISOString();
  const policy = await db.selectFrom('license_policies').select('id').where('name', '=', 'SINGLE_HOST_PERPETUAL').executeTakeFirstOrThrow();
  const products: number[] = [];
  for (const name of ['StatA', 'StatB', 'StatC']) {
    const row = await db
      .insertInto('products')
      .values({ name: `${name}-${seed}`, version: '1.0', active: true, default_license_policy_id: policy.id, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    products.push(row.id);
  }
  const customers: number[] = [];
  for (let index = 0; index < 40; index++) {
    const created = random.timestamp();
    const row = await db
      .insertInto('users')
      .values({
        email: `stat-${seed}-${index}@example.com`,
        password_hash: null,
        first_name: 'Stat',
        last_name: `Customer ${index}`,
        access_role: 'USER',
        opt_in_email: false,
        confirmed: true,
        created_at: created,
        updated_at: created,
        last_login_at: random.next() < 0.7 ? random.timestamp() : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    customers.push(row.id);
  }
  const tans: { id: number; productId: number; used: number }[] = [];
  for (let index = 0; index < 30; index++) {
    const productId = random.pick(products);
    const freeUpdatesUntil = random.next() < 0.8 ? random.timestamp(2024, 2026).slice(0, 10) : null;
    const row = await db
      .insertInto('tans')
      .values({
        code: `stat${seed}${String(index).padStart(6, '0')}`.slice(0, 12),
        product_id: productId,
        license_count: 10,
        activated_count: 0,
        revoked: false,
        distributor_id: random.pick([...distributors, null]),
        free_updates_until: freeUpdatesUntil,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    tans.push({ id: row.id, productId, used: 0 });
  }
  const machines = Array.from({ length: 25 }, (_, index) => `machine-${seed}-${index}`);
  const licenseIds: { id: number; machine: string | null }[] = [];
  const addLicense = async (kind: 'TAN' | 'TEMPORARY', productId: number, tanId: number | null, machine: string | null) => {
    const created = random.timestamp();
    const row = await db
      .insertInto('licenses')
      .values({
        kind,
        owner_id: random.pick(customers),
        product_id: productId,
        license_policy_id: policy.id,
        tan_id: tanId,
        machine_id: machine,
        valid_until: kind === 'TEMPORARY' ? created.slice(0, 10) : null,
        permanent: kind === 'TAN',
        revoked: false,
        created_at: created,
        updated_at: created,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    licenseIds.push({ id: row.id, machine });
  };
  for (let index = 0; index < 60; index++) {
    const productId = random.pick(products);
    await addLicense('TEMPORARY', productId, null, random.next() < 0.85 ? random.pick(machines) : null);
  }
  for (let index = 0; index < 90; index++) {
    const tan = random.pick(tans);
    tan.used++;
    await addLicense('TAN', tan.productId, tan.id, random.pick(machines));
  }
  for (const tan of tans) await db.updateTable('tans').set({ activated_count: tan.used }).where('id', '=', tan.id).execute();
  for (const license of licenseIds) {
    if (license.machine && random.next() < 0.6) {
      await db.insertInto('license_last_seen').values({ license_id: license.id, machine_id: license.machine, last_seen_at: random.timestamp() }).execute();
    }
  }
  // Downloads of a release of each product, in a few months (on a database migrated that far).
  const hasReleases = await db
    .selectFrom('release_downloads')
    .select('month')
    .limit(1)
    .execute()
    .then(
      () => true,
      () => false,
    );
  for (const [index, productId] of hasReleases ? products.entries() : []) {
    const now = new Date().toISOString();
    const release = await db
      .insertInto('releases')
      .values({ product_id: productId, version: `1.${index}.0`, channel: 'stable', released_at: now, notes: '{}', yanked: false, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const months = new Set(Array.from({ length: 3 }, () => random.timestamp().slice(0, 7)));
    for (const month of months) await db.insertInto('release_downloads').values({ release_id: release.id, month, count: 1 + Math.floor(random.next() * 20) }).execute();
  }
  // Over-limit grants of TAN licenses on days of 2024 and 2025 (on a database migrated that far):
  // some TANs in several months, some licenses on several days.
  const hasOverages = await db
    .selectFrom('license_overages')
    .select('day')
    .limit(1)
    .execute()
    .then(
      () => true,
      () => false,
    );
  const tanLicenses = hasOverages
    ? await db.selectFrom('licenses').select(['id', 'tan_id', 'machine_id']).where('kind', '=', 'TAN').where('tan_id', 'in', tans.map((tan) => tan.id)).orderBy('id').execute()
    : [];
  const overLimit = tanLicenses.filter(() => random.next() < 0.3);
  for (const license of overLimit) {
    for (let grant = random.int(1, 3); grant > 0; grant--) {
      const day = random.timestamp().slice(0, 10);
      await db.insertInto('license_overages').values({ tan_id: license.tan_id!, license_id: license.id, machine_id: license.machine_id!, day }).onConflict((oc) => oc.doNothing()).execute();
    }
  }
  return { products, distributors };
}

export interface Expected {
  months: { month: string; values: Record<string, number> }[];
  totals: Record<string, number>;
}

interface Filter {
  from: string;
  to: string;
  productId?: number;
  distributorId?: number;
  /** Today (UTC), for the free updates that have ended. */
  today: string;
}

/** The numbers of a category recomputed from every row of the tables, in JavaScript. */
export async function expectedStatistics(app: App, category: StatisticsCategory, filter: Filter): Promise<Expected> {
  const db = app.ctx.db;
  const [allLicenses, tans, users, seen] = await Promise.all([
    db.selectFrom('licenses').selectAll().execute(),
    db.selectFrom('tans').selectAll().execute(),
    db.selectFrom('users').selectAll().execute(),
    db.selectFrom('license_last_seen').selectAll().execute(),
  ]);
  // The license of a free upgrade continues one counted already: no activation, trial or conversion of its own.
  const licenses = allLicenses.filter((license) => license.upgraded_from_id === null);
  const day = (value: string | null) => (value ? value.slice(0, 10) : null);
  const within = (value: string | null, last = filter.to) => value !== null && day(value)! >= filter.from && day(value)! <= last;
  const monthList: string[] = [];
  for (let [year, month] = [Number(filter.from.slice(0, 4)), Number(filter.from.slice(5, 7))]; ; month === 12 ? ((year += 1), (month = 1)) : (month += 1)) {
    const key = `${year}-${String(month).padStart(2, '0')}`;
    if (key > filter.to.slice(0, 7)) break;
    monthList.push(key);
  }
  const count = <T>(rows: T[], monthOf: (row: T) => string) => (month: string) => rows.filter((row) => monthOf(row) === month).length;
  const productOk = (productId: number) => !filter.productId || productId === filter.productId;
  const ownsProduct = (userId: number) => !filter.productId || licenses.some((license) => license.owner_id === userId && license.product_id === filter.productId);
  const tanById = new Map(tans.map((tan) => [tan.id, tan]));
  const build = (metrics: Record<string, (month: string) => number>) =>
    monthList.map((month) => ({ month, values: Object.fromEntries(Object.entries(metrics).map(([name, compute]) => [name, compute(month)])) }));
  const total = (months: Expected['months'], metric: string) => months.reduce((sum, month) => sum + month.values[metric], 0);

  switch (category) {
    case 'tan-activations': {
      const activations = licenses.filter(
        (license) =>
          license.kind === 'TAN' &&
          productOk(license.product_id) &&
          (filter.distributorId === undefined || tanById.get(license.tan_id!)?.distributor_id === filter.distributorId),
      );
      const inRange = activations.filter((license) => within(license.created_at));
      const months = build({
        activations: count(inRange, (license) => license.created_at.slice(0, 7)),
        total: (month) => activations.filter((license) => license.created_at.slice(0, 7) <= month && day(license.created_at)! <= filter.to).length,
      });
      return { months, totals: { activations: inRange.length, total: activations.filter((license) => day(license.created_at)! <= filter.to).length } };
    }
    case 'tan-free-updates-expired': {
      const yesterday = new Date(Date.parse(`${filter.today}T00:00:00Z`) - 86400000).toISOString().slice(0, 10);
      const last = filter.to < yesterday ? filter.to : yesterday;
      const ended = tans.filter((tan) => productOk(tan.product_id) && within(tan.free_updates_until, last));
      const months = build({
        tans: count(ended, (tan) => tan.free_updates_until!.slice(0, 7)),
        licenses: (month) => ended.filter((tan) => tan.free_updates_until!.slice(0, 7) === month).reduce((sum, tan) => sum + tan.activated_count, 0),
      });
      return { months, totals: { tans: total(months, 'tans'), licenses: total(months, 'licenses') } };
    }
    case 'trial-licenses': {
      const trials = licenses.filter((license) => license.kind === 'TEMPORARY' && productOk(license.product_id) && within(license.created_at));
      // Machines that tried a product: each pair counts once, in the month of its first trial ever.
      const firstTrials = new Map<string, { machine: string; productId: number; first: string }>();
      for (const trial of licenses) {
        if (trial.kind !== 'TEMPORARY' || !trial.machine_id || !productOk(trial.product_id)) continue;
        const key = `${trial.machine_id}|${trial.product_id}`;
        const known = firstTrials.get(key);
        if (!known || trial.created_at < known.first) firstTrials.set(key, { machine: trial.machine_id, productId: trial.product_id, first: trial.created_at });
      }
      const pairs = [...firstTrials.values()]
        .filter((pair) => within(pair.first))
        .map((pair) => ({
          ...pair,
          converted: licenses.some((license) => license.kind === 'TAN' && license.machine_id === pair.machine && license.product_id === pair.productId && license.created_at >= pair.first),
        }));
      const machines = count(pairs, (pair) => pair.first.slice(0, 7));
      const converted = count(
        pairs.filter((pair) => pair.converted),
        (pair) => pair.first.slice(0, 7),
      );
      const months = build({ trials: count(trials, (trial) => trial.created_at.slice(0, 7)), machines, converted, conversionRate: (month) => (machines(month) ? converted(month) / machines(month) : 0) });
      const convertedTotal = pairs.filter((pair) => pair.converted).length;
      return { months, totals: { trials: trials.length, machines: pairs.length, converted: convertedTotal, conversionRate: pairs.length ? convertedTotal / pairs.length : 0 } };
    }
    case 'new-users': {
      const created = users.filter((user) => within(user.created_at) && ownsProduct(user.id));
      return { months: build({ users: count(created, (user) => user.created_at.slice(0, 7)) }), totals: { users: created.length } };
    }
    case 'active-users': {
      const active = users.filter((user) => within(user.last_login_at) && ownsProduct(user.id));
      return { months: build({ users: count(active, (user) => user.last_login_at!.slice(0, 7)) }), totals: { users: active.length } };
    }
    case 'downloads': {
      const rows = await db
        .selectFrom('release_downloads as d').innerJoin('releases as r', 'r.id', 'd.release_id').select(['d.month', 'd.count', 'r.product_id']).execute();
      const counted = rows.filter((row) => productOk(row.product_id));
      const months = build({ downloads: (month) => counted.filter((row) => row.month === month).reduce((sum, row) => sum + row.count, 0) });
      return { months, totals: { downloads: total(months, 'downloads') } };
    }
    case 'overage': {
      // Each grant once; the TANs of a month (or of the whole range) each once.
      const grants = (await db.selectFrom('license_overages').selectAll().execute()).filter((grant) => {
        const tan = tanById.get(grant.tan_id)!;
        return within(grant.day) && productOk(tan.product_id) && (filter.distributorId === undefined || tan.distributor_id === filter.distributorId);
      });
      const tansOf = (rows: typeof grants) => new Set(rows.map((grant) => grant.tan_id)).size;
      const months = build({ grants: count(grants, (grant) => grant.day.slice(0, 7)), tans: (month) => tansOf(grants.filter((grant) => grant.day.startsWith(month))) });
      return { months, totals: { grants: grants.length, tans: tansOf(grants) } };
    }
    case 'active-machines': {
      // Each machine counts once, in the month of its latest contact (for one product: with that product).
      const licenseProduct = new Map(allLicenses.map((license) => [license.id, license.product_id]));
      const latest = new Map<string, string>();
      for (const row of seen) {
        if (!productOk(licenseProduct.get(row.license_id)!)) continue;
        if ((latest.get(row.machine_id) ?? '') < row.last_seen_at) latest.set(row.machine_id, row.last_seen_at);
      }
      const active = [...latest.values()].filter((at) => within(at));
      return { months: build({ machines: count(active, (at) => at.slice(0, 7)) }), totals: { machines: active.length } };
    }
  }
}
