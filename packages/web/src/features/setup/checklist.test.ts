import { describe, expect, it } from 'vitest';
import type { SetupStatus } from '@lm/contract';
import { checklistDismissed, checklistProgress, checklistShown, dismissChecklist } from './checklist.ts';

const nothing: SetupStatus = { hasProduct: false, hasOwnPolicy: false, hasTan: false, mailSenderSet: false, hasDistributor: false };

describe('the first-run checklist', () => {
  it('shows until every required step is done; a policy of one’s own is optional', () => {
    expect(checklistShown(nothing, false)).toBe(true);
    const allButPolicy = { ...nothing, hasProduct: true, hasTan: true, mailSenderSet: true, hasDistributor: true };
    expect(checklistShown(allButPolicy, false)).toBe(false);
    expect(checklistShown({ ...allButPolicy, mailSenderSet: false }, false)).toBe(true);
    expect(checklistProgress({ ...nothing, hasProduct: true, hasOwnPolicy: true })).toEqual({ done: 1, of: 4 });
  });

  it('does not show once hidden, nor before the status has loaded', () => {
    expect(checklistShown(nothing, true)).toBe(false);
    expect(checklistShown(undefined, false)).toBe(false);
  });

  it('remembers that an administrator hid it, per account', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (key: string) => store.get(key) ?? null, setItem: (key: string, value: string) => void store.set(key, value) };
    expect(checklistDismissed(storage, 1)).toBe(false);
    dismissChecklist(storage, 1);
    expect(checklistDismissed(storage, 1)).toBe(true);
    expect(checklistDismissed(storage, 2)).toBe(false);
  });
});
