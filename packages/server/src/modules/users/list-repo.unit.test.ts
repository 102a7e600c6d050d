import { describe, expect, it } from 'vitest';
import { trigramPieces } from './list-repo.ts';

describe('trigramPieces: the parts of a user search that the trigram index can look up alone', () => {
  it('takes each word with the separator on either side, longest first', () => {
    expect(trigramPieces('bench-user-3')).toEqual(['bench-', '-user-', '-3']);
    expect(trigramPieces('ada love')).toEqual([' love', 'ada ']);
  });

  it('keeps at most four, the longest', () => {
    expect(trigramPieces('bench-user-188396@bench.invalid')).toEqual(['-188396@', '.invalid', '@bench.', 'bench-']);
  });

  it('leaves out a word too short for a trigram of its own (under three letters at the start)', () => {
    expect(trigramPieces('jo-smith')).toEqual([]);
    expect(trigramPieces('jo smith x')).toEqual([' smith ', ' x']);
  });

  it('has nothing to choose in one word, also with letters outside ASCII', () => {
    expect(trigramPieces('müller')).toEqual([]);
    expect(trigramPieces('straße-weg')).toEqual(['straße-', '-weg']);
  });

  it('takes the letters and the digits of a word that has both, three or more, each with the character on either side', () => {
    expect(trigramPieces('bench160032')).toEqual(['h160032', 'bench1']);
    expect(trigramPieces('bench11')).toEqual([]);
    expect(trigramPieces('e3me-k9yr-c')).toEqual(['-k9yr-', 'e3me-', '-c']);
  });
});
