import { describe, expect, it } from 'vitest';
import { localeOf } from '../http/locale.ts';
import { renderMail } from './layout.ts';
import { retryDelay } from './options.ts';

describe('retryDelay', () => {
  it('doubles from the base and stops at the maximum', () => {
    const options = { retryBaseMs: 30_000, retryMaxMs: 15 * 60_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((failures) => retryDelay(failures, options))).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000]);
  });
});

describe('renderMail', () => {
  const content = {
    locale: 'en',
    productName: 'Acme <Licenses>',
    logoUrl: null,
    subject: 'Subject & more',
    greeting: 'Hello,',
    intro: ['Your address is "<b>x@y.z</b>".'],
    action: { label: 'Go', url: 'https://example.com/a?b=1&c=2' },
    outro: ['Bye.'],
  };

  it('writes plain text with the link on a line of its own', () => {
    const { text, subject } = renderMail(content);
    expect(subject).toBe('Subject & more');
    expect(text.split('\n')).toContain('https://example.com/a?b=1&c=2');
    expect(text.startsWith('Acme <Licenses>\n')).toBe(true);
  });

  it('escapes every text in the HTML, and shows the logo when there is one', () => {
    const { html } = renderMail(content);
    expect(html).toContain('Acme &lt;Licenses&gt;');
    expect(html).toContain('&quot;&lt;b&gt;x@y.z&lt;/b&gt;&quot;');
    expect(html).toContain('href="https://example.com/a?b=1&amp;c=2"');
    expect(html).not.toContain('<b>');
    const withLogo = renderMail({ ...content, logoUrl: 'https://example.com/logo.png' }).html;
    expect(withLogo).toContain('<img src="https://example.com/logo.png" alt="Acme &lt;Licenses&gt;"');
  });
});

describe('localeOf', () => {
  it('takes the best supported language of Accept-Language, else English', () => {
    expect(localeOf(undefined)).toBe('en');
    expect(localeOf('de')).toBe('de');
    expect(localeOf('de-CH,de;q=0.9')).toBe('de');
    expect(localeOf('de-AT')).toBe('de');
    expect(localeOf('pt-BR, de_DE;q=0.5')).toBe('de');
    expect(localeOf('nl,fr;q=0.8,it;q=0.9')).toBe('it');
    expect(localeOf('ja, zh')).toBe('en');
    expect(localeOf('es;q=0, fr;q=0.1')).toBe('fr');
    expect(localeOf(';;,')).toBe('en');
  });
});
