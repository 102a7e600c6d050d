import { licenseFileTag, parseLicenseFile, verifyLicenseFile, type LicensePayload, type PublicKey } from './format.js';
import type { InvalidReason } from './status.js';

/**
 * An instance lease (DESIGN.md section 6h) for containers, CI runners and virtual machines: the
 * license key (the TAN, e.g. from an environment variable) leases one of its seats for this process,
 * as a random instance id made at start. The lease lives while it is renewed (`renew()` every
 * `refetchIntervalSeconds`, or `start()`); `release()` on a clean exit frees the seat at once, and a
 * killed process's seat comes free when its lease's time to live runs out. Nothing is stored.
 */
export interface InstanceLeaseOptions {
  serverUrl: string;
  /** The license key: the TAN of an INSTANCE policy. */
  licenseKey: string;
  product: string;
  version?: string;
  publicKeys: readonly PublicKey[];
  /** Default: a random id per process start. */
  instanceId?: string;
  fetch?: typeof globalThis.fetch;
  requestTimeoutMs?: number;
}

export type LeaseStatus = { valid: true; license: LicensePayload } | { valid: false; reason: InvalidReason | 'NOT_INSTANCE_KEY'; message: string };

const REASONS: Record<string, InvalidReason | 'NOT_INSTANCE_KEY'> = {
  ERR_NO_LICENSE: 'NO_LICENSE',
  ERR_LICENSE_REVOKED: 'REVOKED',
  ERR_LICENSE_SUSPENDED: 'SUSPENDED',
  ERR_LICENSE_EXPIRED: 'EXPIRED',
  ERR_NO_SEAT: 'NO_SEAT',
  ERR_NOT_INSTANCE_KEY: 'NOT_INSTANCE_KEY',
};

export class InstanceLease {
  readonly instanceId: string;
  private readonly options: InstanceLeaseOptions;
  private readonly fetch: typeof globalThis.fetch;
  private held: { payload: LicensePayload; tag: string } | undefined;

  constructor(options: InstanceLeaseOptions) {
    this.options = options;
    this.instanceId = options.instanceId ?? `i-${globalThis.crypto.randomUUID()}`;
    this.fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
  }

  /** Takes a seat, or renews the lease held (the conditional refresh: 304 keeps the file). */
  async renew(): Promise<LeaseStatus> {
    let response: Response;
    try {
      response = await this.call('POST', this.held?.tag);
    } catch (error) {
      return { valid: false, reason: 'UNREACHABLE', message: (error as Error).message };
    }
    if (response.status === 304 && this.held) return { valid: true, license: this.held.payload };
    const text = await response.text().catch(() => '');
    if (response.ok) {
      try {
        const file = parseLicenseFile(text);
        const payload = await verifyLicenseFile(file, this.options.publicKeys);
        if (payload.machineId !== this.instanceId || payload.leaseMode !== 'INSTANCE' || payload.product.name !== this.options.product) {
          throw new Error('the server sent a file for another instance or product');
        }
        this.held = { payload, tag: await licenseFileTag(file, payload) };
        return { valid: true, license: payload };
      } catch (error) {
        return { valid: false, reason: 'INVALID_FILE', message: (error as Error).message };
      }
    }
    this.held = undefined;
    let body: { error?: string; message?: string } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // not an error body of the license server
    }
    const reason = body.error ? REASONS[body.error] : undefined;
    return reason ? { valid: false, reason, message: body.message ?? reason } : { valid: false, reason: 'UNREACHABLE', message: `the license server answered ${response.status}` };
  }

  /** Frees the seat (a clean exit). */
  async release(): Promise<void> {
    this.held = undefined;
    const response = await this.call('DELETE');
    if (!response.ok && response.status !== 404) throw new Error(`the license server answered ${response.status}`);
  }

  /** Renews now and every `refetchIntervalSeconds` of the file (a minute while refused); returns the function that stops it. */
  start(onStatus?: (status: LeaseStatus) => void): () => void {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const run = async () => {
      const status = await this.renew();
      if (stopped) return;
      onStatus?.(status);
      const seconds = status.valid ? Math.max(1, status.license.refetchIntervalSeconds) : 60;
      timer = setTimeout(run, seconds * 1000);
      (timer as { unref?: () => void }).unref?.();
    };
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  private call(method: 'POST' | 'DELETE', ifNoneMatch?: string): Promise<Response> {
    const { serverUrl, licenseKey, product, version } = this.options;
    return this.fetch(`${serverUrl.replace(/\/$/, '')}/api/client/v1/lease`, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}) },
      body: JSON.stringify({ key: licenseKey, product, instanceId: this.instanceId, ...(version === undefined ? {} : { version }) }),
      signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 15_000),
    });
  }
}
