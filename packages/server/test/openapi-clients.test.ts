/**
 * The OpenAPI document as integrators use it, with generators this project did not write:
 * `@redocly/cli lint` (its rules in openapi-client/redocly.yaml) finds nothing, and openapi-typescript
 * + openapi-fetch give a client that tsc compiles (openapi-client/usage.ts: no casts, no String(…), no
 * parseAs) and that works against a listening server with an API token. Also what generators rely on:
 * operationIds, named components, integer and boolean parameters, real media types, per-operation
 * security, and query parameters nobody declared refused.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { DEFAULT_PRODUCT_NAME } from '@lm/contract';
import { decodePayload, parseLicenseFile } from '@lm/contract/license-file';
import type { TextFile } from '@lm/contract/text-file';
import type { App } from '../src/app.ts';
import { OPERATION_IDS } from '../src/platform/http/openapi-operations.ts';
import { callersOfEachRole, describeBothDatabases, expectError, request } from './harness.ts';
import { insertPolicy, insertProduct, machine } from './licensing-test-data.ts';

const CLIENT_DIR = fileURLToPath(new URL('./openapi-client/', import.meta.url));
const GENERATED_DIR = path.join(CLIENT_DIR, 'generated');
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The integrator's code, imported by a computed name: tsc checks it against the generated client in
 * its own project (openapi-client/tsconfig.json), the server's typecheck runs before that exists.
 */
const USAGE_MODULE = pathToFileURL(path.join(CLIENT_DIR, 'usage.ts')).href;
type IntegrationRound = (
  serverUrl: string,
  token: string,
  productId: number,
  licensePolicyId: number,
  machineId: string,
) => Promise<{
  tan: object;
  activated: { id: number };
  listed: { id: number }[];
  file: { enc: string };
  licFile: TextFile;
  anyLicFile: TextFile;
  consentCsv: TextFile;
  publicKey: { kid: string; publicKeyPem: string; pem: TextFile };
  revoked: object;
  notFound: { error: string };
  refusedLimit: object;
}>;

/** A package's command-line entry, as npm installed it (the project's own TypeScript for tsc). */
function binOf(packageName: string, bin: string, from = import.meta.url): string {
  const manifestPath = createRequire(from).resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  return path.join(path.dirname(manifestPath), typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[bin]!);
}

