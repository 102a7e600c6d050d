/**
 * A start beside its database (compose): the server waits up to DATABASE_WAIT_SECONDS for PostgreSQL
 * to take connections (platform/db/wait.ts), then starts; a database that never comes stops it with
 * the refusal, once the time is up.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config.ts';
import { waitForDatabase } from '../src/platform/db/wait.ts';
import { POSTGRES_URL, postgresReachable } from './harness.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

describe.skipIf(!postgresReachable)('waiting for the database at start', () => {
  let proxy: TcpProxy | undefined;
  afterAll(() => proxy?.close());
  const target = new URL(POSTGRES_URL);
  const configVia = (port: number, seconds: number) => {
    const url = new URL(POSTGRES_URL);
    url.port = String(port);
    url.hostname = '127.0.0.1';
    return loadConfig({ DATABASE_URL: url.href, DATABASE_WAIT_SECONDS: String(seconds), LOG_LEVEL: 'silent' });
  };

  it('starts once PostgreSQL comes up, having said that it waits', async () => {
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.cut();
    const said: string[] = [];
    const waiting = waitForDatabase(configVia(proxy.port, 60), (text) => said.push(text));
    await expect.poll(() => said.length, { timeout: 10_000 }).toBe(1);
    await proxy.restore();
    await waiting;
    expect(said[0]).toMatch(/^waiting up to 60 s for the database \(ECONNREFUSED\)$/);
    expect(said.at(-1)).toBe('the database answers; starting');
  });

  it('gives up with the refusal when the time is up', async () => {
    await proxy!.cut();
    await expect(waitForDatabase(configVia(proxy!.port, 1), () => undefined)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
