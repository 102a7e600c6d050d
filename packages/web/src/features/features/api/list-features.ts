import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ListResult } from '@lm/contract';
import type { Feature } from '@lm/contract/feature';
import { api } from '../../../lib/api.ts';

/** GET /features: one page of the feature list. */
export function useFeatureList(query: Record<string, string | number | undefined>) {
  return useQuery({
    queryKey: ['features', 'list', query],
    queryFn: ({ signal }) => api<ListResult<Feature>>('/features', { query, signal }),
    placeholderData: keepPreviousData,
  });
}
