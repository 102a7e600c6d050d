/**
 * The large lists' pages (platform/db/list-page.ts) on both databases: next-page cursors walk a list
 * in exactly the order of its offset pages (ties, empty values last in both directions, every
 * sort field both ways); the count stops at the count limit and says so; a cursor of another sort is
 * refused; the user search finds parts of names as a person types, and follows renames.
 */
import { sql, type RawBuilder } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIST_COUNT_LIMIT, LIST_SEARCH_COUNT_LIMIT } from '@lm/contract';
import { SCAN_BUDGET } from '../src/platform/db/list-page.ts';
import { sortKey } from '../src/modules/users/sort-keys.ts';
import { TAN_SORT_FIELDS } from '@lm/contract/tan';
import { callersOfEachRole, createUser, describeBothDatabases, expectError, type Harness } from './harness.ts';
import { insertProduct, unique } from './licensing-fixtures.ts';

const DAY = 86_400_000;

describeBothDatabases('list pages at scale', (t) => {
  const callers = callersOfEachRole(t);

  describe('TAN list', () => {
    let productId: number;

    beforeAll(async () => {
      productId = (await insertProduct(t.app)).id;
      const now = Date.now();
      // 40 TANs with ties in every sort key and free-updates dates missing on every third.
      await t.app.ctx.db
        .insertInto('tans')
        .values(
          Array.from({ length: 40 }, (_, i) => ({
            code: unique('c').slice(0, 12) + i,
            product_id: productId,
            license_policy_id: null,
            license_count: 1 + (i % 4),
            activated_count: i % 2,
            distributor_id: null,
            revoked: i % 5 === 0,
            free_updates_until: i % 3 === 0 ? null : new Date(now + (i % 7) * DAY).toISOString().slice(0, 10),
            notes: null,
            created_by: null,
            created_at: new Date(now - (i % 6) * 1000).toISOString(),
            updated_at: new Date(now).toISOString(),
          })),
        )
        .execute();
    });

    it('walks every sort both ways by cursor in the order of the offset pages, without gaps or repeats', async () => {
      for (const field of TAN_SORT_FIELDS) {
        for (const sort of [field, `-${field}`]) {
          const all = (await callers.admin.get('/api/tans', { query: { productId: String(productId), sort, limit: '1000' } })).json();
          expect(all).toMatchObject({ totalCount: 40, totalCountExact: true, nextCursor: null });
          const walked: number[] = [];
          let after: string | undefined;
          for (let page = 0; page < 10; page++) {
            const response = await callers.admin.get('/api/tans', { query: { productId: String(productId), sort, limit: '7', ...(after ? { after } : {}) } });
            expect(response.statusCode, response.body).toBe(200);
            const body = response.json();
            walked.push(...body.items.map((tan: { id: number }) => tan.id));
            after = body.nextCursor ?? undefined;
            if (!after) break;
          }
          expect(walked, sort).toEqual(all.items.map((tan: { id: number }) => tan.id));
          const byOffset = (await callers.admin.get('/api/tans', { query: { productId: String(productId), sort, limit: '7', offset: '14' } })).json();
          expect(byOffset.items.map((tan: { id: number }) => tan.id)).toEqual(walked.slice(14, 21));
        }
      }
    });

    it('puts TANs without a free-updates date last, sorted either way', async () => {
      for (const sort of ['freeUpdatesUntil', '-freeUpdatesUntil']) {
        const items = (await callers.admin.get('/api/tans', { query: { productId: String(productId), sort, limit: '1000' } })).json().items;
        const dates = items.map((tan: { freeUpdatesUntil: string | null }) => tan.freeUpdatesUntil);
        const firstEmpty = dates.indexOf(null);
        expect(firstEmpty, sort).toBeGreaterThan(0);
        expect(dates.slice(0, firstEmpty).every((date: string | null) => date !== null), sort).toBe(true);
        expect(dates.slice(firstEmpty).every((date: string | null) => date === null), sort).toBe(true);
        const values = dates.slice(0, firstEmpty);
        expect(values, sort).toEqual([...values].sort((a: string, b: string) => (sort.startsWith('-') ? b.localeCompare(a) : a.localeCompare(b))));
      }
    });

    it('refuses a cursor that is not one, or one of another sort', async () => {
      const page = (await callers.admin.get('/api/tans', { query: { productId: String(productId), sort: 'code', limit: '5' } })).json();
      expectError(await callers.admin.get('/api/tans', { query: { sort: '-code', after: page.nextCursor } }), 400, 'ERR_VALIDATION');
      expectError(await callers.admin.get('/api/tans', { query: { sort: 'code', after: 'not-a-cursor' } }), 400, 'ERR_VALIDATION');
      expectError(await callers.admin.get('/api/tans', { query: { sort: 'code,-id', after: page.nextCursor } }), 400, 'ERR_VALIDATION');
      // Altered to a value of another kind than the sort key's: a number for a code, text for a
      // count, no value for a key every row has. Each database compared these differently.
      const altered = (sort: string, value: unknown) => Buffer.from(JSON.stringify([sort, value, 1]), 'utf8').toString('base64url');
      for (const [sort, value] of [['code', 5], ['activatedCount', 'x'], ['-id', '9'], ['createdAt', null], ['licenseCount', null]] as const) {
        expectError(await callers.admin.get('/api/tans', { query: { sort, after: altered(sort, value) } }), 400, 'ERR_VALIDATION');
      }
      // The kinds a list's own cursors carry still pass: an empty free-updates date, a count.
      expect((await callers.admin.get('/api/tans', { query: { sort: 'freeUpdatesUntil', after: altered('freeUpdatesUntil', null) } })).statusCode).toBe(200);
      expect((await callers.admin.get('/api/tans', { query: { sort: '-activatedCount', after: altered('-activatedCount', 0) } })).statusCode).toBe(200);
      // Said in the person's language, with the field it is about.
      const german = expectError(await callers.admin.get('/api/tans', { query: { sort: 'code', after: 'not-a-cursor' }, headers: { 'accept-language': 'de' } }), 400, 'ERR_VALIDATION');
      expect(german.details).toEqual([{ path: 'after', code: 'pageCursor', message: 'Dieser Verweis auf eine Seite passt nicht mehr zur Liste und ihrer Sortierung; beginnen Sie wieder auf der ersten Seite', params: {} }]);
    });

    it('counts up to the count limit and says when there are more', async () => {
      const big = (await insertProduct(t.app)).id;
      const now = new Date().toISOString();
      const rows = LIST_COUNT_LIMIT + 1;
      // The first 30 with a free-updates date (three dates), the others without.
      const values = sql`${big}, null, 1, 0, null, false, case when n <= 30 then '2030-01-0' || (n % 3 + 1) end, null, null, ${now}, ${now}`;
      const columns = sql`(code, product_id, license_policy_id, license_count, activated_count, distributor_id, revoked, free_updates_until, notes, created_by, created_at, updated_at)`;
      const prefix = unique('big');
      if (t.kind === 'postgres') {
        await sql`insert into tans ${columns} select ${prefix} || n, ${values} from generate_series(1, ${rows}) as n`.execute(t.app.ctx.db);
      } else {
        await sql`with recursive seq(n) as (select 1 union all select n + 1 from seq where n < ${rows}) insert into tans ${columns} select ${prefix} || n, ${values} from seq`.execute(t.app.ctx.db);
      }
      const many = (await callers.admin.get('/api/tans', { query: { productId: String(big), sort: 'code' } })).json();
      expect(many).toMatchObject({ totalCount: LIST_COUNT_LIMIT, totalCountExact: false });
      expect(many.items).toHaveLength(50);
      expect(typeof many.nextCursor).toBe('string');
      const second = (await callers.admin.get('/api/tans', { query: { productId: String(big), sort: 'code', after: many.nextCursor } })).json();
      expect(second.items[0].code > many.items[49].code).toBe(true);
      expect((await callers.admin.get('/api/tans', { query: { productId: String(big), revoked: 'true' } })).json()).toMatchObject({ totalCount: 0, totalCountExact: true });

      // Read in the sort key's index, the dates first, then the TANs without one: an offset counts across both.
      const page = async (sort: string, offset: number, limit = 50) =>
        (await callers.admin.get('/api/tans', { query: { productId: String(big), sort, offset: String(offset), limit: String(limit) } })).json().items as { id: number; freeUpdatesUntil: string | null }[];
      const straddling = await page('freeUpdatesUntil', 20);
      expect(straddling.map((tan) => tan.freeUpdatesUntil)).toEqual([...Array(10).fill('2030-01-03'), ...Array(40).fill(null)]);
      const undated = await page('freeUpdatesUntil', 30);
      expect(undated.map((tan) => tan.id)).toEqual([...undated.map((tan) => tan.id)].sort((a, b) => a - b));
      expect((await page('freeUpdatesUntil', 40, 10)).map((tan) => tan.id)).toEqual(undated.slice(10, 20).map((tan) => tan.id));
      const descending = await page('-freeUpdatesUntil', 25);
      expect(descending.map((tan) => tan.freeUpdatesUntil)).toEqual([...Array(5).fill('2030-01-01'), ...Array(45).fill(null)]);
      expect((await page('-freeUpdatesUntil', 35, 10)).map((tan) => tan.id)).toEqual(descending.slice(10, 20).map((tan) => tan.id));
    });
  });

  describe('user search', () => {
    const tag = unique('q').slice(2, 8);
    const names = [
      ['Ada', 'Lovelace', 'Analytical Engines'],
      ['grace', 'Hopper', null],
      ['Alan', 'smith', `Turing ${tag}`],
    ] as const;
    const ids: number[] = [];

    beforeAll(async () => {
      for (const [firstName, lastName, company] of names) {
        const user = await createUser(t.app, { email: `${firstName.toLowerCase()}.${tag}@example.com` });
        expect((await callers.admin.put(`/api/users/${user.id}`, { body: { firstName, lastName, company } })).statusCode).toBe(200);
        ids.push(user.id);
      }
    });

    const search = async (filter: string, sort = 'lastName') =>
      ((await callers.admin.get('/api/users', { query: { filter, sort } })).json().items as { id: number }[]).map((user) => user.id).filter((id) => ids.includes(id));

    it('finds three characters or more anywhere in e-mail, names and company, regardless of case', async () => {
      expect(await search(`MITH`)).toEqual([ids[2]]);
      expect(await search(`ada love`)).toEqual([ids[0]]);
      expect(await search(`lytical eng`)).toEqual([ids[0]]);
      expect(await search(`.${tag}@`)).toHaveLength(3);
      expect(await search(`ing ${tag}`)).toEqual([ids[2]]);
    });

    it('finds one or two characters at the start of e-mail, a name or the company', async () => {
      expect(await search('ho')).toContain(ids[1]);
      expect(await search('op')).not.toContain(ids[1]);
      expect(await search('AN')).toContain(ids[0]);
    });

    it('finds letters beyond ASCII in either case, at the start and anywhere', async () => {
      const user = await createUser(t.app, { email: `oezdemir.${tag}@example.com` });
      expect((await callers.admin.put(`/api/users/${user.id}`, { body: { firstName: 'Émile', lastName: 'Özdemir', company: `Ärzte ${tag}` } })).statusCode).toBe(200);
      const found = async (filter: string) =>
        ((await callers.admin.get('/api/users', { query: { filter } })).json().items as { id: number }[]).some((item) => item.id === user.id);
      for (const filter of ['öz', 'ÖZ', 'é', 'Ä', 'ÉMILE', `ärzte ${tag}`]) expect(await found(filter), filter).toBe(true);
      expect(await found('zd')).toBe(false);
      expect((await callers.admin.delete(`/api/users/${user.id}`)).statusCode).toBe(204);
    });

    it('sorts names regardless of case', async () => {
      expect(await search(tag, 'lastName')).toEqual([ids[1], ids[0], ids[2]]);
      expect(await search(tag, '-firstName')).toEqual([ids[1], ids[2], ids[0]]);
    });

    it('follows renames and leaves closed accounts out', async () => {
      expect((await callers.admin.put(`/api/users/${ids[1]}`, { body: { lastName: `Brewster${tag}` } })).statusCode).toBe(200);
      expect(await search(`ewster${tag}`)).toEqual([ids[1]]);
      expect(await search('hopper')).toEqual([]);
      expect((await callers.admin.delete(`/api/users/${ids[2]}`)).statusCode).toBe(204);
      expect(await search('smith')).toEqual([]);
      // The count too (SQLite counts through its FTS table, list-repo.ts ftsMatching), with the role filter.
      const count = async (query: Record<string, string>) => (await callers.admin.get('/api/users', { query: { filter: tag, ...query } })).json();
      expect(await count({})).toMatchObject({ totalCount: 2, totalCountExact: true });
      expect(await count({ accessRole: 'USER' })).toMatchObject({ totalCount: 2, totalCountExact: true });
      expect(await count({ accessRole: 'DISTRIBUTOR' })).toMatchObject({ totalCount: 0, totalCountExact: true });
    });
  });
});

