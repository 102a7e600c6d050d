import { useQuery } from '@tanstack/react-query';
import type { ListResult } from '@lm/contract';
import type { Product } from '@lm/contract/product';
import { api } from '../../../lib/api.ts';
import { PRODUCTS_KEY } from '../../../lib/products.ts';

/** GET /products/{id}/versions: the products of the same name, ordered by version. */
export function useProductVersions(id: number) {
  return useQuery({
    queryKey: [...PRODUCTS_KEY, 'versions', id],
    queryFn: ({ signal }) => api<ListResult<Product>>(`/products/${id}/versions`, { signal }).then((list) => list.items),
  });
}
