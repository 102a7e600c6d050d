import { useEffect, useSyncExternalStore } from 'react';
import { CHUNK_LOAD_TIMEOUT_S, VERSION_CHECK_INTERVAL_S } from '@lm/contract';

/**
 * Why the page should be loaded again: a new version is out (the version check found another build),
 * or a part of the app could not be loaded while the build is the same (the connection failed or
 * hung): then a retry, not "a new version". Null while all is well.
 */
export type ReloadReason = 'new-version' | 'load-failed';

let reason: ReloadReason | null = null;
let loadedHash: string | undefined;
const listeners = new Set<() => void>();

function setReason(next: ReloadReason): void {
  // A new version outranks a failed load: reloading fixes both.
  if (reason === next || reason === 'new-version') return;
  reason = next;
  listeners.forEach((listener) => listener());
}

/** Raises the reload alert for a new version. */
export function markStale() {
  setReason('new-version');
}

/**
 * A script chunk failed: at once "could not be loaded, try again", then the build is asked for, and
 * another build than this page's turns it into "a new version". No answer (the network is down) keeps
 * the retry.
 */
export function markChunkFailed(): Promise<void> {
  setReason('load-failed');
  return versionCheck.check();
}

async function fetchHash(): Promise<string | undefined> {
  try {
    const response = await fetch('/version.json', { cache: 'no-store' });
    if (!response.ok) return undefined;
    return ((await response.json()) as { hash?: string }).hash;
  } catch {
    return undefined;
  }
}

/** The reload alert's state: a new version was deployed, or a script chunk failed to load. */
export const versionCheck = {
  get stale(): boolean {
    return reason !== null;
  },
  get reason(): ReloadReason | null {
    return reason;
  },
  async check(): Promise<void> {
    const hash = await fetchHash();
    if (!hash) return;
    if (loadedHash === undefined) loadedHash = hash;
    else if (hash !== loadedHash) markStale();
  },
};

/** A script chunk that failed or hung: what the error boundary answers with the reload alert, not an error page. */
export class ChunkLoadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChunkLoadError';
  }
}

/**
 * Whether an error means a part of the app could not be loaded: ours from loadChunk, or the
 * browsers' own words for a failed dynamic import (Chromium, Firefox, Safari) and Vite's for a
 * failed preload.
 */
export function isChunkLoadError(error: unknown): boolean {
  if (error instanceof ChunkLoadError) return true;
  if (!(error instanceof Error)) return false;
  return /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS/i.test(error.message);
}

/**
 * Loads a script chunk; one that fails (a new version was deployed, or the connection failed) or
 * takes longer than CHUNK_LOAD_TIMEOUT_S raises the reload alert and rejects with a ChunkLoadError.
 */
export function loadChunk<T>(load: () => Promise<T>, timeoutMs = CHUNK_LOAD_TIMEOUT_S * 1000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ChunkLoadError(`A script chunk did not load within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  return Promise.race([load(), timeout])
    .catch((error: unknown) => {
      void markChunkFailed();
      throw error instanceof ChunkLoadError ? error : new ChunkLoadError(error instanceof Error ? error.message : String(error), { cause: error });
    })
    .finally(() => clearTimeout(timer));
}

/** Why the page should be reloaded, or null; keeps the version check running while mounted. */
export function useReloadReason(): ReloadReason | null {
  useEffect(() => {
    void versionCheck.check();
    const timer = setInterval(() => void versionCheck.check(), VERSION_CHECK_INTERVAL_S * 1000);
    const onChunkError = () => void markChunkFailed();
    window.addEventListener('vite:preloadError', onChunkError);
    return () => {
      clearInterval(timer);
      window.removeEventListener('vite:preloadError', onChunkError);
    };
  }, []);
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => reason,
  );
}
