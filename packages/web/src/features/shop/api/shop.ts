import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ListResult } from '@lm/contract';
import type { ShopConnection, ShopConnectionFields, ShopConnectionUpdate, ShopEvent, ShopOrder } from '@lm/contract/shop';
import { api } from '../../../lib/api.ts';

const KEY = ['shop-connections'];
const ORDERS_KEY = ['shop-orders'];

/** GET /shop-connections: every connection (administrators), without secrets. */
export function useShopConnections() {
  return useQuery({ queryKey: [...KEY, 'list'], queryFn: ({ signal }) => api<ListResult<ShopConnection>>('/shop-connections', { signal }) });
}

/** After a connection was changed by an edit form's versioned save: the lists anew. */
export function useShopConnectionsChanged(): () => Promise<void> {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KEY });
}

/** POST /shop-connections, or PUT /shop-connections/{id} (a secret left out keeps the stored one). */
export function useSaveShopConnection(id: number | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ShopConnectionFields | ShopConnectionUpdate) => api<ShopConnection>(id ? `/shop-connections/${id}` : '/shop-connections', { method: id ? 'PUT' : 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteShopConnection() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(`/shop-connections/${id}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** GET /shop-connections/{id}/events: newest first, optionally only one outcome. */
export function useShopEvents(connectionId: number, query: Record<string, string | number | undefined>) {
  return useQuery({
    queryKey: [...KEY, 'events', connectionId, query],
    queryFn: ({ signal }) => api<ListResult<ShopEvent>>(`/shop-connections/${connectionId}/events`, { query, signal }),
    placeholderData: keepPreviousData,
  });
}

/** POST /shop-connections/{id}/events/{eventId}/replay: a failed event runs again. */
export function useReplayShopEvent(connectionId: number) {
  const replay = useReplayAnyShopEvent();
  return { ...replay, mutateAsync: (eventId: number) => replay.mutateAsync({ connectionId, eventId }) };
}

/** The same for an event of any connection (the Orders page); the lists of events and orders are fetched again. */
export function useReplayAnyShopEvent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ connectionId, eventId }: { connectionId: number; eventId: number }) => api<ShopEvent>(`/shop-connections/${connectionId}/events/${eventId}/replay`, { method: 'POST' }),
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: KEY }), queryClient.invalidateQueries({ queryKey: ORDERS_KEY })]),
  });
}

/** GET /shop-orders: the events of every connection with the TANs and licenses they made, newest first. */
export function useShopOrders(query: Record<string, string | number | undefined>) {
  return useQuery({
    queryKey: [...ORDERS_KEY, query],
    queryFn: ({ signal }) => api<ListResult<ShopOrder>>('/shop-orders', { query, signal }),
    placeholderData: keepPreviousData,
  });
}
