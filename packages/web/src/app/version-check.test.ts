import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChunkLoadError, isChunkLoadError, loadChunk, versionCheck } from './version-check.ts';

describe('loadChunk', () => {
  it('hands over a chunk that loads, and the page stays current', async () => {
    await expect(loadChunk(async () => 'page', 1000)).resolves.toBe('page');
    expect(versionCheck.stale).toBe(false);
  });

  it('raises the reload alert for a chunk that does not load within the timeout', async () => {
    const hung = loadChunk(() => new Promise<never>(() => undefined), 20);
    await expect(hung).rejects.toThrow(/did not load within/);
    await expect(hung).rejects.toBeInstanceOf(ChunkLoadError);
    expect(versionCheck.stale).toBe(true);
    expect(versionCheck.reason).toBe('load-failed');
  });

  it('turns a failed import into a ChunkLoadError that keeps the browser’s reason', async () => {
    const cause = new TypeError('Failed to fetch dynamically imported module: http://x/assets/Page-abc.js');
    const failed = loadChunk(() => Promise.reject(cause), 1000);
    await expect(failed).rejects.toBeInstanceOf(ChunkLoadError);
    await expect(failed).rejects.toMatchObject({ cause, message: cause.message });
  });
});

describe('isChunkLoadError', () => {
  it('knows our own error and the browsers’ words for a failed dynamic import', () => {
    expect(isChunkLoadError(new ChunkLoadError('x'))).toBe(true);
    expect(isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: https://a/assets/x.js'))).toBe(true);
    expect(isChunkLoadError(new TypeError('error loading dynamically imported module: https://a/assets/x.js'))).toBe(true);
    expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isChunkLoadError(new Error('Unable to preload CSS for /assets/x.css'))).toBe(true);
  });

  it('leaves every other error to the error page', () => {
    expect(isChunkLoadError(new TypeError("Cannot read properties of undefined (reading 'map')"))).toBe(false);
    expect(isChunkLoadError('Failed to fetch dynamically imported module')).toBe(false);
    expect(isChunkLoadError(undefined)).toBe(false);
  });
});

describe('why a failed chunk asks for a reload', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  /** A fresh module (its state is the page's), the build answering `hashes` in turn (null: no answer). */
  async function page(hashes: (string | null)[]) {
    vi.resetModules();
    vi.stubGlobal('fetch', async () => {
      const hash = hashes.shift();
      if (hash === null || hash === undefined) throw new TypeError('Failed to fetch');
      return new Response(JSON.stringify({ hash }), { status: 200 });
    });
    const module = await import('./version-check.ts');
    await module.versionCheck.check();
    return module;
  }

  const failedChunk = async (module: typeof import('./version-check.ts')) => {
    await module.markChunkFailed();
    return module.versionCheck.reason;
  };

  it('says "a new version" when the server now has another build', async () => {
    const module = await page(['build-1', 'build-2']);
    expect(await failedChunk(module)).toBe('new-version');
  });

  it('says "could not be loaded, try again" when the build is the same, or the network gives no answer', async () => {
    expect(await failedChunk(await page(['build-1', 'build-1']))).toBe('load-failed');
    expect(await failedChunk(await page(['build-1', null]))).toBe('load-failed');
  });
});
