import { useQuery } from '@tanstack/react-query';
import type { SetupStatus } from '@lm/contract';
import { api } from '../../../lib/api.ts';

/** GET /setup-status: what of a new installation is set up, asked anew whenever the checklist shows. */
export function useSetupStatus(enabled: boolean) {
  return useQuery({ queryKey: ['setup-status'], queryFn: ({ signal }) => api<SetupStatus>('/setup-status', { signal }), enabled, staleTime: 0 });
}
