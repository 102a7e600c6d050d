import { describe, expect, it } from 'vitest';
import { emailParts } from './BreakableEmail.tsx';

describe('emailParts', () => {
  it('breaks after the @ and before each dot, and nowhere inside a word', () => {
    expect(emailParts('admin@localhost.localdomain')).toEqual(['admin@', 'localhost', '.localdomain']);
    expect(emailParts('anna.mueller@beispiel-unternehmen.de')).toEqual(['anna', '.mueller@', 'beispiel-unternehmen', '.de']);
    expect(emailParts('x').join('')).toBe('x');
  });
});
