import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { SELECT_PAGE_SIZE, type ListResult } from '@lm/contract';
import { api } from '../../../lib/api.ts';

/** The fields of a product this page shows; the rest of GET /api/products is not needed here. */
export interface ProductOption {
  id: number;
  name: string;
  version: string;
  formattedName?: string;
}

export const productLabel = (product: ProductOption) => product.formattedName ?? `${product.name} ${product.version}`;

export function fetchProductOptions(filter: string, signal?: AbortSignal): Promise<ListResult<ProductOption>> {
  return api<ListResult<ProductOption>>('/products', { query: { filter, limit: SELECT_PAGE_SIZE, offset: 0, sort: 'name' }, signal });
}

/** One page of products matching the (already debounced) search text. */
export function useProductOptions(filter: string) {
  return useQuery({
    queryKey: ['anylic', 'product-options', filter],
    queryFn: ({ signal }) => fetchProductOptions(filter, signal),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
}
