/**
 * The server process as systemd or a container runtime drives it: SIGTERM (to `npm start` too)
 * stops it within 10 s after the requests in flight have finished, and a first start that cannot
 * listen creates no administrator whose one-time password nobody saw.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { call, cleanEnv, freePort, HANG_GUARD_MS, holdWriteLock, PROJECT_NODE, ROOT, startServerProcess } from './processes.ts';

const ADMIN = { ADMIN_EMAIL: 'admin@lifecycle.test', ADMIN_PASSWORD: 'lifecycle-secret' };

const exited = (child: { exitCode: number | null; once(event: 'exit', listener: () => void): unknown }) =>
  new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));

async function refusesConnections(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/api/health`);
    return false;
  } catch {
    return true;
  }
}

describe('stopping the server', () => {
  it('finishes a request in flight on SIGTERM, then exits 0 and takes no new connections', async () => {
    const server = await startServerProcess({ env: ADMIN });
    try {
      const { cookie } = await call(`${server.url}/api/session`, { body: { username: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD } });
      // A request whose body is still arriving when the signal comes.
      const body = JSON.stringify({ name: 'sent-while-stopping' });
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.request(
          `${server.url}/api/features`,
          { method: 'POST', headers: { cookie: cookie!, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () => resolve({ status: response.statusCode!, body: text }));
          },
        );
        request.on('error', reject);
        request.write(body.slice(0, 10));
        setTimeout(() => {
          process.kill(server.pid, 'SIGTERM');
          setTimeout(() => request.end(body.slice(10)), 500);
        }, 200);
      });
      const started = Date.now();
      expect(await answer).toMatchObject({ status: 201 });
      expect(await server.exited()).toBe(0);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await refusesConnections(server.url)).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('answers a request that arrives while stopping 503 ERR_SHUTTING_DOWN with Retry-After and Connection: close, and finishes the one in flight', async () => {
    const server = await startServerProcess({ env: { ...ADMIN, LOG_LEVEL: 'info' } });
    const sockets: net.Socket[] = [];
    try {
      const { cookie } = await call(`${server.url}/api/session`, { body: { username: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD } });
      const { port } = new URL(server.url);
      const open = () =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect(Number(port), '127.0.0.1', () => resolve(socket));
          sockets.push(socket);
        });
      const received = (socket: net.Socket) => {
        let data = '';
        socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
        return {
          text: () => data,
          until: (test: (text: string) => boolean) =>
            new Promise<string>((resolve, reject) => {
              const check = () => test(data) && resolve(data);
              socket.on('data', check);
              socket.on('close', () => (test(data) ? resolve(data) : reject(new Error(`closed after: ${JSON.stringify(data)}`))));
              check();
            }),
        };
      };
      const body = JSON.stringify({ name: 'in-flight-at-stop' });
      const head = (length: number, extra = '') =>
        `POST /api/features HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}`;
      // In flight: "100 Continue" says the server has taken the request (its checks are behind it).
      const inFlight = await open();
      const inFlightData = received(inFlight);
      inFlight.write(`${head(Buffer.byteLength(body), 'Expect: 100-continue\r\n')}\r\n`);
      await inFlightData.until((text) => text.startsWith('HTTP/1.1 100'));
      // Arriving: its headers are on the way (the connection is not idle, so it stays open).
      const arriving = await open();
      const arrivingData = received(arriving);
      arriving.write(head(2));
      // An answer on a third connection: the server has read what was sent before it.
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);

      process.kill(server.pid, 'SIGTERM');
      while (!server.output().includes('stopping: finishing the requests in flight')) await new Promise((resolve) => setTimeout(resolve, 50));
      arriving.write('\r\n{}');
      const refused = await arrivingData.until((text) => text.includes('\r\n\r\n{') && text.trimEnd().endsWith('}'));
      expect(refused).toMatch(/^HTTP\/1\.1 503 /);
      expect(refused).toMatch(/\r\nretry-after: \d+\r\n/i);
      expect(refused).toMatch(/\r\nconnection: close\r\n/i);
      expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: 'ERR_SHUTTING_DOWN' });

      inFlight.write(body);
      const finished = await inFlightData.until((text) => /HTTP\/1\.1 201[\s\S]*\r\n\r\n\{[\s\S]*\}$/.test(text));
      expect(finished).toContain('in-flight-at-stop');
      expect(await server.exited()).toBe(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await server.stop();
    }
  });

  it('answers a request still running when STOP_GRACE_SECONDS ends 503 ERR_SHUTTING_DOWN, never a reset connection', async () => {
    const server = await startServerProcess({ env: { ...ADMIN, STOP_GRACE_SECONDS: '1', LOG_LEVEL: 'info' } });
    let lock: Awaited<ReturnType<typeof holdWriteLock>> | undefined;
    try {
      const { cookie } = await call(`${server.url}/api/session`, { body: { username: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD } });
      // A slow write: it waits for the write lock another program holds (SQLite lets it wait 15 s).
      lock = await holdWriteLock(path.join(server.dataDir, 'license-manager.db'));
      const write = call(`${server.url}/api/features`, { body: { name: 'slow-at-stop' }, cookie });
      while (!/license_manager_db_pool_lock_waiting 1/.test(await (await fetch(`${server.url}/metrics`)).text())) await new Promise((resolve) => setTimeout(resolve, 20));
      const started = Date.now();
      process.kill(server.pid, 'SIGTERM');
      const answer = await write;
      expect(answer).toMatchObject({ status: 503, body: { error: 'ERR_SHUTTING_DOWN' } });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(await server.exited()).toBe(1);
      expect(server.output()).toMatch(/requests still running after STOP_GRACE_SECONDS/);
    } finally {
      await lock?.release();
      await server.stop();
    }
  });

  it('stops `npm start` and its server on SIGTERM to npm', async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-npm-start-'));
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: cleanEnv({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', WEB_DIST: path.join(dataDir, 'no-web-app'), ...ADMIN }),
      stdio: 'ignore',
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      for (let waited = 0; await refusesConnections(url); waited += 200) {
        if (waited > 60_000 || npm.exitCode !== null) throw new Error('npm start did not come up');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const started = Date.now();
      npm.kill('SIGTERM');
      await exited(npm);
      for (let waited = 0; !(await refusesConnections(url)); waited += 200) {
        if (waited > 10_000) throw new Error('the server still answers 10 s after npm was stopped');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the first start', () => {
  it('creates the administrator only once the port is open, so a start that cannot listen leaves the password to the next one', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-first-start-'));
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const busy = spawnSync(PROJECT_NODE, [path.join(ROOT, 'packages/server/src/main.ts')], {
        cwd: dataDir,
        env: cleanEnv({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }),
        encoding: 'utf8',
        timeout: HANG_GUARD_MS,
      });
      expect(busy.status).toBe(1);
      expect(busy.stdout).not.toContain('administrator');
      const database = new DatabaseSync(path.join(dataDir, 'license-manager.db'));
      expect(database.prepare('select count(*) as count from users').get()).toEqual({ count: 0 });
      database.close();

      const server = await startServerProcess({ env: { DATA_DIR: dataDir } });
      try {
        // Announced right after the port opened, so possibly a moment after the first answer.
        for (let waited = 0; !server.output().includes('with the password') && waited < 5000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
        // Not a terminal: one JSON line among the log's, with the banner's words.
        const line = server.output().split('\n').find((candidate) => candidate.includes('first-administrator'));
        expect(line, server.output()).toBeDefined();
        const announced = /as (\S+) with the password (\S+)/.exec(JSON.parse(line!).msg);
        expect(announced, server.output()).not.toBeNull();
        expect(server.output().split('\n').filter(Boolean).every((text) => text.startsWith('{'))).toBe(true);
        const login = await call(`${server.url}/api/session`, { body: { username: announced![1], password: announced![2] } });
        expect(login.status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      taken.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