describeBothDatabases('user search beyond the count limit', (t) => {
  const callers = callersOfEachRole(t);
  // 16,000 accounts in e-mail order; the last 11,000 (more than the count limit) work at one company:
  // ascending by e-mail the matches start after SCAN_BUDGET accounts that do not match, descending
  // they come first. Both orders must give the same pages as the search's own plan would.
  const total = 16_000;
  const firstMatch = SCAN_BUDGET + 1;
  // A first letter beyond ASCII: SQLite's lower() leaves "Ä" as it is, in the sort key and in the search text.
  const company = `Ärztehaus ${unique('c').slice(-6)}`;
  const email = (n: number) => `scan-${String(n).padStart(5, '0')}@example.com`;

  beforeAll(() => insertNumberedUsers(t, 'scan', total, (n, as) => sql`case when ${n} >= ${firstMatch} then ${as(company)} end`));

  const emails = async (query: Record<string, string>) => {
    const response = await callers.admin.get('/api/users', { query: { limit: '50', ...query } });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { items: { email: string }[]; totalCount: number; totalCountExact: boolean; nextCursor: string | null };
    return { ...body, emails: body.items.map((user) => user.email) };
  };
  const range = (from: number, step: number, count = 50) => Array.from({ length: count }, (_, i) => email(from + i * step));

  for (const filter of [company.toLowerCase(), company.slice(0, 2), company.slice(0, 2).toLowerCase()]) {
    it(`finds the first page whether the matches come first or after ${SCAN_BUDGET} others in the sort (search "${filter.length < 3 ? filter : `${filter.slice(0, 9)}…`}")`, async () => {
      const ascending = await emails({ filter, sort: 'email' });
      expect(ascending.totalCountExact).toBe(false);
      expect(ascending.emails).toEqual(range(firstMatch, 1));
      expect((await emails({ filter, sort: 'email', after: ascending.nextCursor! })).emails).toEqual(range(firstMatch + 50, 1));
      expect((await emails({ filter, sort: 'email', offset: '50' })).emails).toEqual(range(firstMatch + 50, 1));
      const descending = await emails({ filter, sort: '-email', accessRole: 'USER' });
      expect(descending.emails).toEqual(range(total, -1));
      expect((await emails({ filter, sort: '-email', after: descending.nextCursor! })).emails).toEqual(range(total - 50, -1));
    });
  }

  it('finds the first page of a search its index serves whose matches come after 9,999 others in the sort', async () => {
    // "scan-1": the 6,001 accounts scan-10000 to scan-16000, fewer than a search reads in the sort's order (manyMatches).
    const ascending = await emails({ filter: 'scan-1', sort: 'email' });
    expect(ascending.totalCountExact).toBe(false);
    expect(ascending.emails).toEqual(range(10_000, 1));
    expect((await emails({ filter: 'scan-1', sort: 'email', after: ascending.nextCursor! })).emails).toEqual(range(10_050, 1));
    expect((await emails({ filter: 'scan-1', sort: 'email', offset: '50' })).emails).toEqual(range(10_050, 1));
    expect((await emails({ filter: 'scan-1', sort: '-email' })).emails).toEqual(range(total, -1));
  });

  // The short search asks the planner how many names start with what was typed (list-repo.ts,
  // manyMatches): without statistics of the last names' keys it guessed 0.5 % of the accounts for a
  // letter that starts every last name, and counted them through a bitmap of every match.
  if (t.kind === 'postgres') {
    it('lets PostgreSQL estimate how many names start with one or two typed characters', async () => {
      await sql`analyze users`.execute(t.app.ctx.db);
      const estimate = async (condition: RawBuilder<unknown>) => {
        const { rows } = await sql<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>`explain (format json) select 1 from users where ${condition}`.execute(t.app.ctx.db);
        return rows[0]['QUERY PLAN'][0].Plan['Plan Rows'];
      };
      // Every one of the 16,000 is a "Person"; a few other accounts of the test are not.
      expect(await estimate(sql`last_name_key like 'p%'`)).toBeGreaterThan(total * 0.9);
      expect(await estimate(sql`first_name_key like 'sc%'`)).toBeGreaterThan(total * 0.9);
      expect(await estimate(sql`company_key like ${`${sortKey(company).slice(0, 2)}%`}`)).toBeGreaterThan((total - firstMatch) * 0.8);
      expect(await estimate(sql`last_name_key like 'x%'`)).toBeLessThan(total * 0.01);
    });
  }

  it('finds an address typed whole, and nothing for one that shares only its rarest part (the whole text is checked)', async () => {
    // PostgreSQL's trigram index looks up "-00012@" alone (list-repo.ts, trigramPieces): the rest must still match.
    expect(await emails({ filter: 'scan-00012@example.com' })).toMatchObject({ emails: [email(12)], totalCount: 1, totalCountExact: true });
    expect(await emails({ filter: 'SCAN-00012@Example' })).toMatchObject({ emails: [email(12)], totalCount: 1 });
    expect(await emails({ filter: 'scan-00012@example.org' })).toMatchObject({ emails: [], totalCount: 0, totalCountExact: true });
    expect(await emails({ filter: 'person scan-00012' })).toMatchObject({ emails: [], totalCount: 0 });
  });

  it('counts a typed search up to the search count limit, and the list without one up to the list count limit', async () => {
    expect(await emails({ filter: 'scan-001' })).toMatchObject({ totalCount: 100, totalCountExact: true });
    expect(await emails({ filter: 'scan-0' })).toMatchObject({ totalCount: LIST_SEARCH_COUNT_LIMIT, totalCountExact: false });
    expect(await emails({ accessRole: 'USER' })).toMatchObject({ totalCount: LIST_COUNT_LIMIT, totalCountExact: false });
  });

  it('walks by cursor from the accounts with a company into those without one, both ways', async () => {
    const withCompany = total - firstMatch + 1;
    for (const [sort, expected] of [
      ['company', [...range(firstMatch, 1, withCompany), ...range(1, 1, 1_000)]],
      ['-company', range(total, -1, 12_000)],
    ] as const) {
      const walked: string[] = [];
      let after: string | undefined;
      while (walked.length < expected.length) {
        const page = await emails({ filter: 'scan-', sort, limit: '1000', ...(after ? { after } : {}) });
        walked.push(...page.emails);
        after = page.nextCursor!;
      }
      expect(walked.slice(0, expected.length), sort).toEqual(expected);
    }
  });

  it('sorts by the company, with the accounts without one last either way, when the search matches all', async () => {
    expect((await emails({ filter: 'scan-', sort: 'company' })).emails).toEqual(range(firstMatch, 1));
    expect((await emails({ filter: 'scan-', sort: '-company', offset: '0' })).emails).toEqual(range(total, -1));
  });

  it('counts an offset across the accounts with a company into those without one', async () => {
    const withCompany = total - firstMatch + 1;
    // The page straddles the two: the last 20 with a company, then the first 30 without.
    expect((await emails({ filter: 'scan-', sort: 'company', offset: String(withCompany - 20) })).emails).toEqual([...range(total - 19, 1, 20), ...range(1, 1, 30)]);
    expect((await emails({ filter: 'scan-', sort: '-company', offset: String(withCompany - 20) })).emails).toEqual([...range(firstMatch + 19, -1, 20), ...range(firstMatch - 1, -1, 30)]);
    // Entirely past those with a company: the offset left over counts into those without.
    expect((await emails({ filter: 'scan-', sort: 'company', offset: String(withCompany + 10) })).emails).toEqual(range(11, 1));
    expect((await emails({ filter: 'scan-', sort: '-company', offset: String(withCompany + 10) })).emails).toEqual(range(firstMatch - 11, -1));
  });
});