/** Runs a Node command line to its end: its exit code and output. */
function run(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // Redocly's CLI reports usage and looks for updates over the network unless told not to; tests stay on this machine.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    execFile(process.execPath, args, { cwd: CLIENT_DIR, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; schema: { type?: string } }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: { $ref?: string; type?: string; anyOf?: { $ref?: string }[] } }> }>;
}
interface Document {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

async function documentOf(app: App): Promise<Document> {
  const response = await app.inject({ url: '/api/openapi.json' });
  expect(response.statusCode).toBe(200);
  return response.json() as Document;
}

const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([documentPath, methods]) => Object.entries(methods).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${documentPath}`, operation })));

/** Writes the document and generates `generated/api.ts` from it, once per file: the document is the same on both databases. */
let generated: Promise<{ documentFile: string; code: number; output: string }> | undefined;
function generateClient(app: App) {
  generated ??= (async () => {
    fs.rmSync(GENERATED_DIR, { recursive: true, force: true });
    fs.mkdirSync(GENERATED_DIR, { recursive: true });
    const documentFile = path.join(GENERATED_DIR, 'openapi.json');
    fs.writeFileSync(documentFile, JSON.stringify(await documentOf(app), null, 2));
    const result = await run([binOf('openapi-typescript', 'openapi-typescript'), documentFile, '--output', path.join(GENERATED_DIR, 'api.ts')]);
    return { documentFile, ...result };
  })();
  return generated;
}

async function listeningUrl(app: App): Promise<string> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
}

describeBothDatabases('OpenAPI for generated clients', (t) => {
  const { cookies } = callersOfEachRole(t);

  it('gives every operation a unique operationId from the table, and the table names no operation that is gone', async () => {
    const operations = operationsOf(await documentOf(t.app));
    expect(operations.filter(({ operation }) => !operation.operationId).map(({ key }) => key)).toEqual([]);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const documented = new Set(operations.map(({ key }) => key));
    expect(Object.keys(OPERATION_IDS).filter((key) => !documented.has(key))).toEqual([]);
    expect(operations.find(({ key }) => key === 'GET /licenses')?.operation.operationId).toBe('listLicenses');
  });

  it('names the entities, lists, bodies and the one error schema, and refers to them', async () => {
    const document = await documentOf(t.app);
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(['License', 'LicenseList', 'Tan', 'TanList', 'User', 'UserList', 'Product', 'Error', 'ActivateLicense', 'LicenseUpdate']));
    const inline: string[] = [];
    for (const { key, operation } of operationsOf(document)) {
      const json = operation.requestBody?.content['application/json'];
      if (json && !json.schema.$ref) inline.push(`${key} body`);
      for (const [status, response] of Object.entries(operation.responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (schema && !schema.$ref && !/^2/.test(status)) inline.push(`${key} ${status}`);
      }
    }
    expect(inline).toEqual([]);
    // Another app in the same process writes the same document (the names are the app's own, not a process's).
    expect(await documentOf(await t.newApp())).toEqual(document);
    const listLicenses = document.paths['/licenses']!.get!;
    expect(listLicenses.responses['200']!.content!['application/json']!.schema.$ref).toBe('#/components/schemas/LicenseList');
    expect(listLicenses.responses['404']!.content!['application/json']!.schema.$ref).toBe('#/components/schemas/Error');
  });

  it('describes every parameter, and lists every sort field with its descending `-` variant', async () => {
    const document = await documentOf(t.app);
    const operations = operationsOf(document);
    const undescribed = operations.flatMap(({ key, operation }) => (operation.parameters ?? []).filter((parameter) => !(parameter as { description?: string }).description).map((parameter) => `${key} ${parameter.name}`));
    expect(undescribed).toEqual([]);
    const sorts = operations.flatMap(({ key, operation }) => (operation.parameters ?? []).filter((parameter) => parameter.name === 'sort').map((parameter) => ({ key, values: (parameter.schema as { enum?: string[] }).enum })));
    expect(sorts.length).toBeGreaterThan(8);
    for (const { key, values } of sorts) {
      expect(values, key).toBeDefined();
      for (const value of values!.filter((field) => !field.startsWith('-'))) expect(values, key).toContain(`-${value}`);
    }
    expect(sorts.find(({ key }) => key === 'GET /licenses')?.values).toEqual(expect.arrayContaining(['createdAt', '-createdAt', 'validUntil', '-validUntil']));
  });

  it('types ids, counts, offsets and limits as integers and flags as booleans', async () => {
    const document = await documentOf(t.app);
    const typeOf = (documentPath: string, method: string, name: string) => document.paths[documentPath]![method]!.parameters!.find((parameter) => parameter.name === name)!.schema.type;
    expect(typeOf('/licenses/{id}', 'get', 'id')).toBe('integer');
    for (const name of ['offset', 'limit', 'userId', 'tanId']) expect(typeOf('/licenses', 'get', name), name).toBe('integer');
    expect(typeOf('/licenses', 'get', 'offline')).toBe('boolean');
    expect(typeOf('/tans', 'post', 'count')).toBe('integer');
    expect(typeOf('/tans', 'get', 'revoked')).toBe('boolean');
    expect(typeOf('/products', 'get', 'active')).toBe('boolean');
    const stringTyped = operationsOf(document).flatMap(({ key, operation }) =>
      (operation.parameters ?? []).filter((parameter) => /^(id|limit|offset|count)$|Id$/.test(parameter.name) && parameter.schema.type !== 'integer').map((parameter) => `${key} ${parameter.name}`),
    );
    // A session's id is the hex text of its token hash, not a record number.
    // A shop event is replayed by the provider's event id (evt_…, as docs/selling.md names it).
    expect(stringTyped).toEqual(['DELETE /account/sessions/{id} id', 'POST /shop-connections/{id}/events/{eventId}/replay eventId']);
  });

  it('still reads the numbers and flags that callers send as text', async () => {
    const response = await request(t.app, 'GET', '/api/licenses?limit=5&offset=0&offline=true', { cookie: cookies.ADMIN });
    expect(response.statusCode, response.body).toBe(200);
    expectError(await request(t.app, 'GET', '/api/licenses?limit=%205', { cookie: cookies.ADMIN }), 400, 'ERR_VALIDATION');
  });

  it('declares the media types files are served as, each with its JSON form, and a JSON answer for every operation', async () => {
    const document = await documentOf(t.app);
    const ok = (documentPath: string) => document.paths[documentPath]!.get!.responses['200']!;
    const mediaOf = (documentPath: string) => Object.keys(ok(documentPath).content!);
    const textFile = { $ref: '#/components/schemas/TextFile' };
    expect(mediaOf('/licenses/{id}/file')).toEqual(['application/octet-stream', 'application/json']);
    expect(ok('/licenses/{id}/file').content!['application/json']!.schema.anyOf).toEqual([{ $ref: '#/components/schemas/LicenseFileJson' }, textFile]);
    expect(ok('/anylic/{token}').content!['application/json']!.schema.anyOf).toEqual([{ $ref: '#/components/schemas/LicenseFileJson' }, textFile]);
    expect(mediaOf('/users/export/email-consent')).toEqual(['text/csv', 'application/json']);
    expect(ok('/users/export/email-consent').content!['application/json']!.schema).toEqual(textFile);
    expect(mediaOf('/client/v1/keys/{kid}.pem')).toEqual(['application/x-pem-file', 'application/json']);
    expect(ok('/client/v1/keys/{kid}.pem').content!['application/json']!.schema).toEqual(textFile);
    for (const documentPath of ['/licenses/{id}/file', '/anylic/{token}', '/users/export/email-consent', '/client/v1/keys/{kid}.pem']) {
      expect(ok(documentPath).headers, documentPath).toEqual({ 'Content-Disposition': { schema: { type: 'string' }, description: expect.stringContaining('attachment') } });
    }
    expect(document.components.schemas.TextFile).toMatchObject({ required: ['fileName', 'mediaType', 'content'] });
    // A client that reads every answer as JSON (openapi-fetch with application/json) finds one in every answer with a body.
    const withoutJson = operationsOf(document).flatMap(({ key, operation }) =>
      Object.entries(operation.responses)
        .filter(([, response]) => response.content && !response.content['application/json'])
        .map(([status]) => `${key} ${status}`),
    );
    expect(withoutJson).toEqual([]);
  });

  it('names the security of each operation: none for public ones, the session alone where tokens are refused', async () => {
    const document = await documentOf(t.app);
    expect(document.servers).toEqual([expect.objectContaining({ url: '/api' })]);
    const security = (documentPath: string, method: string) => document.paths[documentPath]![method]!.security;
    expect(security('/licenses', 'get')).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
    expect(security('/health', 'get')).toEqual([]);
    expect(security('/session', 'post')).toEqual([]);
    expect(security('/client/v1/license', 'post')).toEqual([]);
    expect(security('/api-tokens', 'post')).toEqual([{ sessionCookie: [] }]);
    expect(security('/session', 'get')).toEqual([{}, { bearerAuth: [] }, { sessionCookie: [] }]);
    // Every operation says it: a generator need not fall back on the document's default.
    expect(operationsOf(document).filter(({ operation }) => !operation.security).map(({ key }) => key)).toEqual([]);
  });

  it('asks anonymous callers to sign in exactly where the document names a security requirement', async () => {
    const document = await documentOf(t.app);
    const example: Record<string, string> = { model: 'User', category: 'new-users', key: 'theme.productName', kid: 'none', token: 'x'.repeat(43) };
    const mismatches: string[] = [];
    for (const { key, operation } of operationsOf(document)) {
      const [method, documentPath] = key.split(' ') as [string, string];
      // With a body or required query the anonymous call would be refused as malformed first; logging out needs no one.
      if (operation.requestBody || operation.parameters?.some((parameter) => parameter.in !== 'path' && 'required' in parameter && parameter.required) || key === 'DELETE /session') continue;
      const url = `/api${documentPath.replace(/\{(\w+)\}/g, (_all, name: string) => example[name] ?? (documentPath.startsWith('/account/sessions') ? 'a'.repeat(24) : '1'))}`;
      const response = await t.app.inject({ method: method as 'GET', url });
      const signInNeeded = operation.security!.length > 0 && !operation.security!.some((requirement) => Object.keys(requirement).length === 0);
      if ((response.statusCode === 401) !== signInNeeded) mismatches.push(`${key}: ${response.statusCode} but security ${JSON.stringify(operation.security)}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('refuses a query parameter the operation does not declare, naming it', async () => {
    for (const url of ['/api/licenses?userid=8', '/api/licenses/1?format=json', '/api/session?x=1', '/api/products?activ=true']) {
      const response = await request(t.app, 'GET', url, { cookie: cookies.ADMIN });
      expectError(response, 400, 'ERR_VALIDATION');
      const name = new URL(url, 'http://x').searchParams.keys().next().value!;
      expect(response.json().details, url).toEqual([expect.objectContaining({ path: name, code: 'unknownFields', params: { keys: name } })]);
      expect(response.json().message, url).toContain(name);
    }
    expect((await request(t.app, 'GET', '/api/licenses?userId=1&limit=1', { cookie: cookies.ADMIN })).statusCode).toBe(200);
  });

