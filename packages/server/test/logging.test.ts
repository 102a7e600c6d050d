/**
 * The log at the default level is read by people: one line per request, no secret in it (reset and
 * confirmation links, ANY-Lic links, tokens, cookies), a client's broken request is no fault of the
 * server's, and the public health check tells no one where the database lives.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeEach, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { describeBothDatabases } from './harness.ts';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  url?: string;
  statusCode?: number;
  [key: string]: unknown;
}

const INFO = 30;
const WARN = 40;

/** Every line the apps logged, and a way to wait for one (by the line itself arriving, not a clock). */
const lines: LogLine[] = [];
let text = '';
const waiters: { test: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    text += chunk.toString();
    for (const raw of chunk.toString().split('\n').filter(Boolean)) {
      const line = JSON.parse(raw) as LogLine;
      lines.push(line);
      for (const waiter of waiters.filter((candidate) => candidate.test(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
    done();
  },
});
const logged = (test: (line: LogLine) => boolean) =>
  new Promise<LogLine>((resolve) => {
    const earlier = lines.find(test);
    if (earlier) resolve(earlier);
    else waiters.push({ test, resolve });
  });

const webDist = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-logging-web-'));
fs.mkdirSync(path.join(webDist, 'assets'));
fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>app</title>');
fs.writeFileSync(path.join(webDist, 'assets', 'app-1a2b3c.js'), 'console.log(1)');
afterAll(() => fs.rmSync(webDist, { recursive: true, force: true }));

/** The lines of one request (Fastify's request id ties them together). */
const linesOf = (reqId: string) => lines.filter((line) => line.reqId === reqId);

/** Sends raw bytes to a listening app and resolves once the connection is closed. */
function sendRaw(app: App, bytes: string, closeAfterWrite: boolean): Promise<void> {
  const { port } = app.server.address() as net.AddressInfo;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(bytes);
      if (closeAfterWrite) socket.end();
    });
    socket.on('data', () => undefined);
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

describeBothDatabases(
  'logging',
  (t) => {
    // Request ids count from 1 in every app: each test reads the lines of its own app only.
    beforeEach(() => {
      lines.length = 0;
      text = '';
    });

    it('writes one line per request at info, with the secrets of links, tokens and cookies left out', async () => {
      const secrets = ['RESETSECRET123', 'CONFIRMSECRET456', 'ANYLICSECRET789', 'lmat_BEARERSECRET', 'COOKIESECRET000', 'CHANGESECRET111'];
      const requests = [
        { url: `/reset-password?token=${secrets[0]}` },
        { url: `/register/confirm?id=12&token=${secrets[1]}&lang=de` },
        { url: `/api/anylic/${secrets[2]}` },
        { url: '/api/session', headers: { authorization: `Bearer ${secrets[3]}` } },
        { url: '/api/session', headers: { cookie: `lm_session=${secrets[4]}` } },
        { url: `/account/change-email?token=${secrets[5]}` },
      ];
      for (const request of requests) await t.app.inject(request);
      const requestLines = lines.filter((line) => line.msg === 'request');
      for (const request of requests) {
        const path = request.url.split(/[?]/)[0].replace(/ANYLICSECRET789/, '[redacted]');
        const ofThis = requestLines.filter((line) => line.url?.split('?')[0] === path);
        expect(ofThis.length, path).toBeGreaterThanOrEqual(1);
        expect(ofThis.every((line) => line.level === INFO && typeof line.statusCode === 'number')).toBe(true);
      }
      expect(requestLines.find((line) => line.url?.startsWith('/register/confirm'))?.url).toBe('/register/confirm?id=12&token=[redacted]&lang=de');
      for (const secret of secrets) expect(text).not.toContain(secret);
      // One line per request: Fastify's own pair is off.
      expect(lines.filter((line) => line.msg === 'incoming request' || line.msg === 'request completed')).toEqual([]);
      const perRequest = new Map<string, number>();
      for (const line of requestLines) perRequest.set(line.reqId!, (perRequest.get(line.reqId!) ?? 0) + 1);
      expect([...perRequest.values()].every((count) => count === 1)).toBe(true);
    });

    it('logs the web app’s files below info, its pages at info', async () => {
      expect((await t.app.inject({ url: '/assets/app-1a2b3c.js' })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/licenses' })).statusCode).toBe(200);
      expect(lines.find((line) => line.msg === 'request' && line.url === '/assets/app-1a2b3c.js')?.level).toBeLessThan(INFO);
      expect(lines.find((line) => line.msg === 'request' && line.url === '/licenses')?.level).toBe(INFO);
    });

    it('logs a body the client broke off, or sent in a broken chunked encoding, once at info: no warning, no error', async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const head = (marker: string, extra: string) =>
        `POST /api/features?case=${marker} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}\r\n`;
      const cases = {
        aborted: head('aborted', 'Content-Length: 100\r\n') + '{"name":',
        chunkSize: head('chunkSize', 'Transfer-Encoding: chunked\r\n') + 'XYZ\r\n{"a":1}\r\n0\r\n\r\n',
        chunkCut: head('chunkCut', 'Transfer-Encoding: chunked\r\n') + '7\r\n{"a":1}\r\n',
        chunkEnd: head('chunkEnd', 'Transfer-Encoding: chunked\r\n') + '7\r\n{"a":1}XX0\r\n\r\n',
      };
      const before = lines.length;
      for (const [marker, bytes] of Object.entries(cases)) {
        await sendRaw(t.app, bytes, true);
        await logged((line) => line.msg === 'request broken off by the client' && line.url === `/api/features?case=${marker}`);
      }
      const these = lines.slice(before);
      expect(these.filter((line) => line.level >= WARN)).toEqual([]);
      expect(these.filter((line) => line.level >= INFO && line.msg !== 'request broken off by the client' && line.msg !== 'request')).toEqual([]);
      for (const marker of Object.keys(cases)) {
        const reqIds = new Set(these.filter((line) => line.url === `/api/features?case=${marker}`).map((line) => line.reqId));
        for (const reqId of reqIds) expect(linesOf(reqId!).filter((line) => line.level >= INFO)).toHaveLength(1);
      }
    });

    it('tells anyone but a signed-in administrator only that the database is unavailable; the reason goes to the log', async () => {
      const app = await t.newApp({ logStream });
      const unreachable = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none', connectionTimeoutMillis: 5000 }) }) });
      const db = app.ctx.db;
      Object.assign(app.ctx, { db: unreachable });
      try {
        const outside = await app.inject({ url: '/api/health', remoteAddress: '203.0.113.9' });
        expect(outside.statusCode).toBe(503);
        expect(outside.headers['retry-after']).toBeDefined();
        expect(outside.json()).toEqual({ status: 'unavailable', database: t.kind });
        const throughProxy = await app.inject({ url: '/api/health', headers: { 'x-forwarded-for': '203.0.113.9' } });
        expect(throughProxy.json()).toEqual({ status: 'unavailable', database: t.kind });
        // A caller on the machine itself, not signed in, learns no more (issue 47: a reverse proxy on the
        // same machine made every caller look local); the reason, with host and port, is in the log.
        const local = await app.inject({ url: '/api/health' });
        expect(local.json()).toEqual({ status: 'unavailable', database: t.kind });
        const warning = await logged((line) => line.msg === 'health: the database does not answer');
        expect(warning.level).toBe(WARN);
        expect(JSON.stringify(warning.err)).toContain('ECONNREFUSED');
      } finally {
        Object.assign(app.ctx, { db });
        await unreachable.destroy();
      }
      expect((await app.inject({ url: '/api/health', remoteAddress: '203.0.113.9' })).json()).toEqual({ status: 'ok', database: t.kind });
    });
  },
  { env: { LOG_LEVEL: 'debug', WEB_DIST: webDist }, logStream },
);
