import { describe, expect, it } from 'vitest';
import type { User } from '@lm/contract';
import { nextPageOffset, searchTerm, selectOptions, userOptionLabel } from './user-select-logic.ts';

const user = (id: number, name = `Name ${id}`): User =>
  ({ id, email: `u${id}@example.com`, formattedName: name, username: `u${id}@example.com` }) as User;

describe('user select', () => {
  it('labels an account by name and address, or by address alone', () => {
    expect(userOptionLabel(user(1, 'Ada Lovelace'))).toBe('Ada Lovelace · u1@example.com');
    expect(userOptionLabel({ formattedName: 'u2@example.com', email: 'u2@example.com' })).toBe('u2@example.com');
  });

  it('searches only for typed text, not for the label of the chosen account', () => {
    expect(searchTerm('Ada Lovelace · u1@example.com', 'Ada Lovelace · u1@example.com')).toBe('');
    expect(searchTerm('  ada ', 'Ada Lovelace · u1@example.com')).toBe('ada');
  });

  it('asks for the next 50 until every match is loaded', () => {
    const page = (from: number, count: number, total: number) => ({ items: Array.from({ length: count }, (_, i) => user(from + i)), totalCount: total });
    const first = page(0, 50, 120);
    expect(nextPageOffset(first, [first])).toBe(50);
    const second = page(50, 50, 120);
    expect(nextPageOffset(second, [first, second])).toBe(100);
    const third = page(100, 20, 120);
    expect(nextPageOffset(third, [first, second, third])).toBeUndefined();
    // A list that shrank meanwhile ends rather than asking forever.
    expect(nextPageOffset({ items: [], totalCount: 500 }, [first, { items: [], totalCount: 500 }])).toBeUndefined();
  });

  it('keeps the chosen account among the options even when its page is not loaded, each account once', () => {
    const { options, byId } = selectOptions(user(99), [{ items: [user(1), user(99), user(2)], totalCount: 3 }]);
    expect(options.map((option) => option.value)).toEqual([99, 1, 2]);
    expect(byId.get(2)?.email).toBe('u2@example.com');
  });
});
