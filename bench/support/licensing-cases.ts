/**
 * The cases of the list bench (scenarios/licensing.ts): each list's sorts, filters, typed searches and deep
 * pages, with values read from the seeded data so that every sample asks for something that exists.
 */
import { sql, type Kysely } from 'kysely';
import type { Config } from '../../packages/server/src/platform/config.ts';
import type { DB } from '../../packages/server/src/platform/db/schema.ts';

// ---------------------------------------------------------------------------------------------
// The cases

export interface Case {
  list: 'tans' | 'licenses' | 'users';
  name: string;
  caller: string;
  path(sample: number): string;
}

export interface Timed {
  list: Case['list'];
  name: string;
  p50: number;
  p95: number;
  max: number;
  rows: number;
  example: { url: string; caller: string };
}

export const TAN_SORTS = ['id', 'code', 'createdAt', 'licenseCount', 'activatedCount', 'freeUpdatesUntil'];
export const LICENSE_SORTS = ['id', 'createdAt', 'machineId', 'validUntil', 'freeUpdatesUntil'];
export const USER_SORTS = ['id', 'email', 'firstName', 'lastName', 'company', 'accessRole', 'createdAt'];
export const both = (fields: string[]) => fields.flatMap((field) => [field, `-${field}`]);
const pick = <T>(items: readonly T[], sample: number) => items[(sample * 7919) % items.length];
/** What a person has typed after `sample` keystrokes of `text`, from `from` characters on. */
const typed = (text: string, sample: number, from = 1) => text.slice(0, from + (sample % Math.max(1, text.length - from + 1)));
const dashed = (code: string) => code.match(/.{1,4}/g)!.join('-').toUpperCase();

