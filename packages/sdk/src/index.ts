export { LicenseClient, type InvalidReason, type LicenseClientOptions, type LicenseStatus } from './client.ts';
export {
  InvalidLicenseFileError,
  isExpired,
  parseLicenseFile,
  refreshDueAt,
  verifyLicenseFile,
  type LicenseFile,
  type LicensePayload,
  type PublicKey,
} from './format.ts';
export { FETCHED_FILE_NAME, memoryStore, type LicenseStore, type StoredFile } from './store.ts';
