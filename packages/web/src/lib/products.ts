import { useQuery } from '@tanstack/react-query';
import { LIST_MAX_LIMIT, type ListResult } from '@lm/contract';
import type { Product } from '@lm/contract/product';
import { api } from './api.ts';

/** The key of every product query; a change to a product or a feature invalidates it. */
export const PRODUCTS_KEY = ['products'] as const;

/** Products for selects (up to 1000, by name and version); `active` keeps only active ones. */
export function useAllProducts(active?: boolean) {
  return useQuery({
    queryKey: [...PRODUCTS_KEY, 'all', active ?? null],
    queryFn: () => api<ListResult<Product>>('/products', { query: { limit: LIST_MAX_LIMIT, sort: 'name,version', active } }).then((list) => list.items),
    staleTime: 60_000,
  });
}
