import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { acceptedLanguages, localeOf, requestLocale } from './locale.ts';

const requestWith = (headers: Record<string, string>, cookies: Record<string, string> = {}) => ({ headers, cookies }) as unknown as FastifyRequest;

describe('the languages of Accept-Language', () => {
  it('are ordered by quality, then as written, without refused ones', () => {
    expect(acceptedLanguages('ja, it;q=0.9')).toEqual(['ja', 'it']);
    expect(acceptedLanguages('en;q=0.5, nl, de;q=0.8')).toEqual(['nl', 'de', 'en']);
    expect(acceptedLanguages('fr;q=0, es')).toEqual(['es']);
    expect(acceptedLanguages(undefined)).toEqual([]);
  });

  it('give the first one we speak, not English at the first we do not', () => {
    expect(localeOf('ja,it;q=0.9')).toBe('it');
    expect(localeOf('nl,de;q=0.9,en;q=0.8')).toBe('de');
    expect(localeOf('nl-BE, fr-CA;q=0.7')).toBe('fr');
  });
});

describe('the language of a request', () => {
  it('is the language cookie first, then the browser list, then English', () => {
    expect(requestLocale(requestWith({ 'accept-language': 'de' }, { i18next: 'it' }))).toBe('it');
    expect(requestLocale(requestWith({ 'accept-language': 'ja,es;q=0.9' }, { i18next: 'xx' }))).toBe('es');
    expect(requestLocale(requestWith({ 'accept-language': 'ja,it;q=0.9' }))).toBe('it');
    expect(requestLocale(requestWith({}))).toBe('en');
  });
});
