import { describe, expect, it } from 'vitest';
import {
  formatTanCode,
  generateTanCode,
  isTanCode,
  isTanTag,
  normalizeTanCode,
  parseTanTags,
  prefixUpperBound,
  TAN_ALPHABET,
  TAN_CODE_LENGTH,
  tanCode,
  tanFields,
  tanListQuery,
} from './tan.ts';

describe('TAN codes', () => {
  it('use an alphabet without look-alikes', () => {
    for (const lookAlike of ['0', 'o', '1', 'l', 'i']) expect(TAN_ALPHABET).not.toContain(lookAlike);
    expect(new Set(TAN_ALPHABET).size).toBe(TAN_ALPHABET.length);
    expect(TAN_ALPHABET).toMatch(/^[a-z2-9]+$/);
  });

  it('are generated with 12 characters of the alphabet, lowercase, without dashes', () => {
    for (let i = 0; i < 200; i++) {
      const code = generateTanCode();
      expect(code).toHaveLength(TAN_CODE_LENGTH);
      expect(isTanCode(code)).toBe(true);
      for (const character of code) expect(TAN_ALPHABET).toContain(character);
    }
  });

  it('are practically unique', () => {
    const codes = new Set(Array.from({ length: 20000 }, () => generateTanCode()));
    expect(codes.size).toBe(20000);
  });

  it('draw from the given random source and discard biased bytes', () => {
    // 255 and 248 are above the unbiased limit (248 = 8 × 31) and are skipped; 0 → 'a', 30 → '9', 31 → 'a'.
    const bytes = [255, 248, 0, 30, 31, 62, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const source = (length: number) => Uint8Array.from({ length }, (_, i) => bytes[i] ?? 0);
    expect(generateTanCode(source)).toBe('a9aabcdefghj');
  });

  it('keep drawing when a draw has too many biased bytes', () => {
    let calls = 0;
    const source = (length: number) => new Uint8Array(length).fill(calls++ === 0 ? 250 : 3);
    expect(generateTanCode(source)).toBe('dddddddddddd');
    expect(calls).toBe(2);
  });

  it('are shown as groups of 4 separated by dashes', () => {
    expect(formatTanCode('abcdefghjkmn')).toBe('abcd-efgh-jkmn');
    expect(formatTanCode('abcdef')).toBe('abcd-ef');
    expect(formatTanCode('')).toBe('');
  });

  it('are normalized on input: trimmed, lowercased, dashes removed', () => {
    expect(normalizeTanCode('  ABCD-EFGH-JKMN ')).toBe('abcdefghjkmn');
    expect(normalizeTanCode('abcd--efgh')).toBe('abcdefgh');
    expect(normalizeTanCode('')).toBe('');
  });

  it('are validated after normalization', () => {
    expect(tanCode.parse(' ABCD-EFGH-JKMN')).toBe('abcdefghjkmn');
    for (const bad of ['', 'abcd', 'abcd-efgh-jkmn-p', 'abcd-efgh-jk0n', 'abcd efgh jkmn', 'abcdefghjkmi']) {
      expect(tanCode.safeParse(bad).success, bad).toBe(false);
    }
  });
});

describe('TAN tags', () => {
  it('allow letters, digits, accented Latin letters, colon, slash, underscore and dash', () => {
    for (const tag of ['reseller', 'Q3-2026', 'order:4711', 'a/b_c', 'Müller', 'Société', 'Ålesund', 'Łódź']) expect(isTanTag(tag), tag).toBe(true);
    for (const tag of ['two words', 'a,b', 'semi;colon', 'dot.ted', 'hash#', 'emoji🙂', 'Ωmega', '', 'x'.repeat(51)]) expect(isTanTag(tag), tag).toBe(false);
  });

  it('are separated by commas, semicolons and whitespace', () => {
    expect(parseTanTags('a, b;c  d\te\nf')).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(parseTanTags(' ; , ')).toEqual([]);
    expect(parseTanTags('x x,x')).toEqual(['x']);
  });

  it('are checked and deduplicated in the TAN body', () => {
    const base = { productId: 1, licenseCount: 1 };
    expect(tanFields.parse({ ...base, tags: ['a', 'a', 'b'] }).tags).toEqual(['a', 'b']);
    expect(tanFields.parse(base)).toMatchObject({ tags: [], licensePolicyId: null, distributorId: null, freeUpdatesUntil: null, notes: null });
    expect(tanFields.safeParse({ ...base, tags: ['bad tag'] }).success).toBe(false);
    expect(tanFields.safeParse({ ...base, licenseCount: 0 }).success).toBe(false);
    expect(tanFields.safeParse({ ...base, freeUpdatesUntil: '2026-13-01' }).success).toBe(false);
  });

  it('filter the list by one tag and by revoked state', () => {
    expect(tanListQuery.parse({ tag: 'Müller', revoked: 'true' })).toMatchObject({ tag: 'Müller', revoked: true });
    expect(tanListQuery.parse({ revoked: 'false' }).revoked).toBe(false);
    expect(tanListQuery.safeParse({ revoked: 'maybe' }).success).toBe(false);
    expect(tanListQuery.safeParse({ sort: '-activatedCount' }).success).toBe(true);
  });
});

describe('prefixUpperBound', () => {
  it('steps up the last character, so that every code with the prefix sorts below the bound', () => {
    expect(prefixUpperBound('abc')).toBe('abd');
    // The alphabet skips i, l and o; digits sort before letters.
    expect(prefixUpperBound('abh')).toBe('abj');
    expect(prefixUpperBound('ab9')).toBe('aba');
    const codes = ['abcz', 'abc2', 'abca', 'abd', 'abb9'].sort();
    expect(codes.filter((code) => code >= 'abc' && code < prefixUpperBound('abc')!)).toEqual(['abc2', 'abca', 'abcz']);
  });

  it('carries past the alphabet\'s last character, and has no bound for a prefix of last characters', () => {
    expect(prefixUpperBound('abz')).toBe('ac');
    expect(prefixUpperBound('zz')).toBeNull();
  });
});
