import { isExpired, licenseFileTag, parseLicenseFile, refreshDueAfterConfirmation, refreshDueAt, verifyLicenseFile, type LicensePayload } from './format.js';
import { FETCHED_FILE_NAME, memoryStore, type LicenseStore } from './store.js';
import { TrustedClock } from './trusted-time.js';
import { deviceSignIn, type SignInOptions } from './sign-in.js';
import { invalid, SERVER_REASONS, type LicenseClientOptions, type LicenseStatus } from './status.js';

interface Candidate {
  name: string;
  text: string;
  payload: LicensePayload;
}

interface Stored {
  usable: Candidate[];
  expired: Candidate[];
  /** Files in the store that do not verify: altered, or signed by a key that is not pinned. */
  rejected: number;
}

/** An ANY-Lic file: made for any machine. A license's own file naming the machine `*` is not one (its server never issues such a file). */
const forAnyMachine = (payload: LicensePayload) => payload.kind === 'ANYLIC' && payload.machineId === '*';
const isAnyLic = (candidate: Candidate) => forAnyMachine(candidate.payload);
const expiryTime = (candidate: Candidate) => (candidate.payload.expiresAt ? Date.parse(candidate.payload.expiresAt) : Number.POSITIVE_INFINITY);

/**
 * The licensing client of the desktop software: fetches the signed file of its machine, verifies it
 * against pinned keys, keeps it, refreshes it when the file's own refetch fields say so, and works
 * offline from the stored file until that file expires.
 */
export class LicenseClient {
  private readonly options: LicenseClientOptions;
  private readonly store: LicenseStore;
  /** The time files are judged at: the later of the local clock and the trusted time. */
  private readonly now: () => Date;
  private readonly clock: TrustedClock;
  private readonly fetch: typeof globalThis.fetch;
  /** The server's last confirmation (304), for a store that does not keep it (`readConfirmed`). */
  private unstoredConfirmation: string | null = null;
  /** A clock tampering seen and not reported yet, for a store that does not keep it. */
  private unreportedTampering: string | null = null;
  /** The sign-in's token, for a store that does not keep it. */
  private unstoredToken: string | null = null;

  constructor(options: LicenseClientOptions) {
    this.options = options;
    this.store = options.store ?? memoryStore();
    this.clock = new TrustedClock(this.store, options.publicKeys, options.now ?? (() => new Date()), options.clockToleranceMs);
    this.now = () => this.clock.now();
    this.fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
  }

  /** The license now: the stored file while no refresh is due, else a fresh one from the server. */
  async check(): Promise<LicenseStatus> {
    const stored = await this.stored();
    const best = stored.usable[0];
    if (best) {
      const due = await this.refreshDue(best);
      // A borrow not yet granted asks the server at once, whatever the refresh time says.
      if (!this.borrowPending(best) && (!due || due > this.now())) return await this.judgeClock(this.valid(best.payload, 'store', false, due));
    }
    return await this.judgeClock(await this.fetchFresh(stored));
  }

  /** Asks the server now, whatever the stored file says. */
  async refresh(): Promise<LicenseStatus> {
    return await this.judgeClock(await this.fetchFresh(await this.stored()));
  }

  /** The trusted time: the highest time verified from the server's signed time and the files' issue times; null before any. */
  async trustedTime(): Promise<Date | null> {
    await this.clock.load();
    return this.clock.trusted;
  }

  /** A file the user brought (an offline machine): kept when it verifies and fits this machine and product. */
  async importFile(text: string): Promise<LicenseStatus> {
    let payload: LicensePayload;
    try {
      payload = await verifyLicenseFile(text, this.options.publicKeys);
    } catch (error) {
      return invalid('INVALID_FILE', (error as Error).message);
    }
    if (!this.fits(payload)) {
      const other = payload.installKeyId !== undefined && payload.installKeyId !== this.options.installKeyId ? ', bound to another installation' : '';
      return invalid('INVALID_FILE', `the file is for ${payload.product.name} ${payload.product.version} on machine ${payload.machineId}${other}`);
    }
    await this.clock.load();
    this.clock.raise(Date.parse(payload.issuedAt));
    if (isExpired(payload, this.now())) return await this.judgeClock(invalid('EXPIRED', `the file expired at ${payload.expiresAt}`));
    await this.store.save(text);
    await this.writeConfirmation(null);
    return await this.judgeClock(this.valid(payload, 'store', false));
  }

