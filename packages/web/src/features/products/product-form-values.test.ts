import { describe, expect, it } from 'vitest';
import { productFields, type Product } from '@lm/contract/product';
import { featureValueInputs, featureValuesBody, productBody, productFormValues } from './product-form-values.ts';

const product: Product = {
  id: 7,
  name: 'Studio',
  version: '2.0',
  formattedName: 'Studio 2.0',
  active: false,
  trialDays: 14,
  repeatTrialAfterMonths: null,
  ignoreTrialsBefore: '2025-01-01',
  releaseDate: null,
  features: ['EDITION', 'MAX_PROJECTS', 'pdf'],
  featureValues: { MAX_PROJECTS: 50, EDITION: 'Pro' },
  defaultLicensePolicyId: 2,
  downloadLinks: [{ type: 'win', url: 'https://example.com/a.exe' }],
  notes: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

describe('the product form', () => {
  it('starts a duplicate with every value of the product and sends them back unchanged', () => {
    const body = productBody(productFormValues(product));
    expect(body).toEqual({
      name: 'Studio',
      version: '2.0',
      active: false,
      trialDays: 14,
      repeatTrialAfterMonths: null,
      ignoreTrialsBefore: '2025-01-01',
      releaseDate: null,
      features: ['EDITION', 'MAX_PROJECTS', 'pdf'],
      featureValues: { EDITION: 'Pro', MAX_PROJECTS: 50 },
      defaultLicensePolicyId: 2,
      downloadLinks: [{ type: 'win', url: 'https://example.com/a.exe' }],
      notes: '',
    });
    expect(productFields.safeParse(body).success).toBe(true);
  });

  it('starts a new product active, with no trials and no policy, which the schema refuses until one is chosen', () => {
    const values = productFormValues(null);
    expect(values).toMatchObject({ active: true, trialDays: null, repeatTrialAfterMonths: null, defaultLicensePolicyId: null });
    const result = productFields.safeParse(productBody({ ...values, name: 'X', version: '1' }));
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['defaultLicensePolicyId']);
  });

  it('tells "none" from an emptied number field, which stays invalid', () => {
    const values = { ...productFormValues(product), trialDays: '' };
    expect(productFields.safeParse(productBody(values)).error?.issues[0].path).toEqual(['trialDays']);
    expect(productBody({ ...values, trialDays: null }).trialDays).toBeNull();
  });

  it('sends the default values of the chosen features only, an emptied input as no default', () => {
    const values = { ...productFormValues(product), features: ['MAX_PROJECTS', 'pdf', 'SEATS'], featureValues: { EDITION: 'Pro', MAX_PROJECTS: 75, SEATS: '', pdf: '  ' } };
    expect(productBody(values).featureValues).toEqual({ MAX_PROJECTS: 75 });
    expect(featureValuesBody(['b', 'a'], { b: 'x', a: 0 })).toEqual({ a: 0, b: 'x' });
    expect(Object.keys(featureValuesBody(['b', 'a'], { b: 'x', a: 0 }))).toEqual(['a', 'b']);
  });

  it('refuses a value out of range before sending, at the feature\'s own input', () => {
    const values = { ...productFormValues(product), featureValues: { MAX_PROJECTS: 10 ** 13 } };
    expect(productFields.safeParse(productBody(values)).error?.issues.map((issue) => issue.path.join('.'))).toEqual(['featureValues.MAX_PROJECTS']);
  });
});

describe('the default-value inputs', () => {
  const types = new Map([
    ['MAX_PROJECTS', 'integer'],
    ['EDITION', 'string'],
    ['pdf', 'none'],
    ['CLOUD', 'none'],
  ] as const);

  it('offer a number or a text input for each chosen feature that takes a value, in the order chosen', () => {
    expect(featureValueInputs(['pdf', 'MAX_PROJECTS', 'EDITION'], types, {})).toEqual([
      { name: 'MAX_PROJECTS', kind: 'integer' },
      { name: 'EDITION', kind: 'string' },
    ]);
  });

  it('also show a value of a feature made a flag since, so that it can be cleared; not one of an unknown feature or one not chosen', () => {
    expect(featureValueInputs(['CLOUD', 'pdf', 'ghost'], types, { CLOUD: 3, pdf: '', ghost: 1, EDITION: 'x' })).toEqual([{ name: 'CLOUD', kind: 'string' }]);
  });
});
