import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planStart, webBuildInputsHash, webBuildState } from './web-build.ts';

/** A checkout's web app in miniature: its inputs and, once "built", a dist with the recorded hash. */
describe('the web build that npm start reuses', () => {
  let root: string;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  const markBuilt = () => {
    write('packages/web/dist/index.html', '<!doctype html>');
    write('packages/web/dist/.build-inputs', `${webBuildInputsHash(root)}\n`);
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-web-build-'));
    write('packages/web/src/main.tsx', 'render()');
    write('packages/web/index.html', '<div id="root"></div>');
    write('packages/contract/src/index.ts', 'export const a = 1;');
    write('package-lock.json', '{}');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is missing before the first build and current right after it', () => {
    expect(webBuildState(root)).toBe('missing');
    markBuilt();
    expect(webBuildState(root)).toBe('current');
  });

  it('is stale when a source of the web app or the contract, or a locked version, changed', () => {
    for (const [file, text] of [
      ['packages/web/src/main.tsx', 'render(2)'],
      ['packages/web/src/locales/de.json', '{}'],
      ['packages/contract/src/index.ts', 'export const a = 2;'],
      ['package-lock.json', '{"lockfileVersion":3}'],
    ]) {
      markBuilt();
      write(file, text);
      expect(webBuildState(root), file).toBe('stale');
    }
  });

  it('ignores what does not go into the bundle: tests, the server, the build itself', () => {
    markBuilt();
    write('packages/web/src/main.test.ts', 'it()');
    write('packages/contract/src/index.test.ts', 'it()');
    write('packages/server/src/app.ts', 'listen()');
    write('packages/web/dist/assets/extra.js', '');
    expect(webBuildState(root)).toBe('current');
  });

  it('is stale when the build has no record of its inputs (built with plain vite)', () => {
    markBuilt();
    fs.rmSync(path.join(root, 'packages/web/dist/.build-inputs'));
    expect(webBuildState(root)).toBe('stale');
  });

  it('serves a current build, builds otherwise, and without build tools refuses in one line that says what to run', () => {
    expect(planStart('current', false)).toEqual({ action: 'serve' });
    expect(planStart('current', true)).toEqual({ action: 'serve' });
    expect(planStart('missing', true)).toMatchObject({ action: 'build' });
    expect(planStart('stale', true)).toMatchObject({ action: 'build' });
    for (const state of ['missing', 'stale'] as const) {
      const plan = planStart(state, false, '/srv/lm/packages/web/dist');
      expect(plan.action).toBe('refuse');
      const message = (plan as { message: string }).message;
      expect(message).toMatch(/^Cannot start: .*\/srv\/lm\/packages\/web\/dist.*npm ci && npm run build/);
      expect(message).not.toContain('\n');
    }
  });
});