  /**
   * Desktop sign-in of a named user (DESIGN.md 6f; the OAuth 2.0 Device Authorization Grant, RFC
   * 8628): asks the server for a code, hands it to `onCode` (show it with the address, or open
   * `verificationUriComplete` in the browser), and polls until the person approves it in the portal.
   * The token is kept in the store and sent with every license request from then on; the status is
   * the seat's license, fetched with it. `SIGNIN_DENIED` / `SIGNIN_EXPIRED` when the person denied it
   * or nobody approved in time (no token kept); `UNREACHABLE` when the server cannot be reached.
   */
  async signIn(options: SignInOptions): Promise<LicenseStatus> {
    const { product, machineId, version } = this.options;
    const outcome = await deviceSignIn((pathname, body) => this.post(pathname, body), { product, machineId, ...(version === undefined ? {} : { version }) }, options);
    if ('valid' in outcome) return outcome;
    await this.setToken(outcome.token);
    await this.writeConfirmation(null);
    return await this.refresh();
  }

  /** Whether the store holds a desktop sign-in's token. */
  async signedIn(): Promise<boolean> {
    return (await this.token()) !== null;
  }

  /**
   * Ends the desktop sign-in: tells the server (`DELETE /api/client/v1/device/token`, when it can be
   * reached; else the sign-in stays listed under the person's Security page until revoked there),
   * deletes the token and the file fetched with it. False when there was no sign-in.
   */
  async signOut(): Promise<boolean> {
    const token = await this.token();
    if (!token) return false;
    await this.fetch(this.url('/api/client/v1/device/token'), {
      method: 'DELETE',
      headers: { accept: 'application/json', authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 15_000),
    }).catch(() => undefined);
    await this.setToken(null);
    await this.store.remove(FETCHED_FILE_NAME);
    await this.writeConfirmation(null);
    return true;
  }

  /** Gives a floating seat back (at exit) and forgets the file of this machine. */
  async release(): Promise<void> {
    const response = await this.request('DELETE', await this.token());
    if (!response.ok && response.status !== 404) throw new Error(`the license server answered ${response.status}`);
    const stored = await this.stored();
    await this.forget([...stored.usable, ...stored.expired].filter((candidate) => !isAnyLic(candidate)));
  }

  /**
   * Checks now and again whenever a refresh falls due (sooner, with backoff, while the server is
   * unreachable); calls `onStatus` after each check. Returns the function that stops it.
   */
  start(onStatus?: (status: LicenseStatus) => void): () => void {
    let stopped = false;
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      const status = await this.check().catch((error: unknown) => invalid('UNREACHABLE', (error as Error).message));
      if (stopped) return;
      onStatus?.(status);
      const unreachable = (status.valid && status.offline) || (!status.valid && status.reason === 'UNREACHABLE');
      failures = unreachable ? failures + 1 : 0;
      timer = setTimeout(run, this.nextCheckDelay(status, failures));
      (timer as { unref?: () => void }).unref?.();
    };
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  /** Milliseconds until the next check (exported for tests and custom schedulers). */
  nextCheckDelay(status: LicenseStatus, failures: number): number {
    const MINUTE = 60_000;
    const clamp = (ms: number) => Math.min(Math.max(ms, 1000), 24 * 60 * MINUTE);
    const backoff = Math.min(MINUTE * 2 ** Math.max(failures - 1, 0), 15 * MINUTE);
    if (status.valid) {
      if (status.offline) {
        const expiry = status.license.expiresAt ? Date.parse(status.license.expiresAt) - this.now().getTime() : Number.POSITIVE_INFINITY;
        return clamp(Math.min(backoff, expiry));
      }
      return clamp(status.refreshAt ? status.refreshAt.getTime() - this.now().getTime() : 24 * 60 * MINUTE);
    }
    if (status.reason === 'UNREACHABLE') return clamp(backoff);
    if (status.reason === 'NO_SEAT') return MINUTE;
    return 60 * MINUTE;
  }

  // -------------------------------------------------------------------------------------------

  /** A local clock far behind the trusted time spoils a valid or expired verdict: the user set it back. */
  private async judgeClock(status: LicenseStatus): Promise<LicenseStatus> {
    const lag = this.clock.tamperedBy();
    if (lag !== null) await this.noteTampering();
    if (lag === null || (!status.valid && status.reason !== 'EXPIRED')) return status;
    const hours = Math.round(lag / 3_600_000);
    return invalid('CLOCK_TAMPERED', `the computer's clock is ${hours} hours behind the time the license server last confirmed; set it right`, status.valid ? status.offline : status.offline === true);
  }

  /** Remembers when the clock was first seen set back, until the next license request reports it (DESIGN.md 6j). */
  private async noteTampering(): Promise<void> {
    if (await this.tamperingToReport()) return;
    const at = this.now().toISOString();
    this.unreportedTampering = at;
    await this.store.writeClockTampered?.(at);
  }

