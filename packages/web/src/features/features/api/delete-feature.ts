import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api.ts';
import { featuresChanged } from '../../../lib/feature-cache.ts';

/** DELETE /features/{id}; clears the feature cache in every tab. */
export function useDeleteFeature() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(`/features/${id}`, { method: 'DELETE' }),
    onSuccess: () => featuresChanged(queryClient),
  });
}
