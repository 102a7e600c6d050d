import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';
import { loadEnvFile } from './env-file.ts';

describe('.env in the working directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-env-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const envFile = (text: string) => {
    const file = path.join(dir, '.env');
    fs.writeFileSync(file, text);
    return file;
  };

  it('is read into the environment, comments, quotes and export prefixes understood', () => {
    const file = envFile('# production\nPORT=4000\nexport LOG_LEVEL=warn\nMAIL_FROM="Licenses <licenses@example.com>" # the sender\nSECRET_KEY=\'a very secret key #1\'\n');
    const env: Record<string, string | undefined> = {};
    expect(loadEnvFile(file, env)).toBe(file);
    expect(env).toEqual({ PORT: '4000', LOG_LEVEL: 'warn', MAIL_FROM: 'Licenses <licenses@example.com>', SECRET_KEY: 'a very secret key #1' });
    const config = loadConfig(env);
    expect(config.port).toBe(4000);
    expect(config.mailFrom).toBe('Licenses <licenses@example.com>');
  });

  it('loses to the environment: a variable set there keeps its value; an empty one counts as unset', () => {
    const env: Record<string, string | undefined> = { PORT: '5000', LOG_LEVEL: '' };
    loadEnvFile(envFile('PORT=4000\nLOG_LEVEL=debug\nHOST=127.0.0.1\n'), env);
    expect(env).toEqual({ PORT: '5000', LOG_LEVEL: 'debug', HOST: '127.0.0.1' });
  });

  it('is optional: without the file nothing changes', () => {
    const env: Record<string, string | undefined> = { PORT: '5000' };
    expect(loadEnvFile(path.join(dir, '.env'), env)).toBeNull();
    expect(env).toEqual({ PORT: '5000' });
  });

  it('that cannot be read stops the start with one line naming it', () => {
    fs.mkdirSync(path.join(dir, '.env'));
    expect(() => loadEnvFile(path.join(dir, '.env'), {})).toThrow(ConfigError);
    expect(() => loadEnvFile(path.join(dir, '.env'), {})).toThrow(/^Cannot read .*\.env: [^\n]+$/);
  });
});
