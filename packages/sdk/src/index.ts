export { LicenseClient } from './client.js';
export { type DeviceCode, type SignInOptions } from './sign-in.js';
export { type InvalidReason, type LicenseClientOptions, type LicenseStatus } from './status.js';
export { InstanceLease, type InstanceLeaseOptions, type LeaseStatus } from './lease.js';
export {
  featureValue,
  hasFeature,
  metadata,
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
export { CONFIRMED_FILE_NAME, DESKTOP_TOKEN_FILE_NAME, FETCHED_FILE_NAME, SERVER_TIME_FILE_NAME, memoryStore, type LicenseStore, type StoredFile } from './store.js';
export { DEFAULT_CLOCK_TOLERANCE_MS } from './trusted-time.js';
export { checkForUpdate, downloadUpdate, UpdateError, type CheckForUpdateOptions, type UpdateArtifact, type UpdateInfo } from './updates.js';
