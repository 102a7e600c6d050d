/**
 * Every operation of the OpenAPI document, called with malformed values of every kind (path ids
 * that are not plain digits, query values of the wrong type, bodies of the wrong shape, type and
 * encoding, multipart that is not multipart), as an administrator (so that the request reaches the
 * handler past every permission) and anonymously: no answer is a 5xx. A 500 is always a bug.
 */
import { expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { callersOfEachRole, describeBothDatabases } from './harness.ts';

interface Operation {
  method: string;
  path: string;
  parameters: { in: 'path' | 'query' | 'header'; name: string }[];
  json: { properties?: Record<string, unknown> } | null;
}

const MALFORMED_IDS = ['abc', '-1', '0', '1.5', '%205', '+5', '5%20', '0x10', '1e3', '99999999999999999999', '%00', '%E2%80%8B1', 'null', '[1]', 'x'.repeat(400)];
const MALFORMED_QUERY = ['', ' ', '-1', 'abc', '1.5', 'true', '9'.repeat(30), '%00', '%FF', 'x'.repeat(5000), '{}', '-', '-id,-'];
const WRONG_VALUES: unknown[] = [null, 1, -1, 1.5, 'x', '', true, [], {}, [[]], { a: { b: { c: {} } } }, 'x'.repeat(100_000), '\u0000', 2 ** 53, -(2 ** 31)];
const BODIES: { contentType: string; payload: string }[] = [
  { contentType: 'application/json', payload: '{' },
  { contentType: 'application/json', payload: 'null' },
  { contentType: 'application/json', payload: '[]' },
  { contentType: 'application/json', payload: '"text"' },
  { contentType: 'application/json', payload: '1e999' },
  { contentType: 'application/json', payload: '{"__proto__":{"admin":true}}' },
  { contentType: 'application/json', payload: `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}` },
  { contentType: 'application/json; charset=latin1', payload: '{}' },
  { contentType: 'multipart/form-data', payload: 'not multipart' },
  { contentType: 'multipart/form-data; boundary=x', payload: 'not multipart either' },
  { contentType: 'multipart/form-data; boundary=x', payload: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nunfinished' },
  { contentType: 'text/plain', payload: 'hello' },
  { contentType: 'application/x-www-form-urlencoded', payload: 'a=1&b=2' },
];

async function operationsOf(app: App): Promise<Operation[]> {
  const document = (await app.inject({ url: '/api/openapi.json' })).json() as {
    servers: { url: string }[];
    paths: Record<string, Record<string, { parameters?: Operation['parameters']; requestBody?: { content: Record<string, { schema: Operation['json'] }> } }>>;
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      // The paths are written below the document's server (`/api`).
      path: `${document.servers[0]!.url}${path}`,
      parameters: operation.parameters ?? [],
      json: operation.requestBody?.content['application/json']?.schema ?? null,
    })),
  );
}

/** The path with every parameter set: to `value` for the one named, to an id nothing has for the others. */
const pathWith = (operation: Operation, name?: string, value?: string) =>
  operation.path.replace(/\{(\w+)\}/g, (_all, parameter: string) => (parameter === name ? value! : parameter === 'model' ? 'User' : parameter === 'category' ? 'new-users' : '999999'));

describeBothDatabases('OpenAPI fuzz', (t) => {
  const { cookies } = callersOfEachRole(t);

  it('answers every malformed request of every operation without a 5xx, as an administrator and anonymously', async () => {
    const operations = await operationsOf(t.app);
    expect(operations.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const cookie of [cookies.ADMIN, null]) {
      const send = async (operation: Operation, url: string, payload?: string, contentType?: string) => {
        const headers: Record<string, string> = { ...(cookie ? { cookie } : {}), ...(contentType ? { 'content-type': contentType } : {}) };
        const response = await t.app.inject({ method: operation.method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
        if (response.statusCode >= 500) failures.push(`${response.statusCode} ${operation.method} ${url.slice(0, 120)} ${contentType ?? ''} ${String(payload).slice(0, 60)}: ${response.body.slice(0, 200)}`);
      };
      for (const operation of operations) {
        // Deleting the callers' own accounts would end the run early; every other operation runs.
        if (operation.method === 'DELETE' && operation.path === '/api/session') continue;
        const body = operation.json ? '{}' : undefined;
        const type = operation.json ? 'application/json' : undefined;
        for (const parameter of operation.parameters) {
          const values = parameter.in === 'path' ? MALFORMED_IDS : MALFORMED_QUERY;
          for (const value of values) {
            if (parameter.in === 'path') await send(operation, pathWith(operation, parameter.name, value), body, type);
            else if (parameter.in === 'query') await send(operation, `${pathWith(operation)}?${parameter.name}=${encodeURIComponent(value)}&${parameter.name}=${encodeURIComponent(value)}`, body, type);
          }
        }
        if (operation.method === 'GET' || operation.method === 'DELETE') continue;
        for (const { contentType, payload } of BODIES) await send(operation, pathWith(operation), payload, contentType);
        for (const property of Object.keys(operation.json?.properties ?? {})) {
          for (const value of WRONG_VALUES) await send(operation, pathWith(operation), JSON.stringify({ [property]: value }), 'application/json');
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('reads only digits as a path id: " 5", "+5", "5.0" close nobody', async () => {
    const victim = await t.app.ctx.db.selectFrom('users').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    for (const id of [`%20${victim.id}`, `+${victim.id}`, `${victim.id}.0`, `${victim.id}%20`, `0x${victim.id.toString(16)}`]) {
      const response = await t.app.inject({ method: 'DELETE', url: `/api/users/${id}`, headers: { cookie: cookies.ADMIN } });
      expect(response.statusCode, id).toBe(400);
      expect(response.json().error).toBe('ERR_VALIDATION');
    }
    const stored = await t.app.ctx.db.selectFrom('users').select('closed_at').where('id', '=', victim.id).executeTakeFirstOrThrow();
    expect(stored.closed_at).toBeNull();
  });

  it('answers garbage in cookies, language and conditional headers without a 5xx', async () => {
    const garbage = [
      { cookie: 'lm_session=%ZZ%; lm_device=\u0000' },
      { cookie: `lm_session=${'x'.repeat(4000)}` },
      { 'accept-language': '*;q=x, de-DE;q=1.5, ../../etc' },
      { 'if-none-match': '"' },
      { 'x-forwarded-for': 'not an address, 1.2.3.4, ::ffff:1' },
    ];
    for (const headers of garbage) {
      for (const url of ['/api/session', '/api/settings', '/api/products', '/api/client/v1/keys', '/theme/index.json', '/']) {
        const response = await t.app.inject({ url, headers });
        expect(response.statusCode, `${url} ${JSON.stringify(headers)}`).toBeLessThan(500);
      }
    }
  });
});
