import { describe, expect, it } from 'vitest';
import { entitlementLabel, formatGrants, grantsSummary, formatMetadata, parseGrantsText, parseMetadataText } from './grants-text.ts';

describe('grants and metadata as text', () => {
  it('reads flags, numbers and texts, and writes them back the same', () => {
    const grants = parseGrantsText('SIMULATION\n MAX_PROJECTS = 50\nEDITION=Professional\nCODE="42"\n\n');
    expect(grants).toEqual([
      { feature: 'SIMULATION', value: null },
      { feature: 'MAX_PROJECTS', value: 50 },
      { feature: 'EDITION', value: 'Professional' },
      { feature: 'CODE', value: '42' },
    ]);
    expect(parseGrantsText(formatGrants(grants))).toEqual(grants);
  });

  it('reads metadata as key=value lines, the first = splitting', () => {
    const metadata = parseMetadataText('customer=ACME\nformula=a=b\n_crm=4711');
    expect(metadata).toEqual({ customer: 'ACME', formula: 'a=b', _crm: '4711' });
    expect(parseMetadataText(formatMetadata(metadata))).toEqual(metadata);
  });

  it('labels a flag by its name and a value after it', () => {
    expect(entitlementLabel('CLOUD', true)).toBe('CLOUD');
    expect(entitlementLabel('MAX_PROJECTS', 50)).toBe('MAX_PROJECTS = 50');
  });

  it('sums grants up on one line, flags by their name', () => {
    expect(grantsSummary([{ feature: 'MAX_PROJECTS', value: 100 }, { feature: 'CLOUD', value: null }, { feature: 'EDITION', value: 'Pro' }])).toBe('MAX_PROJECTS = 100, CLOUD, EDITION = Pro');
    expect(grantsSummary([])).toBe('');
  });
});
