/**
 * The text file downloads (a `.lic` license file, an ANY-Lic `.lic` file, the e-mail consent CSV, a
 * PEM key) as the Accept header asks: the TextFile JSON object to a caller that prefers
 * `application/json` (a generated client reading every answer as JSON), the file itself to browsers,
 * curl and anything else, as before. The JSON license file is JSON either way.
 */
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { verifyLicenseFile, type PublicKeyInfo } from '@lm/contract/license-file';
import { client, describeBothDatabases, expectError, loggedIn, uniqueEmail } from './harness.ts';
import { dateFromToday, insertLicense, insertProduct, insertTan, policyId, unique } from './licensing-fixtures.ts';

const JSON_ONLY = { accept: 'application/json' };
/** What Chromium sends when a link is followed. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8' };

/** The file itself: its own type, named by Content-Disposition; the body as text. */
function expectFile(response: LightMyRequestResponse, contentType: string | RegExp, fileName: string | RegExp): string {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(contentType);
  expect(response.headers['content-disposition']).toMatch(typeof fileName === 'string' ? `attachment; filename="${fileName}"` : fileName);
  expect(response.headers.vary).toBe('accept');
  return response.body;
}

/** The TextFile object: JSON, no Content-Disposition (the name is inside), the same Vary. */
function expectTextFile(response: LightMyRequestResponse): { fileName: string; mediaType: string; content: string } {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(response.headers['content-disposition']).toBeUndefined();
  expect(response.headers.vary).toBe('accept');
  const body = response.json();
  expect(Object.keys(body)).toEqual(['fileName', 'mediaType', 'content']);
  return body;
}

