import { expect, it } from 'vitest';
import { client, createUser, describeBothDatabases, expectError, loggedIn, uniqueEmail } from './harness.ts';
import { privateDataDir, registerAccount } from './accounts-helpers.ts';

/** A CSV parser per RFC 4180, to read the export as a spreadsheet would. */
function parseCsv(text: string, separator: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === separator) endField();
    else if (char === '\r' && text[i + 1] === '\n') {
      endField();
      rows.push(row);
      row = [];
      i++;
    } else field += char;
  }
  return rows;
}

describeBothDatabases(
  'e-mail consent export',
  (t) => {
    it('streams the confirmed open accounts that agreed to e-mails as a CSV download', async () => {
      const admin = await loggedIn(t.app, 'ADMIN');
      const as = client(t.app, admin.cookie);
      const tricky = (await as.post('/api/users', {
        body: { email: uniqueEmail('tricky'), firstName: 'Anna, "Nan"', lastName: '=HYPERLINK("http://evil")', company: 'Café Ünïcode', country: 'de', optInEmail: true },
      })).json();
      const plain = (await as.post('/api/users', { body: { email: uniqueEmail('plain'), firstName: 'Plain', lastName: 'Person', optInEmail: true } })).json();
      const refused = (await as.post('/api/users', { body: { email: uniqueEmail('no'), firstName: 'No', lastName: 'Consent', optInEmail: false } })).json();
      const pending = await registerAccount(t.app, { optInEmail: true });
      const closed = (await as.post('/api/users', { body: { email: uniqueEmail('closed'), firstName: 'Closed', lastName: 'Account', optInEmail: true } })).json();
      expect((await as.delete(`/api/users/${closed.id}`)).statusCode).toBe(204);

      const response = await as.get('/api/users/export/email-consent');
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.headers['content-disposition']).toMatch(/^attachment; filename="email-consent-\d{4}-\d{2}-\d{2}\.csv"$/);
      expect(response.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));

      const rows = parseCsv(response.body.replace(/^\uFEFF/, ''), ',');
      expect(rows[0]).toEqual(['email', 'firstName', 'lastName', 'company', 'country', 'language', 'registeredAt']);
      const byEmail = new Map(rows.slice(1).map((row) => [row[0], row]));
      expect(byEmail.get(tricky.email)).toEqual([tricky.email, 'Anna, "Nan"', `'=HYPERLINK("http://evil")`, 'Café Ünïcode', 'DE', '', tricky.createdAt]);
      expect(byEmail.get(plain.email)?.slice(1, 3)).toEqual(['Plain', 'Person']);
      for (const absent of [refused.email, pending.email, closed.email]) expect(byEmail.has(absent)).toBe(false);
      expect([...byEmail.keys()].filter((address) => address.endsWith('@closed.invalid'))).toEqual([]);
      expect(response.body).toContain('"Anna, ""Nan"""');
      expect(response.body.endsWith('\r\n')).toBe(true);
    });

    it('uses a semicolon when asked, for spreadsheets where the comma is the decimal mark', async () => {
      const admin = await loggedIn(t.app, 'ADMIN');
      const as = client(t.app, admin.cookie);
      const made = (await as.post('/api/users', { body: { email: uniqueEmail('semi'), firstName: 'Semi; Colon', lastName: 'Comma, Name', optInEmail: true } })).json();
      const response = await as.get('/api/users/export/email-consent', { query: { separator: 'semicolon' } });
      expect(response.statusCode).toBe(200);
      const rows = parseCsv(response.body.replace(/^\uFEFF/, ''), ';');
      expect(rows[0][1]).toBe('firstName');
      expect(rows.find((row) => row[0] === made.email)?.slice(1, 3)).toEqual(['Semi; Colon', 'Comma, Name']);
      // Both separators are quoted, whichever the file uses: a spreadsheet may split at the one its language uses.
      expect(response.body).toContain('"Semi; Colon";"Comma, Name";');
    });

    it('pages through more accounts than one batch, each exactly once', async () => {
      const admin = await loggedIn(t.app, 'ADMIN');
      const now = new Date().toISOString();
      const tag = uniqueEmail('bulk').split('@')[0];
      const values = Array.from({ length: 2500 }, (_, i) => ({
        email: `${tag}-${i}@example.com`, first_name: 'Bulk', last_name: String(i), access_role: 'USER' as const,
        opt_in_email: true, confirmed: true, created_at: now, updated_at: now,
      }));
      for (let start = 0; start < values.length; start += 500) await t.app.ctx.db.insertInto('users').values(values.slice(start, start + 500)).execute();
      const response = await client(t.app, admin.cookie).get('/api/users/export/email-consent');
      const emails = parseCsv(response.body.replace(/^\uFEFF/, ''), ',').map((row) => row[0]).filter((email) => email.startsWith(tag));
      expect(emails).toHaveLength(2500);
      expect(new Set(emails).size).toBe(2500);
    });

    it('refuses customers and distributors with 403, anonymous callers with 401, a bad separator with 400', async () => {
      expectError(await client(t.app).get('/api/users/export/email-consent'), 401, 'ERR_UNAUTHENTICATED');
      for (const role of ['USER', 'DISTRIBUTOR'] as const) {
        const caller = await loggedIn(t.app, role);
        expectError(await client(t.app, caller.cookie).get('/api/users/export/email-consent'), 403, 'ERR_FORBIDDEN');
      }
      const admin = await loggedIn(t.app, 'ADMIN');
      expectError(await client(t.app, admin.cookie).get('/api/users/export/email-consent', { query: { separator: 'tab' } }), 400, 'ERR_VALIDATION');
      await createUser(t.app);
    });
  },
  { env: { DATA_DIR: privateDataDir() } },
);
