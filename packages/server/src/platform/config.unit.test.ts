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
  });

  it('refuses PORT=abc with a ConfigError naming the variable', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: 'abc' });
    } catch (error) {
      expect((error as Error).message).toMatch(/^Invalid configuration:/);
      expect((error as Error).message).toMatch(/PORT: /);
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
  ])('refuses %s=%s with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}: `));
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  });

  it('lists every wrong variable at once', () => {
    expect(() => loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud' })).toThrow(/PORT: [\s\S]*LOG_LEVEL: /);
  });

  it('reads a PostgreSQL URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/lm' }).database).toEqual({ kind: 'postgres', url: 'postgres://u:p@db:5432/lm' });
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/lm' }).database.kind).toBe('postgres');
  });

  it('reads a SQLite URL as a file path', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite:///var/lib/lm.db' }).database).toEqual({ kind: 'sqlite', file: '/var/lib/lm.db' });
    expect(loadConfig({ DATABASE_URL: 'sqlite:relative.db' }).database).toEqual({ kind: 'sqlite', file: 'relative.db' });
  });

  it('normalizes the public URL, the admin address and the flags', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://licenses.example.com/', ADMIN_EMAIL: 'Admin@Example.com', TRUST_PROXY: 'yes', PORT: '8080' });
    expect(config.publicUrl).toBe('https://licenses.example.com');
    expect(config.adminEmail).toBe('admin@example.com');
    expect(config.trustProxy).toBe(true);
    expect(config.port).toBe(8080);
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
  });
});