describeBothDatabases('a search sorted by a key few accounts have', (t) => {
  const callers = callersOfEachRole(t);
  // 3,000 matches of "carry-" (more than the search count: read in the sort's order within
  // SCAN_BUDGET), the first 400 at one company, the rest without; ahead of them in the company's
  // order, 100 accounts of another company that the search does not match. Sorted by company, the
  // scan reads the 500 with a company, finds the 400 matches among them, and an offset past them
  // carries into the accounts without one by what it found, not by what it read.
  const withCompany = 400;
  const email = (n: number) => `carry-${String(n).padStart(5, '0')}@example.com`;

  beforeAll(async () => {
    await insertNumberedUsers(t, 'other', 100, (_n, as) => sql`${as('Aardvark Ltd')}`);
    await insertNumberedUsers(t, 'carry', 3_000, (n, as) => sql`case when ${n} <= ${withCompany} then ${as('Carry Co')} end`);
  });

  const emails = async (query: Record<string, string>) => {
    const response = await callers.admin.get('/api/users', { query: { filter: 'carry-', limit: '50', ...query } });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { items: { email: string }[]; totalCountExact: boolean };
    return { ...body, emails: body.items.map((user) => user.email) };
  };
  const range = (from: number, step: number, count = 50) => Array.from({ length: count }, (_, i) => email(from + i * step));

  it('carries an offset past the matches with a company into those without one, either way', async () => {
    expect((await emails({ sort: 'company' })).totalCountExact).toBe(false);
    expect((await emails({ sort: 'company', offset: String(withCompany + 10) })).emails).toEqual(range(withCompany + 11, 1));
    expect((await emails({ sort: '-company', offset: String(withCompany + 10) })).emails).toEqual(range(3_000 - 10, -1));
  });

  it('fills a page that straddles the matches with a company and those without', async () => {
    expect((await emails({ sort: 'company', offset: String(withCompany - 20) })).emails).toEqual([...range(withCompany - 19, 1, 20), ...range(withCompany + 1, 1, 30)]);
    expect((await emails({ sort: '-company', offset: String(withCompany - 20) })).emails).toEqual([...range(20, -1, 20), ...range(3_000, -1, 30)]);
  });
});

