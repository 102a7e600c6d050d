import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Product, ProductInput } from '@lm/contract/product';
import { api } from '../../../lib/api.ts';
import { PRODUCTS_KEY } from '../../../lib/products.ts';

/** POST /products, or PUT /products/{id} when an id is given. */
export function useSaveProduct(id: number | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ProductInput) => api<Product>(id ? `/products/${id}` : '/products', { method: id ? 'PUT' : 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: PRODUCTS_KEY }),
  });
}
