import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ListResult, StatisticsCategory } from '@lm/contract';
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

export interface ProductOption {
  id: number;
  formattedName: string;
}

/** Products for the filter: the first page matching the typed text. */
export function useProductOptions(search: string) {
  return useQuery({
    queryKey: ['statistics', 'products', search],
    queryFn: ({ signal }) => api<ListResult<ProductOption>>('/products', { query: { filter: search, limit: 50, sort: 'name,version' }, signal }),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
}
