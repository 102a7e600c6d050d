import { useQuery } from '@tanstack/react-query';
import type { ShopPurchase } from '@lm/contract/shop';
import { api } from '../../../lib/api.ts';
import { LICENSES_KEY } from './licenses.ts';

/** GET /shop-purchases: the caller's TANs bought in a connected shop; under the licenses key, so an activation refreshes it. */
export function useShopPurchases(enabled: boolean) {
  return useQuery({
    queryKey: [...LICENSES_KEY, 'shop-purchases'],
    queryFn: ({ signal }) => api<{ items: ShopPurchase[] }>('/shop-purchases', { signal }),
    enabled,
  });
}
