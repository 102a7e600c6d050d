export { LicenseClient, type InvalidReason, type LicenseClientOptions, type LicenseStatus } from './client.js';
export {
  InvalidLicenseFileError,
  isExpired,
  licenseFileTag,
  parseLicenseFile,
  refreshDueAfterConfirmation,
  refreshDueAt,
  verifyLicenseFile,
  verifyServerTime,
  type ServerTime,
  type LicenseFile,
  type LicensePayload,
  type PublicKey,
} from './format.js';
export { FETCHED_FILE_NAME, SERVER_TIME_FILE_NAME, memoryStore, type LicenseStore, type StoredFile } from './store.js';
export { DEFAULT_CLOCK_TOLERANCE_MS } from './trusted-time.js';
