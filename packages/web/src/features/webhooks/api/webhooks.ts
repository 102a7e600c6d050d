import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ListResult } from '@lm/contract';
import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointFields, WebhookEndpointWithSecret } from '@lm/contract/webhook';
import { api } from '../../../lib/api.ts';

const KEY = ['webhooks'];

/** GET /webhook-endpoints: a page of the endpoints (distributors: their own). */
export function useEndpointList(query: Record<string, string | number | undefined>) {
  return useQuery({
    queryKey: [...KEY, 'endpoints', query],
    queryFn: ({ signal }) => api<ListResult<WebhookEndpoint>>('/webhook-endpoints', { query, signal }),
    placeholderData: keepPreviousData,
  });
}

/** POST /webhook-endpoints, or PUT /webhook-endpoints/{id}; a new endpoint's answer holds its secret. */
export function useSaveEndpoint(id: number | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: WebhookEndpointFields) =>
      api<WebhookEndpoint | WebhookEndpointWithSecret>(id ? `/webhook-endpoints/${id}` : '/webhook-endpoints', { method: id ? 'PUT' : 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** PUT /webhook-endpoints/{id} with only `enabled`. */
/** After an endpoint was changed by the edit form's versioned save: the lists anew. */
export function useEndpointsChanged(): () => Promise<void> {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KEY });
}

export function useSwitchEndpoint() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, enabled }: { id: number; enabled: boolean }) => api<WebhookEndpoint>(`/webhook-endpoints/${id}`, { method: 'PUT', body: { enabled } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useDeleteEndpoint() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(`/webhook-endpoints/${id}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** POST /webhook-endpoints/{id}/secret: the new secret, shown once. */
export function useRotateSecret() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api<WebhookEndpointWithSecret>(`/webhook-endpoints/${id}/secret`, { method: 'POST' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** POST /webhook-endpoints/{id}/test: sent at once; the answer is the delivery with its attempt. */
export function useSendTestEvent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api<WebhookDelivery>(`/webhook-endpoints/${id}/test`, { method: 'POST' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** GET /webhook-endpoints/{id}/deliveries, refreshed every few seconds while something waits. */
export function useDeliveries(endpointId: number | null, query: Record<string, string | number | undefined>) {
  return useQuery({
    queryKey: [...KEY, 'deliveries', endpointId, query],
    queryFn: ({ signal }) => api<ListResult<WebhookDelivery>>(`/webhook-endpoints/${endpointId}/deliveries`, { query, signal }),
    enabled: endpointId !== null,
    placeholderData: keepPreviousData,
    refetchInterval: (current) => (current.state.data?.items.some((delivery) => delivery.status === 'pending') ? 3000 : false),
  });
}

export function useRedeliver() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: number) => api<WebhookDelivery>(`/webhook-deliveries/${deliveryId}/redeliver`, { method: 'POST' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}
