/** Where the client keeps license files between runs. */
export interface StoredFile {
  /** A name unique within the store (a file name for the directory store). */
  name: string;
  text: string;
}

export interface LicenseStore {
  /** Every license file in the store: the one the client fetched, and any the user put there. */
  list(): Promise<StoredFile[]>;
  /** Keeps a file fetched from the server, replacing the previously fetched one. */
  save(text: string): Promise<void>;
  remove(name: string): Promise<void>;
  /**
   * The highest `License-Server-Time` token the client verified (trusted time, DESIGN.md 6d): kept
   * as the signed token, so that editing it needs an older genuine token. Optional for a store of
   * one's own; without it the client knows only the `issuedAt` of its stored files.
   */
  readServerTime?(): Promise<string | null>;
  writeServerTime?(token: string): Promise<void>;
  /**
   * When the client saw the machine's clock set back and has not told the server yet (DESIGN.md
   * 6j): sent as `clockTamperedAt` with its next license request, then cleared (null). Optional;
   * without it the client remembers it until it exits.
   */
  readClockTampered?(): Promise<string | null>;
  writeClockTampered?(at: string | null): Promise<void>;
  /**
   * The access token of a desktop sign-in (DESIGN.md 6f, `LicenseClient.signIn`), sent as
   * `Authorization: Bearer` with every license request; null deletes it. A secret: keep it where
   * only this user can read it. Optional; without it the client keeps the token until it exits.
   */
  readToken?(): Promise<string | null>;
  writeToken?(token: string | null): Promise<void>;
  /**
   * The stored file the server last confirmed (304) and when, `<tag> <epoch ms>\n` (the text every
   * client keeps as `confirmed.state`): the next refresh counts from then, in the next run too; null
   * deletes it. Optional; without it the client remembers it until it exits.
   */
  readConfirmed?(): Promise<string | null>;
  writeConfirmed?(state: string | null): Promise<void>;
}

/** The name under which a store keeps the fetched file. */
export const FETCHED_FILE_NAME = 'license.json';

/** The name under which the directory store keeps the server's time (no .json/.lic: not a license file). */
export const SERVER_TIME_FILE_NAME = 'server-time';

/** The name under which the directory store keeps a clock tampering not reported yet. */
export const CLOCK_TAMPERED_FILE_NAME = 'clock-tampered';

/** The name under which the directory store keeps a desktop sign-in's token (mode 0600; not a license file). */
export const DESKTOP_TOKEN_FILE_NAME = 'desktop-token';

/** The name under which the directory store keeps the server's last confirmation (no .json/.lic: not a license file). */
export const CONFIRMED_FILE_NAME = 'confirmed.state';

/** A store in memory: nothing survives a restart (tests, or apps that keep the file elsewhere). */
export function memoryStore(initial: StoredFile[] = []): LicenseStore {
  const files = new Map(initial.map((file) => [file.name, file.text]));
  let serverTime: string | null = null;
  let clockTampered: string | null = null;
  let token: string | null = null;
  let confirmed: string | null = null;
  return {
    async readConfirmed() {
      return confirmed;
    },
    async writeConfirmed(state) {
      confirmed = state;
    },
    async readToken() {
      return token;
    },
    async writeToken(value) {
      token = value;
    },
    async readClockTampered() {
      return clockTampered;
    },
    async writeClockTampered(at) {
      clockTampered = at;
    },
    async readServerTime() {
      return serverTime;
    },
    async writeServerTime(token) {
      serverTime = token;
    },
    async list() {
      return [...files].map(([name, text]) => ({ name, text }));
    },
    async save(text) {
      files.set(FETCHED_FILE_NAME, text);
    },
    async remove(name) {
      files.delete(name);
    },
  };
}
