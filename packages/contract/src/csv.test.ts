import { describe, expect, it } from 'vitest';
import { csvField, csvLine } from './csv.ts';

describe('csvField', () => {
  it('leaves plain values alone and quotes separators, quotes and line breaks (RFC 4180)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField(null)).toBe('');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('a;b')).toBe('"a;b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r')).toBe('"cr\r"');
  });

  it('defuses values a spreadsheet would run as a formula', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(csvField(`${start}SUM(A1)`)).toBe(`"'${start}SUM(A1)"`);
    expect(csvField('a=b')).toBe('a=b');
  });

  it('ends a line with CRLF and writes numbers as they are', () => {
    expect(csvLine(['a', null, 'c,d'], ',')).toBe('a,,"c,d"\r\n');
    expect(csvLine([-5, 12, '-5'])).toBe(`-5,12,"'-5"\r\n`);
  });
});
