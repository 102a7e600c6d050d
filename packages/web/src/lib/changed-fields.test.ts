import { describe, expect, it } from 'vitest';
import { changedFields } from './changed-fields.ts';

describe('changedFields', () => {
  it('keeps only what differs from the version the form was loaded from: the rest is not sent, so not reverted', () => {
    const loaded = { notes: null, validUntil: '2026-12-08', suspended: false, tags: ['a', 'b'] };
    expect(changedFields({ notes: 'Called', validUntil: '2026-12-08', suspended: false, tags: ['a', 'b'] }, loaded)).toEqual({ notes: 'Called' });
    expect(changedFields({ tags: ['b', 'a'], suspended: true }, loaded)).toEqual({ tags: ['b', 'a'], suspended: true });
  });

  it('sends a field the record does not have (a one-off flag), and treats null and a missing value alike', () => {
    expect(changedFields({ revokeLicenses: true, notes: null }, { notes: undefined })).toEqual({ revokeLicenses: true });
    expect(changedFields({ notes: undefined }, { notes: 'x' })).toEqual({});
  });
});
