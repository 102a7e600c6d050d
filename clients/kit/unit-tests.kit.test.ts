/**
 * Each client's own unit tests (they read the shared test vectors), for the clients whose tests are
 * not vitest files: every executable `clients/<lang>/unit-tests` runs here and must exit 0.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { CLIENTS_DIR } from './support.ts';

const withUnitTests = fs.readdirSync(CLIENTS_DIR).filter((name) => {
  try {
    fs.accessSync(path.join(CLIENTS_DIR, name, 'unit-tests'), fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
});

it('finds the clients with unit tests of their own', () => {
  expect(withUnitTests).toEqual(expect.arrayContaining(['c', 'java', 'python']));
});

it.each(withUnitTests)('clients/%s/unit-tests pass', async (client) => {
  const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
    execFile(path.join(CLIENTS_DIR, client, 'unit-tests'), { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` }));
  });
  expect(result.code, result.output).toBe(0);
});
