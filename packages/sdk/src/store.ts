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
}

/** The name under which a store keeps the fetched file. */
export const FETCHED_FILE_NAME = 'license.json';

/** A store in memory: nothing survives a restart (tests, or apps that keep the file elsewhere). */
export function memoryStore(initial: StoredFile[] = []): LicenseStore {
  const files = new Map(initial.map((file) => [file.name, file.text]));
  return {
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
