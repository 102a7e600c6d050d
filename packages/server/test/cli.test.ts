/**
 * `npm run cli` as an operator meets it: help for each command, one readable line per mistake, no
 * side effects without a command; and `.env` read by the server, the environment winning.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, cleanEnv, HANG_GUARD_MS, PROJECT_NODE, ROOT, runCli, startServerProcess } from './processes.ts';

const COMMANDS = ['user:create', 'sso:break-glass', 'keys:rotate', 'backup', 'restore', 'seed:demo', 'seed:bench'];
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('npm run cli', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-cli-'));
  });
  afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

  it('without a command prints the commands and touches nothing (no ./data, no database)', () => {
    for (const args of [[], ['--help'], ['help']]) {
      const result = runCli(args, { cwd });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Usage: npm run cli -- <command> \[options\]/);
      for (const command of COMMANDS) expect(result.stdout).toContain(`  ${command} `);
    }
    expect(fs.readdirSync(cwd)).toEqual([]);
  });

  it('explains each command with --help, without opening a database', () => {
    const asked = [...COMMANDS.map((command) => [command, '--help']), ['restore', '-h'], ['help', 'seed:bench']];
    for (const args of asked) {
      const result = runCli(args, { cwd });
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: npm run cli -- ${args.find((arg) => COMMANDS.includes(arg))}`));
      expect(result.stdout).toContain('-h, --help');
    }
    expect(runCli(['user:create', '--help'], { cwd }).stdout).toMatch(/--email <address> +the account's e-mail address \(required\)/);
    expect(runCli(['backup', '--help'], { cwd }).stdout).toMatch(/--to <file> .*must not exist yet \(required\)/);
    expect(runCli(['restore', '--help'], { cwd }).stdout).toMatch(/--from <file>/);
    expect(fs.readdirSync(cwd)).toEqual([]);
  });

  it('prints the version', () => {
    expect(runCli(['--version'], { cwd }).stdout.trim()).toBe(VERSION);
  });

  it('reports every wrong option on a line of its own, without echoing a password, and does nothing', () => {
    const result = runCli(['user:create', '--email', 'not-an-address', '--role', 'boss', '--password', 'abc', '--colour', 'red', 'stray'], { cwd });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      'user:create: unknown option --colour',
      'user:create: unexpected argument "stray"',
      'user:create: --email: must be an e-mail address (got "not-an-address")',
      'user:create: --role: must be ADMIN, DISTRIBUTOR or USER (got "boss")',
      'user:create: --password: must be 5 to 1024 characters',
      'See `npm run cli -- user:create --help`.',
    ]);
    expect(fs.readdirSync(cwd)).toEqual([]);
  });

  it('says what is missing, and refuses an unknown command in one line', () => {
    expect(runCli(['user:create'], { cwd }).stderr.trim().split('\n')).toEqual(['user:create: --email <address> is required', 'See `npm run cli -- user:create --help`.']);
    expect(runCli(['user:create', '--email'], { cwd }).stderr).toMatch(/^user:create: --email needs a value <address>\n/);
    expect(runCli(['backup', '--to'], { cwd }).stderr).toMatch(/^backup: --to needs a value <file>\n/);
    expect(runCli(['seed:bench', '--tans', 'many'], { cwd }).stderr).toMatch(/^seed:bench: --tans: must be a whole number from 1 to 10,000,000 \(got "many"\)\n/);
    expect(runCli(['keys:rotate', '--force'], { cwd }).stderr).toMatch(/^keys:rotate: unknown option --force\n/);
    const unknown = runCli(['users:create'], { cwd });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toBe('Unknown command "users:create". Commands: user:create, sso:break-glass, keys:rotate, keys:list, keys:retire, backup, restore, seed:demo, seed:bench (npm run cli -- --help).');
    expect(fs.readdirSync(cwd)).toEqual([]);
  });

  it('stops on a wrong configuration with one line naming the variable', () => {
    const result = runCli(['keys:rotate'], { cwd, env: { PORT: 'abc', DATA_DIR: cwd } });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('Error: Invalid configuration: PORT: must be a whole number from 0 to 65535 (got "abc")');
  });

  it('runs a command on the configured database; a refusal of the application is one line', () => {
    const env = { DATA_DIR: path.join(cwd, 'data') };
    const created = runCli(['user:create', '--email', 'Grace@Example.com', '--role', 'distributor'], { cwd, env });
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Created DISTRIBUTOR grace@example\.com \(id \d+\) with the password \S{12,}$/m);
    const again = runCli(['user:create', '--email', 'grace@example.com'], { cwd, env });
    expect(again.status).toBe(1);
    expect(again.stderr.trim()).toBe('Error: grace@example.com is already registered');
    const rotated = runCli(['keys:rotate'], { cwd, env });
    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/^New signing key \S+;/);
  });
});

describe('.env in the working directory of the server', () => {
  it('is read, and the environment wins over it', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-dotenv-'));
    const token = 'dotenv-metrics-token-0123456789';
    // PORT in the file loses to the PORT the test sets; METRICS_TOKEN only the file sets.
    fs.writeFileSync(path.join(cwd, '.env'), `# the installation's settings\nPORT=1\nMETRICS_TOKEN=${token}\nLOG_LEVEL=warn\n`);
    const server = await startServerProcess({ cwd });
    try {
      expect((await call(`${server.url}/metrics`)).status).toBe(401);
      const scrape = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toContain('license_manager_info{');
    } finally {
      await server.stop();
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('the server that cannot start', () => {
  const start = (env: Record<string, string>, cwd: string) =>
    spawnSync(PROJECT_NODE, [path.join(ROOT, 'packages/server/src/main.ts')], { cwd, env: cleanEnv({ DATA_DIR: cwd, LOG_LEVEL: 'warn', ...env }), encoding: 'utf8', timeout: HANG_GUARD_MS });

  it('says why in one line: a wrong setting, a port in use', async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-start-'));
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const wrong = start({ PORT: '3000', LOG_LEVEL: 'loud', PUBLIC_URL: 'licenses.example.com' }, cwd);
      expect(wrong.status).toBe(1);
      expect(wrong.stderr.trim()).toBe(
        'Cannot start: Invalid configuration: PUBLIC_URL: must be an http:// or https:// address (got "licenses.example.com"); LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      );
      const port = (taken.address() as net.AddressInfo).port;
      const busy = start({ PORT: String(port), HOST: '127.0.0.1' }, cwd);
      expect(busy.status).toBe(1);
      expect(busy.stderr.trim()).toBe(`Cannot start: port ${port} on 127.0.0.1 is already in use; stop the program that uses it or set PORT to another port.`);
    } finally {
      taken.close();
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});