export async function parameters(config: Config['database']) {
  const { openDatabase } = await import('../../packages/server/src/platform/db/database.ts');
  const { BENCH_ACCOUNTS } = await import('../../packages/server/src/modules/bench-seed/service.ts');
  const database = openDatabase(config);
  const db: Kysely<DB> = database.db;
  try {
    const userId = async (email: string) => (await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
    const heavyUser = await userId(BENCH_ACCOUNTS.heavyUser.email);
    const distributor = await userId(BENCH_ACCOUNTS.distributor.email);
    const codes = (await db.selectFrom('tans').select('code').where(sql`id % 997`, '=', 0).limit(300).execute()).map((row) => row.code);
    const products = (await db.selectFrom('products').select('id').orderBy('id').execute()).map((row) => row.id);
    const tags = (await db.selectFrom('tan_tags').select('tag').distinct().limit(300).execute()).map((row) => row.tag);
    const heavyLicenses = await db.selectFrom('licenses').select(['machine_id', 'tan_code']).where('owner_id', '=', heavyUser).where('tan_code', 'is not', null).limit(300).execute();
    const someUsers = (await db.selectFrom('licenses').select('owner_id').where(sql`id % 4999`, '=', 0).limit(200).execute()).map((row) => row.owner_id);
    const activatedTans = (await db.selectFrom('tans').select('id').where('activated_count', '>', 0).where(sql`id % 1009`, '=', 0).limit(200).execute()).map((row) => row.id);
    const distributorTans = (await db.selectFrom('tans').select('id').where('distributor_id', '=', distributor).where('activated_count', '>', 0).limit(200).execute()).map((row) => row.id);
    const distributorCustomers = (
      await db
        .selectFrom('licenses')
        .innerJoin('tans', 'tans.id', 'licenses.tan_id')
        .select('licenses.owner_id')
        .where('tans.distributor_id', '=', distributor)
        .where('licenses.owner_id', '!=', heavyUser)
        .limit(200)
        .execute()
    ).map((row) => row.owner_id);
    const people = await db.selectFrom('users').select(['email', 'first_name', 'company']).where(sql`id % 1013`, '=', 0).orderBy('id').limit(200).execute();
    return {
      heavyUser,
      codes,
      products,
      tags,
      machines: heavyLicenses.map((row) => row.machine_id!),
      heavyCodes: heavyLicenses.map((row) => row.tan_code!),
      someUsers,
      activatedTans,
      distributorTans,
      distributorCustomers,
      emails: people.map((row) => row.email),
      names: people.map((row) => row.first_name),
      companies: people.flatMap((row) => (row.company ? [row.company] : [])),
    };
  } finally {
    await database.close();
  }
}

export function casesOf(p: Awaited<ReturnType<typeof parameters>>, deepCursor: (list: Case['list'], sort: string, query: string) => string | null): Case[] {
  const cases: Case[] = [];
  const add = (list: Case['list'], name: string, caller: string, make: (sample: number) => string) => cases.push({ list, name, caller, path: make });
  const last = 'offset=9950';

  for (const sort of both(TAN_SORTS)) {
    const tans = (query: string) => (sample: number) => `/api/tans?limit=50&sort=${sort}${query ? '&' : ''}${query.replace('{product}', String(pick(p.products, sample))).replace('{tag}', pick(p.tags, sample))}`;
    add('tans', `sort ${sort}`, 'admin', tans(''));
    add('tans', `sort ${sort}, not revoked`, 'admin', tans('revoked=false'));
    add('tans', `sort ${sort}, revoked`, 'admin', tans('revoked=true'));
    add('tans', `sort ${sort}, product`, 'admin', tans('productId={product}'));
    add('tans', `sort ${sort}, product, revoked`, 'admin', tans('productId={product}&revoked=true'));
    add('tans', `sort ${sort}, tag`, 'admin', tans('tag={tag}'));
    add('tans', `sort ${sort}, code typed (1-12 characters)`, 'admin', (s) => `${tans('')(s)}&filter=${dashed(typed(pick(p.codes, s), s))}`);
    add('tans', `sort ${sort}, distributor's own`, 'distributor', tans(''));
    add('tans', `sort ${sort}, distributor's own, not revoked`, 'distributor', tans('revoked=false'));
    add('tans', `sort ${sort}, page 200 (${last})`, 'admin', (s) => `${tans('')(s)}&${last}`);
    // A product has ~20,000 TANs: more than the count shows, so the web app pages on by cursor.
    add('tans', `sort ${sort}, product, next page at its row 10,000 (cursor)`, 'admin', (s) => `${tans(`productId=${p.products[0]}`)(s)}&${deepCursor('tans', sort, `productId=${p.products[0]}`) ?? 'offset=10000'}`);
    add('tans', `sort ${sort}, next page at row 500,000 (cursor)`, 'admin', (s) => `${tans('')(s)}&${deepCursor('tans', sort, '') ?? 'offset=500000'}`);
  }

  for (const sort of both(LICENSE_SORTS)) {
    const licenses = (query: string) => (_sample: number) => `/api/licenses?limit=50&sort=${sort}&${query}`;
    const heavy = `userId=${p.heavyUser}`;
    add('licenses', `sort ${sort}, account with 10,000`, 'admin', licenses(heavy));
    add('licenses', `sort ${sort}, account with 10,000, offline`, 'admin', licenses(`${heavy}&offline=true`));
    add('licenses', `sort ${sort}, account with 10,000, machine typed`, 'admin', (s) => licenses(`${heavy}&filter=${encodeURIComponent(typed(pick(p.machines, s), s, 2))}`)(s));
    add('licenses', `sort ${sort}, account with 10,000, TAN typed`, 'admin', (s) => licenses(`${heavy}&filter=${dashed(typed(pick(p.heavyCodes, s), s, 3))}`)(s));
    add('licenses', `sort ${sort}, own 10,000`, 'heavyUser', licenses(''));
    add('licenses', `sort ${sort}, typical account`, 'admin', (s) => licenses(`userId=${pick(p.someUsers, s)}`)(s));
    add('licenses', `sort ${sort}, one TAN`, 'admin', (s) => licenses(`tanId=${pick(p.activatedTans, s)}`)(s));
    add('licenses', `sort ${sort}, distributor: a customer's`, 'distributor', (s) => licenses(`userId=${pick(p.distributorCustomers, s)}`)(s));
    add('licenses', `sort ${sort}, distributor: account with 10,000`, 'distributor', licenses(heavy));
    add('licenses', `sort ${sort}, distributor: one TAN`, 'distributor', (s) => licenses(`tanId=${pick(p.distributorTans, s)}`)(s));
    add('licenses', `sort ${sort}, account with 10,000, last page`, 'admin', licenses(`${heavy}&offset=9950`));
    // The staff's search across accounts (issue 37): every license, a machine id, a TAN typed, an owner.
    add('licenses', `sort ${sort}, every license (scope=all)`, 'admin', licenses('scope=all'));
    add('licenses', `sort ${sort}, every license, page 200`, 'admin', licenses(`scope=all&${last}`));
    add('licenses', `sort ${sort}, every license, next page at row 500,000 (cursor)`, 'admin', (s) => `${licenses('scope=all')(s)}&${deepCursor('licenses', sort, 'scope=all') ?? 'offset=500000'}`);
    add('licenses', `sort ${sort}, every license, machine id`, 'admin', (s) => licenses(`scope=all&filter=${encodeURIComponent(pick(p.machines, s))}`)(s));
    add('licenses', `sort ${sort}, every license, TAN typed`, 'admin', (s) => licenses(`scope=all&filter=${dashed(typed(pick(p.heavyCodes, s), s, 4))}`)(s));
    add('licenses', `sort ${sort}, every license, owner's e-mail typed`, 'admin', (s) => licenses(`scope=all&filter=${encodeURIComponent(typed(pick(p.emails, s), s, 3))}`)(s));
    add('licenses', `sort ${sort}, every license, owner's name`, 'admin', (s) => licenses(`scope=all&filter=${encodeURIComponent(pick(p.names, s))}`)(s));
    add('licenses', `sort ${sort}, distributor: all of its licenses`, 'distributor', licenses('scope=all'));
    add('licenses', `sort ${sort}, distributor: owner's e-mail`, 'distributor', (s) => licenses(`scope=all&filter=${encodeURIComponent(pick(p.emails, s))}`)(s));
  }

  for (const sort of both(USER_SORTS)) {
    const users = (query: string) => (_sample: number) => `/api/users?limit=50&sort=${sort}${query ? '&' : ''}${query}`;
    add('users', `sort ${sort}`, 'admin', users(''));
    add('users', `sort ${sort}, customers`, 'admin', users('accessRole=USER'));
    add('users', `sort ${sort}, distributors`, 'admin', users('accessRole=DISTRIBUTOR'));
    add('users', `sort ${sort}, e-mail typed`, 'admin', (s) => users(`filter=${encodeURIComponent(typed(pick(p.emails, s), s))}`)(s));
    add('users', `sort ${sort}, name typed`, 'admin', (s) => users(`filter=${encodeURIComponent(typed(pick(p.names, s), s))}`)(s));
    add('users', `sort ${sort}, company typed`, 'admin', (s) => users(`filter=${encodeURIComponent(typed(pick(p.companies, s), s))}`)(s));
    add('users', `sort ${sort}, part of an e-mail typed`, 'admin', (s) => users(`filter=${encodeURIComponent(typed(pick(p.emails, s).slice(6), s, 3))}`)(s));
    add('users', `sort ${sort}, nothing matches`, 'admin', (s) => users(`filter=${encodeURIComponent(typed('qxzv-nobody', s, 2))}`)(s));
    add('users', `sort ${sort}, customers, name typed`, 'admin', (s) => users(`accessRole=USER&filter=${encodeURIComponent(typed(pick(p.names, s), s))}`)(s));
    add('users', `sort ${sort}, page 200 (${last})`, 'admin', users(last));
    add('users', `sort ${sort}, next page at row 100,000 (cursor)`, 'admin', (s) => `${users('')(s)}&${deepCursor('users', sort, '') ?? 'offset=100000'}`);
  }
  return cases;
}