  private async tamperingToReport(): Promise<string | null> {
    return (await this.store.readClockTampered?.().catch(() => null)) ?? this.unreportedTampering;
  }

  private valid(license: LicensePayload, source: 'server' | 'store', offline: boolean, refreshAt: Date | null = refreshDueAt(license)): LicenseStatus {
    return { valid: true, license, source, offline, refreshAt: offline ? null : refreshAt };
  }

  /** The If-None-Match value for a stored file: its ETag (derived from the file itself). */
  private async tagOf(candidate: Candidate): Promise<string> {
    return licenseFileTag(parseLicenseFile(candidate.text), candidate.payload);
  }

  /** When a stored file falls due for a refresh: from its own fields, or from the server's last confirmation of it. */
  private async refreshDue(candidate: Candidate): Promise<Date | null> {
    const confirmed = await this.readConfirmation();
    if (confirmed && !isAnyLic(candidate) && confirmed.tag === (await this.tagOf(candidate))) return refreshDueAfterConfirmation(candidate.payload, confirmed.at);
    return refreshDueAt(candidate.payload);
  }

  /** The file the server last confirmed (304), by its tag, and when: `<tag> <epoch ms>`, as every client keeps it. */
  private async readConfirmation(): Promise<{ tag: string; at: Date } | null> {
    const text = this.store.readConfirmed ? await this.store.readConfirmed().catch(() => null) : this.unstoredConfirmation;
    const parts = (text ?? '').trim().split(/\s+/);
    // An unreadable note counts for nothing: the file's own schedule.
    return parts.length === 2 && /^\d+$/.test(parts[1]!) ? { tag: parts[0]!, at: new Date(Number(parts[1])) } : null;
  }

  /** Keeps the confirmation in the store, so that the next run counts from it too; null forgets it. */
  private async writeConfirmation(confirmed: { tag: string; at: Date } | null): Promise<void> {
    const text = confirmed ? `${confirmed.tag} ${confirmed.at.getTime()}\n` : null;
    if (!this.store.writeConfirmed) this.unstoredConfirmation = text;
    // A store that cannot be written keeps nothing: the next check asks again.
    else await this.store.writeConfirmed(text).catch(() => undefined);
  }

  /** Whether a borrow is asked for and the held file (none, or the machine's own) does not say one that still runs. */
  private borrowPending(held: Candidate | undefined): boolean {
    if (!this.options.borrowDays || (held && isAnyLic(held))) return false;
    const until = held?.payload.borrowedUntil;
    return !until || Date.parse(until) <= this.now().getTime();
  }

  private fits(payload: LicensePayload): boolean {
    const { product, version, machineId, installKeyId } = this.options;
    return (
      (payload.machineId === machineId || forAnyMachine(payload)) &&
      (payload.installKeyId === undefined || payload.installKeyId === installKeyId) &&
      payload.product.name === product &&
      (version === undefined || payload.product.version === version)
    );
  }

  /** The stored files that verify and fit, usable ones best first (a machine's own before ANY-Lic, longest running). */
  private async stored(): Promise<Stored> {
    await this.clock.load();
    const candidates: Candidate[] = [];
    let rejected = 0;
    for (const file of await this.store.list()) {
      try {
        const payload = await verifyLicenseFile(file.text, this.options.publicKeys);
        this.clock.raise(Date.parse(payload.issuedAt));
        if (this.fits(payload)) candidates.push({ ...file, payload });
      } catch {
        // Not a genuine license file of ours: never used, and named when nothing else is left.
        rejected++;
      }
    }
    const now = this.now();
    const usable = candidates
      .filter((candidate) => !isExpired(candidate.payload, now))
      .sort((a, b) => Number(isAnyLic(a)) - Number(isAnyLic(b)) || expiryTime(b) - expiryTime(a) || Date.parse(b.payload.issuedAt) - Date.parse(a.payload.issuedAt));
    return { usable, expired: candidates.filter((candidate) => isExpired(candidate.payload, now)), rejected };
  }

  /** Forgets this machine's files and their confirmation: the server's final word, or a release. */
  private async forget(candidates: Candidate[]): Promise<void> {
    for (const candidate of candidates) await this.store.remove(candidate.name);
    await this.writeConfirmation(null);
  }

  private url(pathname: string): string {
    return `${this.options.serverUrl.replace(/\/$/, '')}${pathname}`;
  }

  /** The desktop sign-in's token, or null. */
  private async token(): Promise<string | null> {
    if (!this.store.readToken) return this.unstoredToken;
    return (await this.store.readToken().catch(() => null)) || null;
  }

