import { describe, expect, it } from 'vitest';
import type { LicenseForFile, PolicyRow } from './repo.ts';
import { licenseForFile } from './license-for-file.fixture.ts';
import { borrowEnd, borrowRefusal, fileExpiry, licenseEnd, refusalOf } from './service.ts';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const DAY = 86_400_000;

const license = (policy: Partial<PolicyRow>, values: Partial<LicenseForFile> = {}) => licenseForFile(values, policy);

describe('licenseEnd', () => {
  it('ends a license at the end (UTC) of its valid-until day, and never when permanent', () => {
    expect(licenseEnd({ validUntil: '2026-03-10', permanent: false, tanValidUntil: null })).toEqual(new Date('2026-03-11T00:00:00.000Z'));
    expect(licenseEnd({ validUntil: '2026-03-10T08:00:00.000Z', permanent: false, tanValidUntil: null })).toEqual(new Date('2026-03-10T08:00:00.000Z'));
    expect(licenseEnd({ validUntil: '2026-03-10', permanent: true, tanValidUntil: null })).toBeNull();
    expect(licenseEnd({ validUntil: null, permanent: false, tanValidUntil: null })).toBeNull();
  });

  it('ends with its TAN’s validity (a subscription) when that comes first, even when permanent', () => {
    expect(licenseEnd({ validUntil: null, permanent: true, tanValidUntil: '2026-04-30' })).toEqual(new Date('2026-05-01T00:00:00.000Z'));
    expect(licenseEnd({ validUntil: '2026-04-10', permanent: false, tanValidUntil: '2026-04-30' })).toEqual(new Date('2026-04-11T00:00:00.000Z'));
    expect(licenseEnd({ validUntil: '2026-05-10', permanent: false, tanValidUntil: '2026-04-30' })).toEqual(new Date('2026-05-01T00:00:00.000Z'));
  });
});

describe('fileExpiry', () => {
  it('PERPETUAL: never, unless the license ends', () => {
    expect(fileExpiry(license({ type: 'PERPETUAL' }), NOW)).toBeNull();
    expect(fileExpiry(license({ type: 'PERPETUAL' }, { permanent: false, validUntil: '2026-04-01' }), NOW)).toEqual(new Date('2026-04-02T00:00:00.000Z'));
  });

  it('INDEFINITE: licenseMaxValidDays from now, at most to the license end', () => {
    expect(fileExpiry(license({ type: 'INDEFINITE', licenseMaxValidDays: 30 }), NOW)).toEqual(new Date(NOW.getTime() + 30 * DAY));
    expect(fileExpiry(license({ type: 'INDEFINITE' }, { permanent: false, validUntil: '2026-03-12' }), NOW)).toEqual(new Date('2026-03-13T00:00:00.000Z'));
  });

  it('FLOATING: one refresh interval plus the refetch-before-expiry grace, at most licenseMaxValidDays', () => {
    const floating = { type: 'FLOATING' as const, licenseMaxValidDays: 1, refetchIntervalSeconds: 900, refetchBeforeExpirySeconds: 3600 };
    expect(fileExpiry(license(floating), NOW)).toEqual(new Date(NOW.getTime() + 4500_000));
    expect(fileExpiry(license({ ...floating, refetchIntervalSeconds: 0 }), NOW)).toEqual(new Date(NOW.getTime() + DAY));
    expect(fileExpiry(license({ ...floating, refetchIntervalSeconds: 7 * 86400 }), NOW)).toEqual(new Date(NOW.getTime() + DAY));
  });
});

describe('refusalOf', () => {
  it('refuses revoked, upgraded and expired licenses with the status asked for', () => {
    expect(refusalOf(license({}), NOW, 403)).toBeNull();
    expect(refusalOf(license({}, { revoked: true }), NOW, 403)).toMatchObject({ status: 403, code: 'ERR_LICENSE_REVOKED' });
    expect(refusalOf(license({}, { upgradedToId: 9 }), NOW, 422)).toMatchObject({ status: 422, code: 'ERR_LICENSE_UPGRADED' });
    expect(refusalOf(license({}, { permanent: false, validUntil: '2026-03-09' }), NOW, 403)).toMatchObject({ code: 'ERR_LICENSE_EXPIRED' });
    expect(refusalOf(license({}, { permanent: false, validUntil: '2026-03-10' }), NOW, 403)).toBeNull();
  });

  it('refuses a suspended license, and one whose TAN’s validity (a lapsed subscription) has passed', () => {
    expect(refusalOf(license({}, { suspended: true }), NOW, 403)).toMatchObject({ status: 403, code: 'ERR_LICENSE_SUSPENDED' });
    expect(refusalOf(license({}, { tanValidUntil: '2026-03-09' }), NOW, 403)).toMatchObject({ code: 'ERR_LICENSE_EXPIRED' });
    expect(refusalOf(license({}, { tanValidUntil: '2026-03-10' }), NOW, 403)).toBeNull();
    // Revocation is final and says so first.
    expect(refusalOf(license({}, { suspended: true, revoked: true }), NOW, 403)).toMatchObject({ code: 'ERR_LICENSE_REVOKED' });
  });
});

describe('borrowing', () => {
  it('lets a floating license borrow up to its policy’s maxBorrowDays, others not at all', () => {
    expect(borrowRefusal(license({ type: 'FLOATING', maxBorrowDays: 14 }), 14)).toBeNull();
    expect(borrowRefusal(license({ type: 'FLOATING', maxBorrowDays: 14 }), 15)).toMatchObject({ status: 422, code: 'ERR_BORROW_NOT_ALLOWED', params: { max: 14 } });
    expect(borrowRefusal(license({ type: 'FLOATING', maxBorrowDays: 0 }), 1)).toMatchObject({ code: 'ERR_BORROW_NOT_ALLOWED' });
    expect(borrowRefusal(license({ type: 'INDEFINITE', maxBorrowDays: 14 }), 1)).toMatchObject({ code: 'ERR_BORROW_NOT_ALLOWED', params: { max: 0 } });
  });

  it('ends a borrow after its days, never past the license’s end', () => {
    expect(borrowEnd(license({ type: 'FLOATING' }), NOW, 7)).toEqual(new Date(NOW.getTime() + 7 * DAY));
    expect(borrowEnd(license({ type: 'FLOATING' }, { tanValidUntil: '2026-03-12' }), NOW, 7)).toEqual(new Date('2026-03-13T00:00:00.000Z'));
  });
});
