import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ListResult } from '@lm/contract';
import type { ArtifactCreate, LicenseDownloads, Release, ReleaseFields, ReleaseUpdate } from '@lm/contract/release';
import { api } from '../../../lib/api.ts';

const KEY = ['releases'];

/** GET /products/{id}/releases: newest version first. */
export function useReleases(productId: number | null) {
  return useQuery({
    queryKey: [...KEY, productId],
    queryFn: ({ signal }) => api<ListResult<Release>>(`/products/${productId}/releases`, { signal }),
    enabled: productId !== null,
  });
}

/** POST /products/{id}/releases. */
export function useCreateRelease(productId: number | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ReleaseFields) => api<Release>(`/products/${productId}/releases`, { method: 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** PUT /releases/{id}: yank, channel, notes. */
export function useUpdateRelease() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: ReleaseUpdate & { id: number }) => api<Release>(`/releases/${id}`, { method: 'PUT', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** DELETE /releases/{id}. */
export function useDeleteRelease() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(`/releases/${id}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** POST /releases/{id}/artifacts: a finished upload becomes the release's file. */
export function useAddArtifact() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ releaseId, ...body }: ArtifactCreate & { releaseId: number }) => api<Release>(`/releases/${releaseId}/artifacts`, { method: 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

/** GET /downloads: what the caller's licenses may download. */
export function useDownloads() {
  return useQuery({ queryKey: ['downloads'], queryFn: ({ signal }) => api<{ items: LicenseDownloads[] }>('/downloads', { signal }) });
}

export const artifactDownloadUrl = (releaseId: number, artifactId: number) => `/api/releases/${releaseId}/artifacts/${artifactId}/download`;
