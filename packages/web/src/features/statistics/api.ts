import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { StatisticsCategory } from '@lm/contract';
import type { StatisticsResult } from '@lm/contract/statistics';
import { api } from '../../lib/api.ts';

export interface StatisticsFilter {
  from?: string;
  to?: string;
  productId?: number;
}

export function fetchStatistics(category: StatisticsCategory, filter: StatisticsFilter, signal?: AbortSignal): Promise<StatisticsResult> {
  return api<StatisticsResult>(`/statistics/${category}`, { query: { ...filter }, signal });
}

export function useStatistics(category: StatisticsCategory, filter: StatisticsFilter) {
  return useQuery({
    queryKey: ['statistics', category, filter],
    queryFn: ({ signal }) => fetchStatistics(category, filter, signal),
    placeholderData: keepPreviousData,
  });
}
