import { useQuery, type QueryClient } from '@tanstack/react-query';
import { CACHE_LIFETIME_MS, FEATURE_CACHE_LIMIT, type ListResult } from '@lm/contract';
import type { Feature } from '@lm/contract/feature';
import { api } from './api.ts';
import { clearAcrossTabs } from './cache-broadcast.ts';

/** The query of the feature cache; feature lists and products use keys under ['features'] and ['products']. */
export const FEATURE_CACHE_KEY = ['features', 'cache'] as const;
/**
 * Every feature (spec section 4: fetched with limit 10000, kept 10 minutes), for the features input
 * and the matrix; cleared in every open tab when a feature changes.
 */
export function useFeatureCache() {
  return useQuery({
    queryKey: FEATURE_CACHE_KEY,
    queryFn: () => api<ListResult<Feature>>('/features', { query: { limit: FEATURE_CACHE_LIMIT, sort: 'name' } }).then((list) => list.items),
    staleTime: CACHE_LIFETIME_MS,
    gcTime: CACHE_LIFETIME_MS,
  });
}

/** After a feature was created, changed or deleted: clears the cache here and in the other tabs, products too. */
export function featuresChanged(queryClient: QueryClient): Promise<void> {
  return clearAcrossTabs(queryClient, [['features'], ['products']]);
}
