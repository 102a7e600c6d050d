import type { LicensePayload, PublicKey } from './format.js';
import type { LicenseStore } from './store.js';

/** Why there is no valid license. */
export type InvalidReason =
  | 'NO_LICENSE' // the server knows no license of this product for this machine
  | 'REVOKED'
  | 'SUSPENDED' // the license's TAN is suspended (e.g. an unpaid subscription); reinstating it brings it back
  | 'EXPIRED'
  | 'UPGRADED' // the license was upgraded: use the software version of the new license
  | 'NO_SEAT' // every seat of the floating license is taken
  | 'TOO_MANY_MACHINES'
  | 'UNREACHABLE' // no stored file, and the server cannot be reached
  | 'INVALID_FILE' // an imported or stored file that does not verify (altered, or signed by a key not pinned), or is not for this machine and product
  | 'CLOCK_TAMPERED' // the local clock is behind the trusted time (the server's signed time, files' issue times) by more than the tolerance
  | 'SEAT_UNASSIGNED' // desktop sign-in: the person has no seat of this product (any more); an administrator of the organization assigns one
  | 'SIGNED_OUT' // desktop sign-in: the server no longer knows the sign-in (revoked, or the person left the organization); the token is deleted
  | 'SIGNIN_DENIED' // desktop sign-in: the person denied it on /device
  | 'SIGNIN_EXPIRED' // desktop sign-in: nobody approved the code in time
  | 'BORROW_NOT_ALLOWED'; // `borrowDays` beyond the policy's `maxBorrowDays` (or none allowed): only the borrow is refused, the stored files stay and count without `borrowDays`

export type LicenseStatus =
  | {
      valid: true;
      license: LicensePayload;
      /** 'server': just fetched, or the stored file just confirmed by the server; 'store': a stored file still good. */
      source: 'server' | 'store';
      /** The refresh was due but the server could not be reached: working offline until the file expires. */
      offline: boolean;
      /** When the client will next ask the server; null: never. */
      refreshAt: Date | null;
    }
  | {
      valid: false;
      reason: InvalidReason;
      message: string;
      /** The server could not be reached in this check. */
      offline?: boolean;
    };

export interface LicenseClientOptions {
  /** The license server, e.g. `https://licenses.example.com`. */
  serverUrl: string;
  /** The product name as in the catalogue. */
  product: string;
  /** The product version; without it the server picks the newest licensed version. */
  version?: string;
  machineId: string;
  /** The public keys shipped with the software (GET /api/client/v1/keys); the server's word is never trusted alone. */
  publicKeys: readonly PublicKey[];
  /** Where files are kept; default: in memory. Node/Electron: `directoryStore()` from `@license-manager/sdk/node`. */
  store?: LicenseStore;
  fetch?: typeof globalThis.fetch;
  now?: () => Date;
  requestTimeoutMs?: number;
  /**
   * Borrow the floating seat for offline use for this many days (at most the policy's
   * `maxBorrowDays`): the file then runs that long and the seat stays taken until then or until
   * `release()` returns it. Every license request asks for it, so each refresh while online renews
   * the borrow (counted from then).
   */
  borrowDays?: number;
  /**
   * This installation's install key id (`installKey(dir).keyId` from `@license-manager/sdk/node`): a
   * file bound to another installation's key is refused (INVALID_FILE).
   */
  installKeyId?: string;
  /** How far the local clock may lag behind the trusted time before CLOCK_TAMPERED; default 48 hours. */
  clockToleranceMs?: number;
}

/** The server's refusals (error codes) as the client's reasons. */
export const SERVER_REASONS: Record<string, InvalidReason> = {
  ERR_NO_LICENSE: 'NO_LICENSE',
  ERR_LICENSE_REVOKED: 'REVOKED',
  ERR_LICENSE_SUSPENDED: 'SUSPENDED',
  ERR_LICENSE_EXPIRED: 'EXPIRED',
  ERR_LICENSE_UPGRADED: 'UPGRADED',
  ERR_NO_SEAT: 'NO_SEAT',
  ERR_TOO_MANY_MACHINES: 'TOO_MANY_MACHINES',
  ERR_SEAT_UNASSIGNED: 'SEAT_UNASSIGNED',
};

/** A status without a license. */
export const invalid = (reason: InvalidReason, message: string, offline = false): LicenseStatus => ({ valid: false, reason, message, ...(offline ? { offline } : {}) });
