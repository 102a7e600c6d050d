import { describe, expect, it } from 'vitest';
import type { LicenseForFile, PolicyRow } from './repo.ts';
import { licenseForFile } from './license-for-file.fixture.ts';
import { fileExpiry, licenseEnd, refusalOf } from './service.ts';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const DAY = 86_400_000;

const license = (policy: Partial<PolicyRow>, values: Partial<LicenseForFile> = {}) => licenseForFile(values, policy);

describe('licenseEnd', () => {
  it('ends a license at the end (UTC) of its valid-until day, and never when permanent', () => {
    expect(licenseEnd({ validUntil: '2026-03-10', permanent: false })).toEqual(new Date('2026-03-11T00:00:00.000Z'));
    expect(licenseEnd({ validUntil: '2026-03-10T08:00:00.000Z', permanent: false })).toEqual(new Date('2026-03-10T08:00:00.000Z'));
    expect(licenseEnd({ validUntil: '2026-03-10', permanent: true })).toBeNull();
    expect(licenseEnd({ validUntil: null, permanent: false })).toBeNull();
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
});
