import { useQuery } from '@tanstack/react-query';
import type { Product } from '@lm/contract/product';
import { api } from '../../../lib/api.ts';
import { PRODUCTS_KEY } from '../../../lib/products.ts';

/** GET /products/{id}; idle without an id. */
export function useProduct(id: number | null) {
  return useQuery({
    queryKey: [...PRODUCTS_KEY, 'one', id],
    queryFn: ({ signal }) => api<Product>(`/products/${id}`, { signal }),
    enabled: id !== null,
  });
}
