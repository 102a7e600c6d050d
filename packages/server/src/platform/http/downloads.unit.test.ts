import { describe, expect, it } from 'vitest';
import { acceptQuality, prefersJsonTo } from './downloads.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('the quality an Accept header gives a media type', () => {
  it('is that of the most specific range naming it, whatever the order', () => {
    expect(acceptQuality('*/*;q=0.2, text/*;q=0.5, text/csv;q=0.9', 'text/csv')).toBe(0.9);
    expect(acceptQuality('text/csv;q=0.9, text/*;q=0.5, */*;q=0.2', 'text/plain')).toBe(0.5);
    expect(acceptQuality('text/*;q=0.5, */*;q=0.2', 'application/json')).toBe(0.2);
    expect(acceptQuality('application/json;q=0, */*', 'application/json')).toBe(0);
  });

  it('is 0 where no range names it, and reads case, spaces and odd values', () => {
    expect(acceptQuality('text/html', 'application/json')).toBe(0);
    expect(acceptQuality('Application/JSON ; Q=0.7', 'application/json')).toBe(0.7);
    expect(acceptQuality('application/json;q=abc', 'application/json')).toBe(0);
    expect(acceptQuality('application/json;q=7', 'application/json')).toBe(1);
    expect(acceptQuality('garbage, ,;q=1', 'application/json')).toBe(0);
  });
});

describe('whether a download comes as JSON', () => {
  it('is so when JSON is rated above the file’s own type', () => {
    expect(prefersJsonTo('application/json', 'text/csv')).toBe(true);
    expect(prefersJsonTo('application/json, text/csv;q=0.5', 'text/csv')).toBe(true);
    expect(prefersJsonTo('application/*', 'text/csv')).toBe(true);
    expect(prefersJsonTo('application/json, */*;q=0.1', 'application/x-pem-file')).toBe(true);
  });

  it('is not so without the header, for */*, a browser, or a list that rates both alike', () => {
    expect(prefersJsonTo(undefined, 'text/csv')).toBe(false);
    expect(prefersJsonTo('', 'text/csv')).toBe(false);
    expect(prefersJsonTo('*/*', 'application/octet-stream')).toBe(false);
    expect(prefersJsonTo(BROWSER, 'application/octet-stream')).toBe(false);
    // axios' default: JSON is named, but the file is as welcome through */*.
    expect(prefersJsonTo('application/json, text/plain, */*', 'text/csv')).toBe(false);
    expect(prefersJsonTo('application/*', 'application/octet-stream')).toBe(false);
    expect(prefersJsonTo('text/csv, application/json;q=0.9', 'text/csv')).toBe(false);
  });

  it('is not so when neither is accepted: the file is sent as if nothing had been asked', () => {
    expect(prefersJsonTo('image/png', 'text/csv')).toBe(false);
    expect(prefersJsonTo('text/plain', 'application/x-pem-file')).toBe(false);
  });
});