  it('shows /api/docs under the product name and logo, introduced by authentication, pagination, errors, files as JSON, rate limits and webhooks', async () => {
    const page = await t.app.inject({ url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<title>${DEFAULT_PRODUCT_NAME} API</title>`);
    const initializer = await t.app.inject({ url: '/api/docs/static/swagger-initializer.js' });
    const logo = Buffer.from(fs.readFileSync(fileURLToPath(new URL('../../web/public/favicon.svg', import.meta.url)), 'utf8').trim());
    expect(initializer.body).toContain(`data:image/svg+xml;base64,${logo.toString('base64')}`);
    const { info } = (await t.app.inject({ url: '/api/openapi.json' })).json() as { info: { title: string; description: string } };
    expect(info.title).toBe(`${DEFAULT_PRODUCT_NAME} API`);
    for (const heading of ['Authentication with a token', 'Pagination', 'Errors', 'Files as JSON', 'Rate limits', 'Webhooks']) expect(info.description).toContain(`## ${heading}\n`);
  });

  it('passes redocly lint without errors or warnings', async () => {
    const { documentFile } = await generateClient(t.app);
    const lint = await run([binOf('@redocly/cli', 'redocly'), 'lint', documentFile, '--config', path.join(CLIENT_DIR, 'redocly.yaml'), '--format', 'stylish']);
    expect(lint.output).toContain('Your API description is valid');
    expect(lint.output).not.toMatch(/warning|error/i);
    expect(lint.code, lint.output).toBe(0);
  });

  it('generates a typed client that tsc compiles and that works with an API token', async () => {
    const generation = await generateClient(t.app);
    expect(generation.code, generation.output).toBe(0);
    const compile = await run([binOf('typescript', 'tsc', path.join(REPO_ROOT, 'package.json')), '-p', path.join(CLIENT_DIR, 'tsconfig.json')]);
    expect(compile.output).toBe('');
    expect(compile.code).toBe(0);
    // No `as` casts, no String(…), no parseAs in what the integrator wrote.
    const usageSource = fs.readFileSync(path.join(CLIENT_DIR, 'usage.ts'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    expect(usageSource).not.toMatch(/\bas\s+[A-Z{(\w]|String\(|parseAs/);

    const created = await request(t.app, 'POST', '/api/api-tokens', { cookie: cookies.ADMIN, body: { name: 'generated client' } });
    expect(created.statusCode, created.body).toBe(201);
    const policyId = await insertPolicy(t.app);
    const product = await insertProduct(t.app, { defaultLicensePolicyId: policyId });
    const machineId = machine();
    const { integrationRound } = (await import(USAGE_MODULE)) as { integrationRound: IntegrationRound };
    const result = await integrationRound(await listeningUrl(t.app), created.json().token, product.id, policyId, machineId);

    expect(result.tan).toMatchObject({ productId: product.id, licenseCount: 2, tags: ['order-1001'] });
    expect(result.activated).toMatchObject({ machineId, revoked: false });
    expect(result.listed.map((license) => license.id)).toEqual([result.activated.id]);
    expect(decodePayload(result.file.enc)).toMatchObject({ licenseId: result.activated.id, machineId });
    // Every download came as JSON, no parser of its own: the .lic file, an ANY-Lic file, the CSV, a PEM key.
    expect(result.licFile).toMatchObject({ mediaType: 'application/octet-stream', fileName: expect.stringMatching(/\.lic$/) });
    expect(decodePayload(parseLicenseFile(result.licFile.content).enc)).toMatchObject({ licenseId: result.activated.id, machineId });
    expect(result.anyLicFile).toMatchObject({ mediaType: 'application/octet-stream', fileName: expect.stringMatching(/-ANY\.lic$/) });
    expect(decodePayload(parseLicenseFile(result.anyLicFile.content).enc)).toMatchObject({ licenseId: null, machineId: '*', product: { id: product.id } });
    expect(result.consentCsv).toMatchObject({ mediaType: 'text/csv', fileName: expect.stringMatching(/^email-consent-\d{4}-\d{2}-\d{2}\.csv$/) });
    expect(result.consentCsv.content.split('\r\n')[0]).toBe('email;firstName;lastName;company;country;language;registeredAt');
    expect(result.publicKey.pem).toEqual({ fileName: `${result.publicKey.kid}.pem`, mediaType: 'application/x-pem-file', content: result.publicKey.publicKeyPem });
    expect(result.publicKey.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(result.revoked).toMatchObject({ id: result.activated.id, revoked: true });
    expect(result.notFound.error).toBe('ERR_NOT_FOUND');
    expect(result.refusedLimit).toMatchObject({ error: 'ERR_VALIDATION', details: [expect.objectContaining({ path: 'limit' })] });
  });
});
