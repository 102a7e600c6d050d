/**
 * The built web app's files: sent pre-compressed in the encoding the browser accepts (brotli, gzip,
 * else as they are) with Vary: Accept-Encoding; hashed assets cached for a year as immutable and
 * without the security headers only documents act on; index.html (also as the history-mode
 * fallback) revalidated every time.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.ts';

const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;
const FALLBACK = "window.addEventListener('error', function () {}, true);";
const PAGE = `<!doctype html><html><head><script>${FALLBACK}</script><script type="module" src="/assets/app-Ab12Cd34.js"></script></head><body>${'<p>hello</p>'.repeat(100)}</body></html>`;

describe('web app files', () => {
  let dist: string;
  let test: TestApp;

  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-web-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    const write = (name: string, text: string) => {
      fs.writeFileSync(path.join(dist, name), text);
      fs.writeFileSync(path.join(dist, `${name}.br`), brotliCompressSync(Buffer.from(text)));
      fs.writeFileSync(path.join(dist, `${name}.gz`), gzipSync(Buffer.from(text)));
    };
    write('index.html', PAGE);
    write('assets/app-Ab12Cd34.js', SCRIPT);
    fs.writeFileSync(path.join(dist, 'version.json'), '{"hash":"abc"}');
    test = await createTestApp('sqlite', { env: { WEB_DIST: dist } });
  });
  afterAll(async () => {
    await test.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  const get = (url: string, acceptEncoding?: string) => test.app.inject({ method: 'GET', url, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });

  it('sends a hashed asset pre-compressed, immutable, without document-only headers', async () => {
    const brotli = await get('/assets/app-Ab12Cd34.js', 'gzip, deflate, br, zstd');
    expect(brotli.statusCode).toBe(200);
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers.vary).toContain('accept-encoding');
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(brotli.rawPayload).toString()).toBe(SCRIPT);
    expect(brotli.headers['content-security-policy']).toBeUndefined();
    expect(brotli.headers['x-frame-options']).toBeUndefined();
    expect(brotli.headers['x-content-type-options']).toBe('nosniff');

    const gzip = await get('/assets/app-Ab12Cd34.js', 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(SCRIPT);

    const plain = await get('/assets/app-Ab12Cd34.js', '');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('accept-encoding');
    expect(plain.body).toBe(SCRIPT);
  });

  it('answers pages with index.html, compressed and revalidated, with the security headers', async () => {
    for (const url of ['/', '/tans', '/users/5/licenses/offline']) {
      const response = await get(url, 'br');
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-encoding']).toBe('br');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      expect(brotliDecompressSync(response.rawPayload).toString()).toBe(PAGE);
    }
    expect((await get('/version.json')).headers['cache-control']).toBe('no-cache');
  });

  it('does not route the compressed copies as files of their own, and keeps unknown API paths JSON', async () => {
    expect((await get('/assets/app-Ab12Cd34.js.br')).statusCode).toBe(404);
    const api = await get('/api/nothing-here');
    expect(api.statusCode).toBe(404);
    expect(api.json().error).toBe('ERR_NOT_FOUND');
  });

  it('allows index.html’s inline fallback script by its hash, and no other inline script', async () => {
    const csp = (await get('/')).headers['content-security-policy'] as string;
    const scriptSrc = csp.split(';').find((part) => part.trim().startsWith('script-src'))!.trim();
    expect(scriptSrc).toBe(`script-src 'self' 'sha256-${createHash('sha256').update(FALLBACK).digest('base64')}'`);
  });
});
