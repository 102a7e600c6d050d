import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has safe defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.database).toEqual({ kind: 'sqlite', file: path.join(path.resolve('./data'), 'license-manager.db') });
    expect(config.publicUrl).toBe('http://localhost:3000');
    expect(config.trustProxy).toBe(false);
    expect(config.adminEmail).toBe('admin@localhost.localdomain');
    expect(config.adminPassword).toBeUndefined();
    expect(config.rateLimits).toBe(true);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).port).toBe(3000);
    // What a compose file hands on for an optional variable left empty (issue 49).
    expect(loadConfig({ SMTP_URL: '', ADMIN_PASSWORD: '', DATABASE_WAIT_SECONDS: '' })).toMatchObject({ smtpUrl: undefined, adminPassword: undefined, databaseWaitSeconds: 0 });
  });

  it('reads DATABASE_WAIT_SECONDS as whole seconds', () => {
    expect(loadConfig({ DATABASE_WAIT_SECONDS: '120' }).databaseWaitSeconds).toBe(120);
    expect(() => loadConfig({ DATABASE_WAIT_SECONDS: '-1' })).toThrow('DATABASE_WAIT_SECONDS: must be a whole number of seconds (got "-1")');
  });

  it('refuses PORT=abc with one line naming the variable, what it must be and what it got', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/^Invalid configuration: PORT: must be a whole number from 0 to 65535 \(got "abc"\)$/);
  });

  it('never shows back a value that may hold a password', () => {
    for (const [name, value] of [
      ['DATABASE_URL', 'mysql://root:hunter22@db/lm'],
      ['SMTP_URL', 'http://user:hunter22@mail'],
      ['SECRET_KEY', 'hunter22'],
      ['ADMIN_PASSWORD', 'hun'],
      ['METRICS_TOKEN', 'hunter22'],
    ]) {
      expect(() => loadConfig({ [name]: value }), name).toThrow(new RegExp(`^Invalid configuration: ${name}: `));
      expect(() => loadConfig({ [name]: value }), name).not.toThrow(/hun/);
    }
  });

  it.each([
    ['PORT', '70000'],
    ['PORT', '3000.5'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['PUBLIC_URL', 'not a url'],
    ['SMTP_URL', 'http://mail.example.com'],
    ['SECRET_KEY', 'short'],
    ['TRUST_PROXY', 'maybe'],
    ['ADMIN_EMAIL', 'not-an-address'],
    ['ADMIN_PASSWORD', 'abc'],
    ['LOG_LEVEL', 'loud'],
    ['METRICS_TOKEN', 'too-short'],
  ])('refuses %s=%s with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}: `));
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  });

  it('lists every wrong variable at once, on one line', () => {
    expect(() => loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud' })).toThrow(/^Invalid configuration: PORT: [^\n]*; LOG_LEVEL: [^\n]*$/);
  });

  it('reads METRICS_TOKEN', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a-long-enough-token' }).metricsToken).toBe('a-long-enough-token');
  });

  it.each([
    ['false', false],
    ['0', false],
    ['true', 1],
    ['2', 2],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8, 192.168.1.10,fd00::/8', ['10.0.0.0/8', '192.168.1.10', 'fd00::/8']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']],
  ])('reads TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['10.0.0.0/33', '10.0.0', 'proxy.example.com', '1.2.3.4/8/1', '::1/129', '-1'])('refuses TRUST_PROXY=%s, naming what is wrong', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY: must be false, a number of proxy hops, or proxy addresses/);
  });

  it('reads a PostgreSQL URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/lm' }).database).toEqual({ kind: 'postgres', url: 'postgres://u:p@db:5432/lm' });
    expect(loadConfig({ DATABASE_URL: 'postgres://db/lm', DATABASE_POOL_SIZE: '50' }).database).toEqual({ kind: 'postgres', url: 'postgres://db/lm', poolSize: 50 });
    expect(loadConfig({}).stopGraceSeconds).toBe(8);
    expect(() => loadConfig({ STOP_GRACE_SECONDS: '0' })).toThrow(/STOP_GRACE_SECONDS: must be a whole number of seconds/);
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/lm' }).database.kind).toBe('postgres');
  });

  it('reads read replicas, with their timing, for a PostgreSQL database only', () => {
    const env = { DATABASE_URL: 'postgres://db/lm', DATABASE_READ_URL: 'postgres://r1/lm, postgresql://r2/lm' };
    expect(loadConfig(env).database).toEqual({ kind: 'postgres', url: 'postgres://db/lm', replicas: { urls: ['postgres://r1/lm', 'postgresql://r2/lm'], maxLagMs: 1000, readYourWritesMs: 5000 } });
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://r1/lm' })).toThrow(/DATABASE_READ_URL: read replicas need a PostgreSQL DATABASE_URL/);
    expect(() => loadConfig({ ...env, DATABASE_READ_URL: 'mysql://r1/lm' })).toThrow(/DATABASE_READ_URL: must be postgres:\/\/ or postgresql:\/\/ URLs/);
    expect(() => loadConfig({ ...env, READ_REPLICA_MAX_LAG_MS: '5000' })).toThrow(/READ_YOUR_WRITES_MS: must be at least READ_REPLICA_MAX_LAG_MS \+ 1000 \(6000\)/);
    expect(loadConfig({ ...env, DATABASE_READ_URL: '' }).database).toEqual({ kind: 'postgres', url: 'postgres://db/lm' });
  });

  it('reads a SQLite URL as a file path', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:///var/lib/lm.db' }).database).toEqual({ kind: 'sqlite', file: '/var/lib/lm.db' });
    expect(loadConfig({ DATABASE_URL: 'sqlite:relative.db' }).database).toEqual({ kind: 'sqlite', file: 'relative.db' });
  });

  it('normalizes the public URL, the admin address and the flags', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://licenses.example.com/', ADMIN_EMAIL: 'Admin@Example.com', TRUST_PROXY: 'yes', PORT: '8080' });
    expect(config.publicUrl).toBe('https://licenses.example.com');
    expect(config.adminEmail).toBe('admin@example.com');
    expect(config.trustProxy).toBe(1);
    expect(config.port).toBe(8080);
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
  });
});
