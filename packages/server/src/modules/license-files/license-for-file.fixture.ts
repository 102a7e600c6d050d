import type { LicenseForFile, PolicyRow } from './repo.ts';

/** A permanent INDEFINITE license of Ada Lovelace on machine M, for unit tests of the file rules. */
export function licenseForFile(values: Partial<LicenseForFile> = {}, policy: Partial<PolicyRow> = {}): LicenseForFile {
  return {
    id: 1,
    kind: 'TAN',
    ownerId: 1,
    productId: 1,
    policyId: 1,
    tanId: null,
    machineId: 'M',
    validUntil: null,
    permanent: true,
    revoked: false,
    freeUpdatesUntil: null,
    upgradedToId: null,
    suspended: false,
    tanValidUntil: null,
    owner: { firstName: 'Ada', lastName: 'Lovelace', company: null },
    product: { id: 1, name: 'Studio', version: '1', releaseDate: null },
    ...values,
    policy: {
      id: 1,
      type: 'INDEFINITE',
      licenseMaxValidDays: 30,
      refetchIntervalSeconds: 3600,
      refetchBeforeExpirySeconds: 600,
      maxDifferentMachinesCount: 3,
      maxDifferentMachinesIntervalHours: 24,
      maxBorrowDays: 0,
      ...values.policy,
      ...policy,
    },
  };
}
