import { describe, expect, it } from 'vitest';
import { loadChunk, versionCheck } from './version-check.ts';

describe('loadChunk', () => {
  it('hands over a chunk that loads, and the page stays current', async () => {
    await expect(loadChunk(async () => 'page', 1000)).resolves.toBe('page');
    expect(versionCheck.stale).toBe(false);
  });

  it('raises the reload alert for a chunk that does not load within the timeout', async () => {
    await expect(loadChunk(() => new Promise<never>(() => undefined), 20)).rejects.toThrow(/did not load within/);
    expect(versionCheck.stale).toBe(true);
  });
});
