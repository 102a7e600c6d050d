import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '@lm/contract';

const WEB = path.join(import.meta.dirname, '../..');
const html = fs.readFileSync(path.join(WEB, 'index.html'), 'utf8');

describe('index.html: the fallback for an app script that cannot load', () => {
  it('speaks every language of the app, in the words of its locales', () => {
    const texts = JSON.parse(/var TEXTS = (\{.*\});/.exec(html)![1]) as Record<string, string[]>;
    expect(Object.keys(texts).sort()).toEqual([...LOCALES].sort());
    for (const locale of LOCALES) {
      const { chunkLoad } = JSON.parse(fs.readFileSync(path.join(WEB, `src/locales/${locale}.json`), 'utf8')) as { chunkLoad: Record<string, string> };
      expect(texts[locale], locale).toEqual([chunkLoad.bootTitle, chunkLoad.text, chunkLoad.retry]);
    }
  });

  it('is one inline script, before the app’s module script', () => {
    const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>/g)];
    expect(inline).toHaveLength(1);
    expect(html.indexOf('<script>')).toBeLessThan(html.indexOf('<script type="module"'));
  });
});
