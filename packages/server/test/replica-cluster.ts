/**
 * A real PostgreSQL primary with a streaming replica on 127.0.0.1, for the read-replica tests: a
 * cluster of its own (initdb) so that pg_basebackup copies a few megabytes, not whatever else the
 * machine's server holds, and both run as the postgres user (PostgreSQL refuses to run as root).
 * Waits are for the servers' own signals (pg_ctl -w, a replay position reached), not for a clock.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const BIN = fs.existsSync('/usr/lib/postgresql')
  ? path.join('/usr/lib/postgresql', fs.readdirSync('/usr/lib/postgresql').sort().at(-1)!, 'bin')
  : '';

/** Whether this machine can make such a cluster: PostgreSQL's programs and a postgres user to run them as. */
export const canMakeReplicaCluster = ((): boolean => {
  try {
    return Boolean(BIN) && fs.existsSync(path.join(BIN, 'pg_basebackup')) && execFileSync('id', ['-u', 'postgres']).length > 0;
  } catch {
    return false;
  }
})();

/** Two distinct free ports: both are held while the second is chosen, so the system cannot hand out the first again. */
async function twoFreePorts(): Promise<[number, number]> {
  const listen = () =>
    new Promise<net.Server>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
  const servers = [await listen(), await listen()];
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port) as [number, number];
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

function asPostgres(program: string, args: string[]): string {
  const command = process.getuid?.() === 0 ? 'runuser' : path.join(BIN, program);
  const commandArgs = process.getuid?.() === 0 ? ['-u', 'postgres', '--', path.join(BIN, program), ...args] : args;
  return execFileSync(command, commandArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface ReplicaCluster {
  primaryUrl: string;
  replicaUrl: string;
  /** Holds every change back on the replica for this long (recovery_min_apply_delay): lag on demand. */
  delayReplay(ms: number): Promise<void>;
  /** Waits until the replica has replayed everything the primary wrote so far. */
  caughtUp(): Promise<void>;
  stopReplica(): void;
  startReplica(): void;
  promoteReplica(): void;
  close(): Promise<void>;
}

export async function makeReplicaCluster(): Promise<ReplicaCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-replicas-'));
  fs.chmodSync(dir, 0o777);
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  const [primaryPort, replicaPort] = await twoFreePorts();
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const settings = (port: number) =>
    [`port = ${port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`, 'fsync = off', 'full_page_writes = off', 'max_wal_senders = 4', 'wal_level = replica', 'hot_standby = on'].join('\n');
  // A server that does not start says why (its log) instead of leaving the test to its hook's timeout.
  const ctl = (dataDir: string, ...args: string[]) => {
    try {
      return asPostgres('pg_ctl', ['-D', dataDir, '-l', `${dataDir}.log`, '-w', '-t', '180', ...args]);
    } catch (error) {
      const log = fs.existsSync(`${dataDir}.log`) ? fs.readFileSync(`${dataDir}.log`, 'utf8').slice(-2000) : '(no log)';
      throw new Error(`pg_ctl ${args.join(' ')} failed for ${dataDir}: ${(error as Error).message}\n${log}`);
    }
  };

  asPostgres('initdb', ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions']);
  fs.appendFileSync(path.join(primaryDir, 'postgresql.conf'), `\n${settings(primaryPort)}\n`);
  ctl(primaryDir, 'start');
  asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
  fs.appendFileSync(path.join(replicaDir, 'postgresql.conf'), `\n${settings(replicaPort)}\n`);
  ctl(replicaDir, 'start');

  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/postgres`;
  const query = async <Row extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<Row>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  let stopped = false;
  return {
    primaryUrl,
    replicaUrl,
    async delayReplay(ms) {
      await query(replicaUrl, `alter system set recovery_min_apply_delay = '${Math.round(ms)}ms'`);
      await query(replicaUrl, 'select pg_reload_conf()');
    },
    async caughtUp() {
      const [{ position }] = await query<{ position: string }>(primaryUrl, 'select pg_current_wal_lsn()::text as position');
      for (;;) {
        const [{ replayed }] = await query<{ replayed: boolean }>(replicaUrl, 'select pg_last_wal_replay_lsn() >= $1::pg_lsn as replayed', [position]);
        if (replayed) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stopReplica() {
      ctl(replicaDir, 'stop', '-m', 'immediate');
      stopped = true;
    },
    startReplica() {
      ctl(replicaDir, 'start');
      stopped = false;
    },
    promoteReplica() {
      ctl(replicaDir, 'promote');
    },
    async close() {
      if (!stopped) ctl(replicaDir, 'stop', '-m', 'immediate');
      ctl(primaryDir, 'stop', '-m', 'immediate');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
