import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Feature, FeatureInput } from '@lm/contract/feature';
import { api } from '../../../lib/api.ts';
import { featuresChanged } from '../../../lib/feature-cache.ts';

/** POST /features, or PUT /features/{id} when an id is given; clears the feature cache in every tab. */
export function useSaveFeature(id: number | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: FeatureInput) => api<Feature>(id ? `/features/${id}` : '/features', { method: id ? 'PUT' : 'POST', body }),
    onSuccess: () => featuresChanged(queryClient),
  });
}
