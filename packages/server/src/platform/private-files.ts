import fs from 'node:fs';

/**
 * The database, its backups and mails written to files hold password hashes, the encrypted signing
 * key and reset links: readable by the service's user only. Files are made 0600 and folders 0700 when
 * this code creates them (the umask can only take more away); existing ones keep what an
 * operator gave them.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Creates the folder (and missing parents) as 0700; an existing folder is left as it is. */
export function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates `file` empty as 0600 unless it exists, so that what opens it next (SQLite, VACUUM INTO)
 * writes into a private file. SQLite gives its -wal and -shm files the database file's mode.
 */
export function createPrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
