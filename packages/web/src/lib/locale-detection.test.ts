import i18next from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_LOCALE, LOCALES } from '@lm/contract';
import { detectedLanguage, LOCALE_DETECTION } from './locale-detection.ts';

/** The language i18next picks with the app's detector settings, in a browser with these languages and cookie. */
async function pickedLanguage(languages: string[], cookie = ''): Promise<string | undefined> {
  vi.stubGlobal('navigator', { languages, language: languages[0] });
  vi.stubGlobal('document', { cookie });
  const instance = i18next.createInstance();
  await instance.use(LanguageDetector).init({
    supportedLngs: [...LOCALES],
    fallbackLng: DEFAULT_LOCALE,
    load: 'languageOnly',
    resources: {},
    detection: { ...LOCALE_DETECTION, caches: [] },
  });
  return instance.language;
}

describe('the language of a first visit', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('is the first of the browser languages that the app speaks', async () => {
    expect(await pickedLanguage(['ja', 'it'])).toBe('it');
    expect(await pickedLanguage(['nl', 'de', 'en'])).toBe('de');
    expect(await pickedLanguage(['nl-BE', 'fr-CA', 'en-US'])).toBe('fr');
    expect(await pickedLanguage(['es-ES', 'de'])).toBe('es');
  });

  it('is the cookie before the browser languages, and English when nothing fits', async () => {
    expect(await pickedLanguage(['nl', 'de'], 'i18next=it')).toBe('it');
    expect(await pickedLanguage(['nl', 'de'], 'i18next=xx')).toBe('de');
    expect(await pickedLanguage(['ja', 'zh-CN'])).toBe('en');
  });
});

describe('detectedLanguage', () => {
  it('reduces our languages to their language part and leaves the others for i18next to pass over', () => {
    expect(['de-AT', 'EN-gb', 'it', 'ja', 'pt-BR'].map(detectedLanguage)).toEqual(['de', 'en', 'it', 'ja', 'pt-BR']);
  });
});
