import { useEffect } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { CACHE_LIFETIME_MS, FEATURE_CACHE_LIMIT, type ListResult } from '@lm/contract';
import type { Feature } from '@lm/contract/feature';
import { api } from './api.ts';

/** The query of the feature cache; feature lists and products use keys under ['features'] and ['products']. */
export const FEATURE_CACHE_KEY = ['features', 'cache'] as const;
const CHANNEL_NAME = 'lm-feature-cache';

let channel: BroadcastChannel | null = null;
let listeningClient: QueryClient | null = null;

function clearLocally(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: ['features'] });
  void queryClient.invalidateQueries({ queryKey: ['products'] });
}

/** One channel per tab: a message from another tab clears this tab's cache too. */
export function listenForFeatureChanges(queryClient: QueryClient): void {
  if (listeningClient === queryClient || typeof BroadcastChannel === 'undefined') return;
  channel ??= new BroadcastChannel(CHANNEL_NAME);
  channel.onmessage = () => clearLocally(queryClient);
  listeningClient = queryClient;
}

/**
 * Every feature (spec section 4: fetched with limit 10000, kept 10 minutes), for the features input
 * and the matrix; cleared in every open tab when a feature changes.
 */
export function useFeatureCache() {
  const queryClient = useQueryClient();
  useEffect(() => listenForFeatureChanges(queryClient), [queryClient]);
  return useQuery({
    queryKey: FEATURE_CACHE_KEY,
    queryFn: () => api<ListResult<Feature>>('/features', { query: { limit: FEATURE_CACHE_LIMIT, sort: 'name' } }).then((list) => list.items),
    staleTime: CACHE_LIFETIME_MS,
    gcTime: CACHE_LIFETIME_MS,
  });
}

/** After a feature was created, changed or deleted: clears the cache here and in the other tabs. */
export function featuresChanged(queryClient: QueryClient): void {
  listenForFeatureChanges(queryClient);
  clearLocally(queryClient);
  channel?.postMessage('changed');
}
