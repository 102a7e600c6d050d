import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AccountSession, RecoveryCodes, TwoFactorSetup, TwoFactorStatus } from '@lm/contract/two-factor';
import { api } from '../../lib/api.ts';
import { auth } from '../../lib/auth.ts';

const statusKey = ['account', 'two-factor'] as const;
const sessionsKey = ['account', 'sessions'] as const;

export function useTwoFactorStatus() {
  return useQuery({ queryKey: statusKey, queryFn: ({ signal }) => api<TwoFactorStatus>('/account/two-factor', { signal }) });
}

export function useSessions() {
  return useQuery({ queryKey: sessionsKey, queryFn: ({ signal }) => api<{ items: AccountSession[] }>('/account/sessions', { signal }) });
}

/** A call that changes the account's sign-in: afterwards the status, the sessions and the session itself are read again. */
function useSecurityMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: async () => {
      await Promise.all([queryClient.invalidateQueries({ queryKey: statusKey }), queryClient.invalidateQueries({ queryKey: sessionsKey })]);
      await auth.validate();
    },
  });
}

export const useStartEnrolment = () => useSecurityMutation(() => api<TwoFactorSetup>('/account/two-factor', { method: 'POST' }));
export const useConfirmEnrolment = () => useSecurityMutation((code: string) => api<RecoveryCodes>('/account/two-factor/confirm', { method: 'POST', body: { code } }));
export const useDisableTwoFactor = () => useSecurityMutation((password: string) => api<void>('/account/two-factor', { method: 'DELETE', body: { password } }));
export const useNewRecoveryCodes = () => useSecurityMutation((password: string) => api<RecoveryCodes>('/account/two-factor/recovery-codes', { method: 'POST', body: { password } }));
export const useEndSession = () => useSecurityMutation((id: string) => api<void>(`/account/sessions/${id}`, { method: 'DELETE' }));
export const useEndOtherSessions = () => useSecurityMutation(() => api<void>('/account/sessions', { method: 'DELETE' }));
export const useChangePassword = () =>
  useSecurityMutation((body: { currentPassword: string; newPassword: string }) => api<void>('/account/password', { method: 'PUT', body }));
