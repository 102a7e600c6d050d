import { describe, expect, it } from 'vitest';
import { licenseForFile } from '../license-files/license-for-file.fixture.ts';
import type { LicenseForFile } from '../license-files/repo.ts';
import { chooseLicense } from './choose.ts';

const NOW = new Date('2026-03-10T12:00:00.000Z');

const license = (id: number, values: Partial<LicenseForFile> = {}) => licenseForFile({ id, product: { id: 1, name: 'Studio', version: '1', featureValues: {}, releaseDate: '2025-01-01' }, ...values });

describe('chooseLicense', () => {
  it('gives nothing for no candidates', () => {
    expect(chooseLicense([], NOW)).toBeUndefined();
  });

  it('prefers the newest product version, then TAN over trial, then the longest running, then the newest', () => {
    const v2 = { id: 2, name: 'Studio', version: '2', featureValues: {}, releaseDate: '2026-01-01' };
    expect(chooseLicense([license(1), license(2, { productId: 2, product: v2 })], NOW)?.id).toBe(2);
    expect(chooseLicense([license(3, { kind: 'TEMPORARY', permanent: false, validUntil: '2026-12-31' }), license(4)], NOW)?.id).toBe(4);
    expect(chooseLicense([license(5, { permanent: false, validUntil: '2026-04-01' }), license(6, { permanent: false, validUntil: '2026-05-01' })], NOW)?.id).toBe(6);
    expect(chooseLicense([license(7), license(8)], NOW)?.id).toBe(8);
  });

  it('skips unusable licenses, and names the newest one when none is usable', () => {
    expect(chooseLicense([license(9), license(10, { revoked: true })], NOW)?.id).toBe(9);
    expect(chooseLicense([license(11, { revoked: true }), license(12, { permanent: false, validUntil: '2026-01-01' })], NOW)?.id).toBe(12);
  });
});
