import { describe, expect, it } from 'vitest';
import { productFields, type Product } from '@lm/contract/product';
import { productBody, productFormValues } from './product-form-values.ts';

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
  features: ['pdf'],
  featureValues: {},
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
      features: ['pdf'],
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
});
