import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runEvery } from './run-every.ts';

describe('runEvery', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('starts a run every interval, but not while the last one is still under way', async () => {
    const finishers: (() => void)[] = [];
    let started = 0;
    const stop = runEvery(1000, () => {
      started++;
      return new Promise<void>((resolve) => finishers.push(resolve));
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toBe(1);
    // Due twice more while the first run hangs: not joined.
    await vi.advanceTimersByTimeAsync(2000);
    expect(started).toBe(1);
    finishers[0]();
    await vi.advanceTimersByTimeAsync(1000);
    expect(started).toBe(2);
    finishers[1]();
    stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(started).toBe(2);
  });
});
