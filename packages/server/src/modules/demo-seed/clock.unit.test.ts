import { afterEach, describe, expect, it } from 'vitest';
import { ShiftedClock } from './clock.ts';

describe('ShiftedClock', () => {
  const clock = new ShiftedClock();
  afterEach(() => clock.restore());

  it('sets the current time of new Date(), Date.now() and Date(), and lets it run on', async () => {
    clock.set(new Date('2025-01-15T10:00:00.000Z'));
    const first = Date.now();
    expect(first - Date.parse('2025-01-15T10:00:00.000Z')).toBeLessThan(50);
    expect(new Date().toISOString().slice(0, 16)).toBe('2025-01-15T10:00');
    expect(Date()).toContain('Jan 15 2025');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.now()).toBeGreaterThan(first);
  });

  it('leaves dates of a given moment, the statics and instanceof alone', () => {
    clock.set(Date.parse('2030-06-01T00:00:00.000Z'));
    expect(new Date(0).toISOString()).toBe('1970-01-01T00:00:00.000Z');
    expect(new Date('2024-02-29').getUTCDate()).toBe(29);
    expect(Date.UTC(2020, 0, 1)).toBe(1_577_836_800_000);
    expect(new Date()).toBeInstanceOf(Date);
    class Subclass extends Date {}
    expect(new Subclass().getUTCFullYear()).toBe(2030);
  });

  it('gives the real clock back', () => {
    const real = Date.now();
    clock.set(0);
    expect(Date.now()).toBeLessThan(1000);
    clock.restore();
    expect(Math.abs(Date.now() - real)).toBeLessThan(1000);
    expect(new Date().getUTCFullYear()).toBeGreaterThan(2025);
  });
});
