import { describe, expect, it } from 'vitest';
import { COLUMN_STORAGE_PREFIX, readHiddenColumns, toggleHidden, writeHiddenColumns } from './column-visibility.ts';

function memoryStore(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial));
  return { getItem: (key: string) => values.get(key) ?? null, setItem: (key: string, value: string) => void values.set(key, value), values };
}

describe('column visibility', () => {
  it('starts with the table default and keeps a choice per table', () => {
    const store = memoryStore();
    expect(readHiddenColumns(store, 'tans', ['code', 'tags', 'notes'], ['notes'])).toEqual(['notes']);
    writeHiddenColumns(store, 'tans', ['tags']);
    expect(store.values.get(`${COLUMN_STORAGE_PREFIX}tans`)).toBe('["tags"]');
    expect(readHiddenColumns(store, 'tans', ['code', 'tags', 'notes'], ['notes'])).toEqual(['tags']);
    expect(readHiddenColumns(store, 'users', ['email', 'tags'], [])).toEqual([]);
  });

  it('forgets columns the table no longer has and ignores a value it cannot read', () => {
    expect(readHiddenColumns(memoryStore({ [`${COLUMN_STORAGE_PREFIX}t`]: '["gone","tags"]' }), 't', ['tags'], [])).toEqual(['tags']);
    expect(readHiddenColumns(memoryStore({ [`${COLUMN_STORAGE_PREFIX}t`]: '{"tags":true}' }), 't', ['tags'], ['x'])).toEqual(['x']);
    expect(readHiddenColumns(memoryStore({ [`${COLUMN_STORAGE_PREFIX}t`]: 'not json' }), 't', ['tags'], [])).toEqual([]);
    const broken = { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('denied'); } };
    expect(readHiddenColumns(broken, 't', ['tags'], ['tags'])).toEqual(['tags']);
    expect(() => writeHiddenColumns(broken, 't', [])).not.toThrow();
  });

  it('hides a column and shows it again', () => {
    expect(toggleHidden([], 'tags')).toEqual(['tags']);
    expect(toggleHidden(['tags', 'notes'], 'tags')).toEqual(['notes']);
  });
});
