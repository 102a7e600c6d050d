import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';

/**
 * Caches cleared across browser tabs (spec section 4): a tab that changes data posts the name of
 * the cache, and every other tab of the app drops its copy. Browsers without BroadcastChannel simply
 * keep their cache until it expires.
 */
const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('license-manager-caches');

export function announceChange(cache: string): void {
  channel?.postMessage({ cache });
}

/** Invalidates the queries under `queryKey` when another tab announces a change of `cache`. */
export function useClearedAcrossTabs(cache: string, queryKey: readonly unknown[]): void {
  const queryClient = useQueryClient();
  const key = JSON.stringify(queryKey);
  useEffect(() => {
    if (!channel) return;
    const listener = (event: MessageEvent<{ cache?: string }>) => {
      if (event.data?.cache === cache) void queryClient.invalidateQueries({ queryKey: JSON.parse(key) as unknown[] });
    };
    channel.addEventListener('message', listener);
    return () => channel.removeEventListener('message', listener);
  }, [cache, key, queryClient]);
}
