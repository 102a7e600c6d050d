import { useQuery } from '@tanstack/react-query';
import type { Dashboard } from '@lm/contract/dashboard';
import { api } from '../../lib/api.ts';

/** The staff home's figures: one request, fresh on each visit of the home. */
export function useDashboard() {
  return useQuery({
    queryKey: ['dashboard'],
    queryFn: ({ signal }) => api<Dashboard>('/dashboard', { signal }),
    staleTime: 0,
  });
}
