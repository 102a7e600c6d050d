import { useEffect, useSyncExternalStore } from 'react';
import { VERSION_CHECK_INTERVAL_S } from '@lm/contract';

let stale = false;
let loadedHash: string | undefined;
const listeners = new Set<() => void>();

function markStale() {
  if (stale) return;
  stale = true;
  listeners.forEach((listener) => listener());
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
  chunkFailed: markStale,
  async check(): Promise<void> {
    const hash = await fetchHash();
    if (!hash) return;
    if (loadedHash === undefined) loadedHash = hash;
    else if (hash !== loadedHash) markStale();
  },
};

export function useNewVersionAvailable(): boolean {
  useEffect(() => {
    void versionCheck.check();
    const timer = setInterval(() => void versionCheck.check(), VERSION_CHECK_INTERVAL_S * 1000);
    const onChunkError = () => markStale();
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
    () => stale,
  );
}
