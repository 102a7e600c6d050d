import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ListResult } from '@lm/contract';
import type { License } from '@lm/contract/license';
import type { LicenseFileJson } from '@lm/contract/license-file';
import type { OfflineActivationBody, OfflineRequestSummary } from '@lm/contract/offline';
import { api } from '../../lib/api.ts';

/** The license lists' query key (features/licenses), refreshed after a change here. */
const LICENSES_KEY = ['licenses'] as const;

/** The caller's licenses, to activate or free one of them (the first 100). */
export function useMyLicenses() {
  return useQuery({
    queryKey: [...LICENSES_KEY, 'offline-choices'],
    queryFn: ({ signal }) => api<ListResult<Pick<License, 'id' | 'productName' | 'productVersion' | 'machineId'>>>('/licenses', { signal, query: { offset: 0, limit: 100 } }),
  });
}

/** What a request file asks for, checked by the server (nothing changed). */
export function useReadOfflineRequest() {
  return useMutation({ mutationFn: (request: string) => api<OfflineRequestSummary>('/licenses/offline-request', { method: 'POST', body: { request } }) });
}

/** Activates the offline machine; the answer is the `.json` license file to carry over. */
export function useActivateOffline() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: OfflineActivationBody) => api<LicenseFileJson>('/licenses/offline-activation', { method: 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: LICENSES_KEY }),
  });
}

/** Frees the machine of a license with its deactivation proof. */
export function useDeactivateOffline() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ licenseId, proof }: { licenseId: number; proof: string }) => api(`/licenses/${licenseId}/offline-deactivation`, { method: 'POST', body: { proof } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: LICENSES_KEY }),
  });
}
