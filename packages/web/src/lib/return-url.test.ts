import { describe, expect, it } from 'vitest';
import { safeReturnUrl } from './return-url.ts';

describe('safeReturnUrl', () => {
  it('follows paths of this app', () => {
    for (const path of ['/', '/licenses', '/tans?revoked=true#top']) expect(safeReturnUrl(path)).toBe(path);
  });

  it('never leaves the site, however the address is written', () => {
    for (const other of [null, '', 'https://evil.example', '//evil.example', '/\\evil.example', '/\t/evil.example', '/%09/evil.example'.replace('%09', '\t'), 'javascript:alert(1)']) {
      expect(safeReturnUrl(other), String(other)).toBe('/');
    }
  });
});
