import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ListResult, User } from '@lm/contract';
import type { ExtendLicense, License, TemporaryLicense, TemporaryOptions } from '@lm/contract/license';
import { api } from '../../../lib/api.ts';

/** A license as the API client hands it over: timestamps parsed to dates. */
export type LicenseItem = Omit<License, 'createdAt' | 'updatedAt'> & { createdAt: Date; updatedAt: Date };

export interface LicenseListParams {
  userId?: number;
  /** `all`: every license the caller may see across accounts (staff). */
  scope?: 'all';
  offline?: boolean;
  /** The licenses of one organization (staff). */
  organizationId?: number;
  filter?: string;
  offset: number;
  /** The previous page's next-page cursor (lib/list-paging.ts). */
  after?: string;
  limit: number;
  sort?: string;
}

export const LICENSES_KEY = ['licenses'] as const;

export function useLicenses(params: LicenseListParams) {
  return useQuery({
    queryKey: [...LICENSES_KEY, params],
    queryFn: ({ signal }) =>
      api<ListResult<LicenseItem>>('/licenses', {
        signal,
        query: { scope: params.scope, userId: params.userId, offline: params.offline ? 'true' : undefined, organizationId: params.organizationId, filter: params.filter, offset: params.offset, after: params.after, limit: params.limit, sort: params.sort },
      }),
    placeholderData: keepPreviousData,
  });
}

/** The account whose licenses a page shows, for those who may read accounts (administrators). */
export function useAccount(userId: number, enabled: boolean) {
  return useQuery({ queryKey: ['licenses-account', userId], queryFn: ({ signal }) => api<User>(`/users/${userId}`, { signal }), enabled, retry: false });
}

export function useTemporaryOptions(enabled: boolean) {
  return useQuery({ queryKey: ['licenses-temporary-options'], queryFn: () => api<TemporaryOptions>('/licenses/temporary-options'), enabled, staleTime: 60_000 });
}

/** A license call that refreshes the license lists when it succeeds. */
function useLicenseMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: call, onSuccess: () => queryClient.invalidateQueries({ queryKey: LICENSES_KEY }) });
}

export const useActivate = () => useLicenseMutation((body: { tan: string; machineId: string }) => api<LicenseItem>('/licenses/activate', { method: 'POST', body }));
export const useAddTemporary = () => useLicenseMutation((body: TemporaryLicense) => api<LicenseItem>('/licenses/temporary', { method: 'POST', body }));
export const useExtend = () =>
  useLicenseMutation(({ id, ...body }: ExtendLicense & { id: number }) => api<LicenseItem>(`/licenses/${id}/extend`, { method: 'POST', body }));
export const useChangeMachine = () =>
  useLicenseMutation(({ id, machineId }: { id: number; machineId: string }) => api<LicenseItem>(`/licenses/${id}/machine`, { method: 'PUT', body: { machineId } }));
export const useMove = () => useLicenseMutation(({ id, email }: { id: number; email: string }) => api<LicenseItem>(`/licenses/${id}/move`, { method: 'POST', body: { email } }));
export const useDelete = () => useLicenseMutation((id: number) => api(`/licenses/${id}`, { method: 'DELETE' }));
export const useUpgrade = () => useLicenseMutation((id: number) => api<LicenseItem>(`/licenses/${id}/upgrade`, { method: 'POST' }));

/** The signed license file (issue 6 serves it): a plain download link. */
export function licenseFileUrl(id: number, format: 'lic' | 'json' = 'lic'): string {
  return `/api/licenses/${id}/file?format=${format}`;
}
