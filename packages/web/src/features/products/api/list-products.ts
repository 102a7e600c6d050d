import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ListResult } from '@lm/contract';
import type { Product } from '@lm/contract/product';
import { api, type RequestOptions } from '../../../lib/api.ts';
import { PRODUCTS_KEY } from '../../../lib/products.ts';

/** GET /products with offset, limit, filter, sort, active, resolveFeatures, featureNames and ids. */
export function useProductList(query: NonNullable<RequestOptions['query']>, enabled = true) {
  return useQuery({
    queryKey: [...PRODUCTS_KEY, 'list', query],
    queryFn: ({ signal }) => api<ListResult<Product>>('/products', { query, signal }),
    placeholderData: keepPreviousData,
    enabled,
  });
}
