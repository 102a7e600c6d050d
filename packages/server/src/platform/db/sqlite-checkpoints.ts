import { Worker } from 'node:worker_threads';

/** How often the checkpoint thread copies what the WAL holds into the database files it serves. */
export const CHECKPOINT_INTERVAL_MS = 100;

/** SQLite's own threshold (pages of WAL), which a connection goes back to when the thread is gone. */
export const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

/**
 * How long a RESTART checkpoint waits for the write lock and then, holding it, for the readers; the
 * app's writes wait meanwhile. One that could not finish is tried again after 1 s, 2 s, … up to 30 s.
 */
const RESTART_WAIT_MS = 100;

/**
 * Past this many pages in the WAL (16 MB), a checkpoint also makes the next write start the WAL
 * afresh. SQLite does that only when a write begins while every page of the WAL is in the file; under
 * steady writes a thread's checkpoint never finishes just then, and the WAL grew past 800 MB in a
 * minute of last-seen writes (every read searches the WAL's index for its pages).
 */
export const RESTART_AFTER_PAGES = 4000;

/**
 * The thread's code, CommonJS and evaluated (no file to find next to a build). Per database file one
 * connection of its own and, every interval, a PASSIVE checkpoint: it copies the WAL's pages that no
 * reader still needs and waits for no one. After it, with a long WAL, a RESTART one: it holds the
 * write lock (the app's writes wait asynchronously, sqlite-dialect.ts) while it copies the pages
 * written since and until the readers of the turn are done, so that the next write starts the WAL
 * afresh. (A TRUNCATE one, which empties the file too, cost the protocol bench's full fetch a fifth of
 * its throughput: the file shrank and grew again many times a minute.) A failure (a full disk, a file
 * made read-only) is told once and tried again with a fresh connection at the next interval.
 */
const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const files = new Map();
function checkpoint(id, entry) {
  try {
    if (!entry.db) {
      entry.db = new DatabaseSync(entry.file);
      entry.db.exec('PRAGMA busy_timeout = ' + workerData.restartWaitMs);
    }
    let result = entry.db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get();
    if (result.log >= workerData.restartAfterPages && Date.now() >= entry.restartNotBefore) {
      result = entry.db.prepare('PRAGMA wal_checkpoint(RESTART)').get();
      // A reader that stays (a backup, a report, a shell) would have the writes wait at every try.
      entry.restartBackoff = result.busy ? Math.min(entry.restartBackoff * 2 || 1000, 30000) : 0;
      entry.restartNotBefore = Date.now() + entry.restartBackoff;
    }
    entry.failed = false;
  } catch (error) {
    try { entry.db?.close(); } catch {}
    entry.db = undefined;
    if (!entry.failed) parentPort.postMessage({ type: 'failed', id, message: String(error?.message ?? error) });
    entry.failed = true;
  }
}
setInterval(() => { for (const [id, entry] of files) checkpoint(id, entry); }, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message.type === 'open') files.set(message.id, { file: message.file, failed: false, restartNotBefore: 0, restartBackoff: 0 });
  if (message.type === 'close') {
    try { files.get(message.id)?.db?.close(); } catch {}
    files.delete(message.id);
    parentPort.postMessage({ type: 'closed', id: message.id });
  }
});
`;

interface ThreadMessage {
  type: 'failed' | 'closed';
  id: number;
  message?: string;
}

export interface CheckpointEvents {
  /** The thread is gone: the connection must checkpoint itself again (SQLite's wal_autocheckpoint). */
  onThreadLost(error: Error): void;
  /** A checkpoint failed (told once until one succeeds again). */
  onFailure?(message: string): void;
}

export interface CheckpointRegistration {
  /** Ends the thread's connection to the file; resolves once it is closed (or the thread is gone). */
  release(): Promise<void>;
}

/**
 * WAL checkpoints of the embedded database off the event loop. SQLite checkpoints on the commit that
 * finds more than 1000 pages in the WAL: that commit copies them into the database file and syncs
 * both, inside the synchronous call, and the whole server waits. Writing 20,000 last-seen times of
 * the protocol bench's database in chunks as the app does, with every sync made to take 30 ms (a slow
 * network disk), held the event loop up by 43 ms on average (p99 235 ms) and took 8 s; with the
 * thread 5 ms (p99 100 ms) and 3.5 s. So the app's connection turns its own checkpoints off, and one
 * thread per process checkpoints every file database the process has open (one thread, not one per
 * database: starting one costs 40–90 ms, which tests that open hundreds of databases would pay each
 * time). Should the thread fail, every connection it served checkpoints itself again.
 */
class CheckpointThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private releasing = 0;
  private readonly served = new Map<number, { events: CheckpointEvents; closed?: () => void }>();

  register(file: string, events: CheckpointEvents): CheckpointRegistration {
    const worker = this.start();
    const id = this.nextId++;
    this.served.set(id, { events });
    worker.postMessage({ type: 'open', id, file });
    return {
      release: () =>
        new Promise<void>((resolve) => {
          const entry = this.served.get(id);
          if (!entry || this.worker !== worker) {
            this.served.delete(id);
            resolve();
            return;
          }
          this.releasing++;
          worker.ref();
          entry.closed = () => {
            if (--this.releasing === 0) worker.unref();
            resolve();
          };
          worker.postMessage({ type: 'close', id });
        }),
    };
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const workerData = { intervalMs: CHECKPOINT_INTERVAL_MS, restartAfterPages: RESTART_AFTER_PAGES, restartWaitMs: RESTART_WAIT_MS };
    const worker = new Worker(THREAD_CODE, { eval: true, workerData, name: 'sqlite-checkpoints' });
    worker.on('message', (message: ThreadMessage) => this.receive(message));
    const lost = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const served = [...this.served.values()];
      this.served.clear();
      for (const entry of served) {
        entry.events.onThreadLost(error);
        entry.closed?.();
      }
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the checkpoint thread ended (exit code ${code})`)));
    // The process ends when its work does; an open database's interval in the thread is no reason to
    // stay (after the listeners: adding one refs the worker again). A release under way is (release()).
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private receive(message: ThreadMessage): void {
    const entry = this.served.get(message.id);
    if (!entry) return;
    if (message.type === 'closed') {
      this.served.delete(message.id);
      entry.closed?.();
    } else {
      entry.events.onFailure?.(message.message ?? 'unknown error');
    }
  }

  /** For tests: ends the thread as a crash would. */
  async crashForTest(): Promise<void> {
    await this.worker?.terminate();
  }
}

export const checkpointThread = new CheckpointThread();
