import { describe, expect, it } from 'vitest';
import { addGrants, removeGrants } from './entitlement.ts';
import { shopMapping } from './shop.ts';

const grant = (feature: string, value: number | string | null = null) => ({ feature, value });

describe('an add-on laid over a TAN and taken away again', () => {
  it('adds new features and replaces the value of one the TAN had, remembering it', () => {
    const { grants, previous } = addGrants([grant('MAX_PROJECTS', 50), grant('EXPORT')], [grant('SIMULATION'), grant('MAX_PROJECTS', 100)]);
    expect(grants).toEqual([grant('EXPORT'), grant('SIMULATION'), grant('MAX_PROJECTS', 100)]);
    expect(previous).toEqual([grant('MAX_PROJECTS', 50)]);
  });

  it('taking it away restores what it replaced and drops what it added', () => {
    const added = [grant('SIMULATION'), grant('MAX_PROJECTS', 100)];
    const { grants, previous } = addGrants([grant('MAX_PROJECTS', 50), grant('EXPORT')], added);
    expect(removeGrants(grants, added, previous)).toEqual([grant('EXPORT'), grant('MAX_PROJECTS', 50)]);
  });

  it('keeps a grant changed since the add-on set it', () => {
    const added = [grant('MAX_PROJECTS', 100)];
    const { previous } = addGrants([grant('MAX_PROJECTS', 50)], added);
    expect(removeGrants([grant('MAX_PROJECTS', 200)], added, previous)).toEqual([grant('MAX_PROJECTS', 200)]);
  });
});

describe('a shop mapping', () => {
  it('an add-on names a product and at least one feature', () => {
    const problems = shopMapping.safeParse({ externalId: 'price_sim', productId: null, addOn: true }).error?.issues.map((issue) => [issue.path.join('.'), issue.message]);
    expect(problems).toEqual([
      ['productId', 'validation.addOnWithoutProduct'],
      ['entitlements', 'validation.addOnWithoutFeatures'],
    ]);
    expect(shopMapping.parse({ externalId: 'price_sim', productId: 3, addOn: true, entitlements: [{ feature: 'SIMULATION' }] })).toMatchObject({ addOn: true, seats: 1, entitlements: [{ feature: 'SIMULATION', value: null }] });
  });

  it('a license mapping defaults to no add-on and no grants', () => {
    expect(shopMapping.parse({ externalId: 'price_pro', productId: 3 })).toMatchObject({ addOn: false, entitlements: [] });
  });
});
