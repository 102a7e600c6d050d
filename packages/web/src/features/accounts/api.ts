import type { EmailChangeResult, PasswordReset, PendingEmailChange, Registration, User, UserFields } from '@lm/contract';
import { api } from '../../lib/api.ts';

/** The calls of spec section 7 that the account pages make. */
export const accountsApi = {
  register: (body: Registration) => api<void>('/users/register', { method: 'POST', body }),
  confirm: (id: number, token: string) => api<void>('/users/confirm', { method: 'POST', body: { id, token } }),
  resendConfirmation: (email: string) => api<void>('/users/confirm/resend', { method: 'POST', body: { email } }),
  forgotPassword: (email: string) => api<void>('/users/forgot-password', { method: 'POST', body: { email } }),
  resetPassword: (body: PasswordReset) => api<void>('/users/reset-password', { method: 'POST', body }),
  pendingEmailChange: () => api<PendingEmailChange>('/users/change-email'),
  requestEmailChange: (email: string) => api<EmailChangeResult>('/users/change-email', { method: 'POST', body: { email } }),
  confirmEmailChange: (email: string, token: string) => api<EmailChangeResult>('/users/change-email', { method: 'POST', body: { email, token } }),
  user: (id: number, signal?: AbortSignal) => api<User>(`/users/${id}`, { signal }),
  update: (id: number, body: Partial<UserFields>) => api<User>(`/users/${id}`, { method: 'PUT', body }),
  setEmailConsent: (id: number, consent: boolean) => api<User>(`/users/${id}/consent/email`, { method: consent ? 'POST' : 'DELETE' }),
  close: (id: number) => api<void>(`/users/${id}`, { method: 'DELETE' }),
};

export const myAccountKey = (id: number) => ['users', 'one', id] as const;

/** Set when an account was closed, for the signed-out home page to say so after the reload. */
export const ACCOUNT_CLOSED_FLAG = 'lm.accountClosed';