  private async setToken(token: string | null): Promise<void> {
    if (this.store.writeToken) await this.store.writeToken(token);
    else this.unstoredToken = token;
  }

  /** A JSON POST of the desktop sign-in's protocol. */
  private async post(pathname: string, body: Record<string, unknown>): Promise<Response> {
    return this.fetch(this.url(pathname), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 15_000),
    });
  }

  /**
   * A license request; with a desktop sign-in's token as `Authorization: Bearer`. A POST carries
   * `borrowDays` whenever it is set: a refresh of a borrowed file renews the borrow (the server counts
   * borrowedUntil from now), where one without would bring the short floating file.
   */
  private async request(method: 'POST' | 'DELETE', token: string | null, ifNoneMatch?: string, clockTamperedAt?: string | null): Promise<Response> {
    const { machineId, product, version, borrowDays } = this.options;
    return this.fetch(this.url('/api/client/v1/license'), {
      method,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ machineId, product, ...(version === undefined ? {} : { version }), ...(method === 'POST' && borrowDays ? { borrowDays } : {}), ...(clockTamperedAt ? { clockTamperedAt } : {}) }),
      signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 15_000),
    });
  }

  private async fetchFresh(stored: Stored): Promise<LicenseStatus> {
    // The machine's own file (not an ANY-Lic one) goes along as If-None-Match: the server answers 304
    // while it is still right, which costs it no signature. A pending borrow asks for a new file (one
    // that says borrowedUntil), so it sends none.
    const held = stored.usable.find((candidate) => !isAnyLic(candidate));
    const borrow = this.borrowPending(held);
    const tag = held && !borrow ? await this.tagOf(held) : undefined;
    // A clock set back is reported with this request, and forgotten once the server answered it.
    if (this.clock.tamperedBy() !== null) await this.noteTampering();
    const tamperedAt = await this.tamperingToReport();
    const token = await this.token();
    let response: Response;
    try {
      response = await this.request('POST', token, tag, tamperedAt);
    } catch (error) {
      return this.offline(stored, `the license server cannot be reached (${(error as Error).message})`);
    }
    if (tamperedAt && response.status < 500) {
      this.unreportedTampering = null;
      await this.store.writeClockTampered?.(null);
    }
    await this.clock.noteServerTime(response.headers.get('license-server-time'));
    if (response.status === 304 && held && tag) {
      const confirmed = { tag, at: this.now() };
      await this.writeConfirmation(confirmed);
      return this.valid(held.payload, 'server', false, refreshDueAfterConfirmation(held.payload, confirmed.at));
    }
    const text = await response.text().catch(() => '');
    if (response.ok) {
      try {
        const payload = await verifyLicenseFile(text, this.options.publicKeys);
        if (!this.fits(payload)) throw new Error('the server sent a file for another machine or product');
        this.clock.raise(Date.parse(payload.issuedAt));
        await this.store.save(text);
        await this.writeConfirmation(null);
        return this.valid(payload, 'server', false);
      } catch (error) {
        return this.offline(stored, `the server's license file is not valid (${(error as Error).message})`);
      }
    }
    let body: { error?: string; message?: string } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // not an error body of the license server
    }
    // Only the borrow is refused, not the license: the stored files stay, and count again without borrowDays.
    if (body.error === 'ERR_BORROW_NOT_ALLOWED') return invalid('BORROW_NOT_ALLOWED', body.message ?? body.error);
    // A 401 to a request with the sign-in's token: the sign-in ended (revoked, or the person left).
    const signedOut = response.status === 401 && token !== null;
    if (signedOut) await this.setToken(null);
    const reason = signedOut ? 'SIGNED_OUT' : body.error ? SERVER_REASONS[body.error] : undefined;
    if (!reason) return this.offline(stored, `the license server answered ${response.status}`);
    // The server's final word: this machine's stored files no longer count; an ANY-Lic file still does.
    await this.forget([...stored.usable, ...stored.expired].filter((candidate) => !isAnyLic(candidate)));
    const anyLic = stored.usable.find(isAnyLic);
    if (anyLic) return this.valid(anyLic.payload, 'store', false);
    return invalid(reason, body.message ?? reason);
  }

  private offline(stored: Stored, message: string): LicenseStatus {
    if (stored.usable[0]) return this.valid(stored.usable[0].payload, 'store', true);
    const expired = stored.expired[0];
    if (expired) return invalid('EXPIRED', `the license file expired at ${expired.payload.expiresAt} and ${message}`, true);
    if (stored.rejected) return invalid('INVALID_FILE', `the stored license file does not verify (altered, or signed by a key that is not pinned) and ${message}`, true);
    return invalid('UNREACHABLE', message, true);
  }
}
