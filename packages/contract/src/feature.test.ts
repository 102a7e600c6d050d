import { describe, expect, it } from 'vitest';
import { featureFields, featureLabel, featuresResolvingTo, findExpansionCycle, isValidFeatureName, resolveFeatureNames } from './feature.ts';

const graph = new Map<string, string[]>([
  ['bundle', ['pdf', 'office']],
  ['office', ['word', 'excel']],
  ['pro', ['bundle', 'cloud']],
]);

describe('feature names', () => {
  it('allow letters, digits, colon, slash, underscore and dash only', () => {
    for (const name of ['pdf', 'Export:PDF/v2_beta-1', '42']) expect(isValidFeatureName(name), name).toBe(true);
    for (const name of ['two words', 'a.b', 'größe', 'a,b', 'a;b', '', 'é']) expect(isValidFeatureName(name), name).toBe(false);
  });

  it('drop empty descriptions and refuse unknown locales', () => {
    expect(featureFields.parse({ name: 'x', localizedDescription: { en: ' Text ', de: '' } }).localizedDescription).toEqual({ en: 'Text' });
    expect(featureFields.safeParse({ name: 'x', localizedDescription: { pt: 'Texto' } }).success).toBe(false);
  });

  it('label a feature by its description in the locale, else English, else its name', () => {
    const feature = { name: 'pdf', localizedDescription: { en: 'PDF export', de: 'PDF-Export' } };
    expect(featureLabel(feature, 'de')).toBe('PDF-Export');
    expect(featureLabel(feature, 'fr')).toBe('PDF export');
    expect(featureLabel({ name: 'pdf', localizedDescription: {} }, 'de')).toBe('pdf');
  });
});

describe('resolveFeatureNames', () => {
  it('replaces expanding features by their targets, recursively, sorted and without duplicates', () => {
    expect(resolveFeatureNames(['pro'], graph)).toEqual(['cloud', 'excel', 'pdf', 'word']);
    expect(resolveFeatureNames(['bundle', 'pdf', 'extra'], graph)).toEqual(['excel', 'extra', 'pdf', 'word']);
    expect(resolveFeatureNames([], graph)).toEqual([]);
  });

  it('stops at a cycle in corrupt data instead of looping', () => {
    const cyclic = new Map([
      ['a', ['b']],
      ['b', ['a', 'c']],
    ]);
    expect(resolveFeatureNames(['a'], cyclic)).toEqual(['c']);
  });
});

describe('findExpansionCycle', () => {
  it('finds a self reference and longer cycles, as a path', () => {
    expect(findExpansionCycle('pdf', ['pdf'], graph)).toEqual(['pdf', 'pdf']);
    expect(findExpansionCycle('word', ['pro'], graph)).toEqual(['word', 'pro', 'bundle', 'office', 'word']);
  });

  it('accepts shared targets that close no cycle and replaces the feature\'s old expansions', () => {
    expect(findExpansionCycle('suite', ['bundle', 'office'], graph)).toBeNull();
    // office currently expands to word/excel; giving it [pdf] instead is fine.
    expect(findExpansionCycle('office', ['pdf'], graph)).toBeNull();
    expect(findExpansionCycle('office', ['bundle'], graph)).toEqual(['office', 'bundle', 'office']);
  });
});

describe('featuresResolvingTo', () => {
  it('gives the feature and every feature that leads to it', () => {
    expect(featuresResolvingTo('word', graph)).toEqual(['bundle', 'office', 'pro', 'word']);
    expect(featuresResolvingTo('cloud', graph)).toEqual(['cloud', 'pro']);
    expect(featuresResolvingTo('lonely', graph)).toEqual(['lonely']);
  });

  it('gives nothing for a feature that expands (it is always replaced)', () => {
    expect(featuresResolvingTo('office', graph)).toEqual([]);
  });
});
