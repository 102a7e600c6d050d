import { describe, expect, it } from 'vitest';
import { extensionLimits, hasEnded, lastValidDay } from './format.ts';

describe('a license’s end', () => {
  const license = { permanent: false, validUntil: null, tanValidUntil: null };
  it('is its own date or its TAN’s subscription date, whichever comes first; a permanent one ends only with its subscription', () => {
    expect(lastValidDay(license)).toBeNull();
    expect(lastValidDay({ ...license, validUntil: '2026-05-01', tanValidUntil: '2026-04-01' })).toBe('2026-04-01');
    expect(lastValidDay({ ...license, validUntil: '2026-03-01', tanValidUntil: '2026-04-01' })).toBe('2026-03-01');
    expect(lastValidDay({ ...license, permanent: true, validUntil: '2026-03-01', tanValidUntil: null })).toBeNull();
    expect(hasEnded({ ...license, permanent: true, tanValidUntil: '2026-04-01' }, '2026-04-02')).toBe(true);
    expect(hasEnded({ ...license, tanValidUntil: '2026-04-01' }, '2026-04-01')).toBe(false);
  });
});

describe('the extend dialog', () => {
  it('offers only what is left up to the trial’s latest end, in each unit', () => {
    expect(extensionLimits({ validUntil: '2026-06-01', latestTrialEnd: '2026-06-20' }, '2026-05-30')).toEqual({ days: 19, weeks: 2, months: 0 });
    expect(extensionLimits({ validUntil: '2026-06-01', latestTrialEnd: '2026-07-15' }, '2026-05-30')).toEqual({ days: 44, weeks: 6, months: 1 });
    expect(extensionLimits({ validUntil: '2026-06-20', latestTrialEnd: '2026-06-20' }, '2026-05-30')).toEqual({ days: 0, weeks: 0, months: 0 });
  });
});