describeBothDatabases('downloads as JSON', (t) => {
  let admin: Awaited<ReturnType<typeof loggedIn>>;
  let owner: Awaited<ReturnType<typeof loggedIn>>;
  let keys: PublicKeyInfo[];
  let product: { id: number; name: string; version: string };
  let licenseId: number;
  let machineId: string;

  beforeAll(async () => {
    admin = await loggedIn(t.app, 'ADMIN');
    owner = await loggedIn(t.app, 'USER');
    product = await insertProduct(t.app, { name: unique('Studio'), version: '4.0' });
    const policy = await policyId(t.app, 'SINGLE_HOST_INDEFINITE');
    const tanId = await insertTan(t.app, { productId: product.id, policyId: policy, licenseCount: 1 });
    machineId = unique('MACHINE');
    licenseId = await insertLicense(t.app, { ownerId: owner.id, productId: product.id, policyId: policy, tanId, machineId, permanent: true });
    keys = (await client(t.app).get('/api/client/v1/keys')).json().keys;
  });

  const licenseFile = (format: 'lic' | 'json', headers: Record<string, string> = {}) => client(t.app, owner.cookie).get(`/api/licenses/${licenseId}/file`, { query: { format }, headers });

  it('answers the .lic file as a TextFile to a caller that asks for JSON, and as the file to everyone else', async () => {
    const fileName = `${product.name}-4.0-${machineId}.lic`;
    const asJson = expectTextFile(await licenseFile('lic', JSON_ONLY));
    expect(asJson).toMatchObject({ fileName, mediaType: 'application/octet-stream' });
    expect(asJson.content).toMatch(/^-----BEGIN LICENSE FILE-----\n[\s\S]+\n-----END LICENSE FILE-----\n$/);
    expect(await verifyLicenseFile(asJson.content, keys)).toMatchObject({ licenseId, machineId });
    expect((await licenseFile('lic', JSON_ONLY)).headers['cache-control']).toBe('no-store');

    for (const headers of [{}, { accept: '*/*' }, BROWSER, { accept: 'application/json, text/plain, */*' }, { accept: 'image/png' }]) {
      const text = expectFile(await licenseFile('lic', headers), 'application/octet-stream', fileName);
      expect((await verifyLicenseFile(text, keys)).licenseId, JSON.stringify(headers)).toBe(licenseId);
    }
    // Preferring JSON with weights counts as asking for it.
    expectTextFile(await licenseFile('lic', { accept: 'application/octet-stream;q=0.5, application/json' }));
  });

  it('answers the JSON license file as itself whatever is asked: it is JSON already', async () => {
    for (const headers of [JSON_ONLY, BROWSER, {}]) {
      const response = await licenseFile('json', headers);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['content-disposition']).toBe(`attachment; filename="${product.name}-4.0-${machineId}.json"`);
      expect(Object.keys(response.json())).toEqual(['enc', 'sig', 'alg', 'kid']);
    }
  });

  it('answers an ANY-Lic .lic link as a TextFile to a caller that asks for JSON, without a session', async () => {
    const link = (await client(t.app, admin.cookie).post('/api/anylic', { body: { productId: product.id, validUntil: dateFromToday(10), format: 'lic' } })).json();
    const path = new URL(link.url).pathname;
    const asJson = expectTextFile(await client(t.app).get(path, { headers: JSON_ONLY }));
    expect(asJson).toMatchObject({ fileName: `${product.name}-4.0-ANY.lic`, mediaType: 'application/octet-stream' });
    expect(await verifyLicenseFile(asJson.content, keys)).toMatchObject({ kind: 'ANYLIC', machineId: '*' });
    expectFile(await client(t.app).get(path, { headers: BROWSER }), 'application/octet-stream', `${product.name}-4.0-ANY.lic`);
  });

  it('answers the CSV export as a TextFile whose content is the file without its byte-order mark, over more than one batch', async () => {
    const as = client(t.app, admin.cookie);
    const created = await as.post('/api/users', { body: { email: uniqueEmail('json'), firstName: 'Anna, "Nan" \\ Back', lastName: 'Ünïcode 😀', company: '</script>', optInEmail: true } });
    expect(created.statusCode, created.body).toBe(201);
    const tricky = created.json();
    const now = new Date().toISOString();
    const tag = uniqueEmail('bulkjson').split('@')[0];
    const bulk = Array.from({ length: 1200 }, (_, i) => ({ email: `${tag}-${i}@example.com`, first_name: 'Bulk', last_name: String(i), access_role: 'USER' as const, opt_in_email: true, confirmed: true, created_at: now, updated_at: now }));
    for (let start = 0; start < bulk.length; start += 400) await t.app.ctx.db.insertInto('users').values(bulk.slice(start, start + 400)).execute();

    const query = { separator: 'semicolon' };
    const file = expectFile(await as.get('/api/users/export/email-consent', { query, headers: BROWSER }), 'text/csv; charset=utf-8', /^attachment; filename="email-consent-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(file.startsWith('\uFEFFemail;firstName;')).toBe(true);
    const asJson = expectTextFile(await as.get('/api/users/export/email-consent', { query, headers: JSON_ONLY }));
    expect(asJson.fileName).toMatch(/^email-consent-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(asJson.mediaType).toBe('text/csv');
    expect(asJson.content).toBe(file.slice(1));
    expect(asJson.content).toContain(`${tricky.email};"Anna, ""Nan"" \\ Back";Ünïcode 😀;</script>;`);
    expect(asJson.content.split('\r\n').filter((line) => line.startsWith(tag))).toHaveLength(1200);
  });

  it('answers a PEM key as a TextFile to a caller that asks for JSON, and as the file to curl', async () => {
    const [key] = keys;
    const asJson = expectTextFile(await client(t.app).get(`/api/client/v1/keys/${key!.kid}.pem`, { headers: JSON_ONLY }));
    expect(asJson).toEqual({ fileName: `${key!.kid}.pem`, mediaType: 'application/x-pem-file', content: key!.publicKeyPem });
    for (const headers of [{ accept: '*/*' }, { accept: 'text/plain' }]) {
      expect(expectFile(await client(t.app).get(`/api/client/v1/keys/${key!.kid}.pem`, { headers }), 'application/x-pem-file', `${key!.kid}.pem`)).toBe(key!.publicKeyPem);
    }
  });

  it('answers errors as the Error JSON, whatever the Accept header', async () => {
    expectError(await client(t.app).get('/api/client/v1/keys/nokey.pem', { headers: { accept: 'application/x-pem-file' } }), 404, 'ERR_NOT_FOUND');
    expectError(await client(t.app, owner.cookie).get('/api/users/export/email-consent', { headers: JSON_ONLY }), 403, 'ERR_FORBIDDEN');
    expectError(await client(t.app).get(`/api/licenses/${licenseId}/file`, { headers: JSON_ONLY }), 401, 'ERR_UNAUTHENTICATED');
  });
});
