import { useQuery } from '@tanstack/react-query';
import type { SsoStatus } from '@lm/contract/sso';
import { api } from './api.ts';

/** Whether single sign-on is set up, and the login button's name (public: GET /api/sso/status). */
export function useSsoStatus() {
  return useQuery({ queryKey: ['sso-status'], queryFn: ({ signal }) => api<SsoStatus>('/sso/status', { signal, quietAuthFailure: true }), staleTime: 60_000 });
}
