import { describe, expect, it } from 'vitest';
import { compareVersions, formatProductName, productFields, productListQuery } from './product.ts';

const valid = { name: 'Studio', version: '2.0', defaultLicensePolicyId: 1 };

describe('productFields', () => {
  it('refuses leading or trailing whitespace in name and version', () => {
    for (const change of [{ name: ' Studio' }, { name: 'Studio\n' }, { version: '2.0 ' }]) {
      expect(productFields.safeParse({ ...valid, ...change }).error?.issues[0].message, JSON.stringify(change)).toBe('validation.noOuterWhitespace');
    }
    expect(productFields.safeParse({ ...valid, name: 'Studio Pro' }).success).toBe(true);
  });

  it('takes only http(s) download links of the types mac, win and offline', () => {
    expect(productFields.safeParse({ ...valid, downloadLinks: [{ type: 'mac', url: 'https://example.com/a.dmg' }] }).success).toBe(true);
    expect(productFields.safeParse({ ...valid, downloadLinks: [{ type: 'mac', url: 'ftp://example.com/a.dmg' }] }).success).toBe(false);
    expect(productFields.safeParse({ ...valid, downloadLinks: [{ type: 'linux', url: 'https://example.com/a' }] }).success).toBe(false);
  });
});

describe('productListQuery', () => {
  it('parses flags and feature names as a comma list or repeated parameters', () => {
    expect(productListQuery.parse({ active: 'true', resolveFeatures: '0', featureNames: 'a,b' })).toMatchObject({ active: true, resolveFeatures: false, featureNames: ['a', 'b'] });
    expect(productListQuery.parse({ featureNames: ['a', 'b,c'] }).featureNames).toEqual(['a', 'b', 'c']);
    expect(productListQuery.safeParse({ featureNames: 'a b' }).success).toBe(false);
  });
});

describe('versions', () => {
  it('order numbers by value', () => {
    expect(['2.0', '1.10', '1.9', '1.2.3', '10'].sort(compareVersions)).toEqual(['1.2.3', '1.9', '1.10', '2.0', '10']);
    expect(formatProductName({ name: 'Studio', version: '2.0' })).toBe('Studio 2.0');
  });
});