/**
 * `count` accounts `<prefix>-00001@example.com` to `<prefix>-<count>@…`, inserted in that order (so
 * their ids ascend with the number), each with the company `companyOf(n, as)` (SQL of the number `n`;
 * `as` gives the company's name, or its sort key for the sort-key column).
 */
async function insertNumberedUsers(
  t: Harness,
  prefix: string,
  count: number,
  companyOf: (n: RawBuilder<number>, as: (company: string) => string) => RawBuilder<string | null>,
): Promise<void> {
  const now = new Date().toISOString();
  const n = sql<number>`n`;
  // The names are ASCII: their sort keys (users/sort-keys.ts) are the lowercase text.
  const columns = sql`(email, first_name, last_name, company, first_name_key, last_name_key, company_key, access_role, opt_in_email, confirmed, created_at, updated_at)`;
  const values = (padded: RawBuilder<string>) =>
    sql`${prefix} || '-' || ${padded} || '@example.com', ${prefix}, 'Person', ${companyOf(n, (company) => company)}, lower(${prefix}), 'person', ${companyOf(n, sortKey)}, 'USER', false, true, ${now}, ${now}`;
  if (t.kind === 'postgres') {
    await sql`insert into users ${columns} select ${values(sql`lpad(n::text, 5, '0')`)} from generate_series(1, ${count}) as n`.execute(t.app.ctx.db);
  } else {
    await sql`with recursive seq(n) as (select 1 union all select n + 1 from seq where n < ${count}) insert into users ${columns} select ${values(sql`substr('0000' || n, -5, 5)`)} from seq`.execute(t.app.ctx.db);
  }
}
