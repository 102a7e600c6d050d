import { describe, expect, it } from 'vitest';
import { nameKeys, sortKey } from './sort-keys.ts';

describe('the sort keys of names', () => {
  it('lowercase, take the accents off and spell out the letters decomposition keeps', () => {
    expect(['Ömer Çelik', 'Straße', 'İstanbul', 'Ærø', 'Łódź', 'Zoë', 'ﬁsh', 'Þór'].map(sortKey)).toEqual(['omer celik', 'strasse', 'istanbul', 'aero', 'lodz', 'zoe', 'fish', 'thor']);
  });

  it('leave ASCII text lowercased only, as the databases lower() it (migration 0019 relies on that)', () => {
    const ascii = Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index)).join('');
    expect(sortKey(ascii)).toBe(ascii.toLowerCase());
  });

  it('sort names in the order a reader expects when compared byte by byte', () => {
    const names = ['Zimmermann', 'Özdemir', 'Oberst', 'Ärzte', 'Abel', 'Straße', 'Stroh'];
    expect([...names].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1))).toEqual(['Abel', 'Ärzte', 'Oberst', 'Özdemir', 'Straße', 'Stroh', 'Zimmermann']);
  });

  it('keep no company as none', () => {
    expect(nameKeys({ firstName: 'Ada', lastName: 'Lovelace', company: null })).toEqual({ first_name_key: 'ada', last_name_key: 'lovelace', company_key: null });
  });
});
