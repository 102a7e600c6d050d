import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CACHE_LIFETIME_MS, type ListResult } from '@lm/contract';
import type { Tan, TanFieldsInput, TanLimits } from '@lm/contract/tan';
import type { TanAttentionState } from '@lm/contract/dashboard';
import { api } from '../../../lib/api.ts';
import { clearAcrossTabs } from '../../../lib/cache-broadcast.ts';

/** A TAN as the API client hands it over: timestamps parsed to dates. */
export type TanItem = Omit<Tan, 'createdAt' | 'updatedAt'> & { createdAt: Date; updatedAt: Date };

export interface TanListParams {
  filter?: string;
  tag?: string;
  revoked?: boolean;
  /** Only the TANs that need someone (the staff home links here). */
  state?: TanAttentionState;
  organizationId?: number;
  offset: number;
  /** The previous page's next-page cursor (lib/list-paging.ts). */
  after?: string;
  limit: number;
  sort?: string;
}

export const TANS_KEY = ['tans'] as const;
const TAGS_KEY = ['tan-tags'] as const;

export function useTans(params: TanListParams) {
  return useQuery({
    queryKey: [...TANS_KEY, params],
    queryFn: ({ signal }) =>
      api<ListResult<TanItem>>('/tans', {
        signal,
        query: { filter: params.filter, tag: params.tag, revoked: params.revoked === undefined ? undefined : String(params.revoked), state: params.state, organizationId: params.organizationId, offset: params.offset, after: params.after, limit: params.limit, sort: params.sort },
      }),
    placeholderData: keepPreviousData,
  });
}

/** The TAN tags, cached for 10 minutes and dropped in every tab when TANs change (spec section 4). */
export function useTanTags() {
  return useQuery({ queryKey: TAGS_KEY, queryFn: () => api<{ items: string[] }>('/tans/tags'), staleTime: CACHE_LIFETIME_MS, gcTime: CACHE_LIFETIME_MS });
}

export function useTanLimits() {
  return useQuery({ queryKey: ['tan-limits'], queryFn: () => api<TanLimits>('/tans/limits'), staleTime: 60_000 });
}

function useTanMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: async () => {
      await clearAcrossTabs(queryClient, [TANS_KEY, TAGS_KEY]);
    },
  });
}

/** After a TAN was changed elsewhere than through these mutations (an edit dialog's versioned save): lists and tags anew, in every tab. */
export function useTansChanged(): () => Promise<void> {
  const queryClient = useQueryClient();
  return () => clearAcrossTabs(queryClient, [TANS_KEY, TAGS_KEY]);
}

export const useCreateTans = () =>
  useTanMutation(({ count, body }: { count: number; body: TanFieldsInput }) => api<ListResult<TanItem>>('/tans', { method: 'POST', query: { count }, body }));

export const useUpdateTan = () =>
  // A field left out keeps its value (PUT /tans/{id}).
  useTanMutation(({ id, body }: { id: number; body: Partial<TanFieldsInput> & { revoked?: boolean; suspended?: boolean; revokeLicenses?: boolean } }) =>
    api<TanItem>(`/tans/${id}`, { method: 'PUT', body }),
  );
