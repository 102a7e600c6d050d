import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ListResult } from '@lm/contract';
import type { ApiToken, ApiTokenCreate, ApiTokenCreated } from '@lm/contract/api-token';
import { api } from '../../../lib/api.ts';

/** GET /api-tokens: a page of the caller's tokens (an administrator's: everyone's, unless ownerId). */
export function useApiTokenList(query: Record<string, string | number | undefined>) {
  return useQuery({
    queryKey: ['api-tokens', 'list', query],
    queryFn: ({ signal }) => api<ListResult<ApiToken>>('/api-tokens', { query, signal }),
    placeholderData: keepPreviousData,
  });
}

/** POST /api-tokens: the answer holds the token, the only time it is shown. */
export function useCreateApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ApiTokenCreate) => api<ApiTokenCreated>('/api-tokens', { method: 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-tokens'] }),
  });
}

/** DELETE /api-tokens/{id}: revokes at once. */
export function useRevokeApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(`/api-tokens/${id}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-tokens'] }),
  });
}
