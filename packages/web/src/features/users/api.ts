import type { ListResult, Role, User, UserFields } from '@lm/contract';
import type { TwoFactorStatus } from '@lm/contract/two-factor';
import { api } from '../../lib/api.ts';

export interface UserListParams {
  offset: number;
  /** The previous page's next-page cursor (lib/list-paging.ts). */
  after?: string;
  limit: number;
  filter: string;
  sort: string;
  accessRole: Role | null;
  /** The members of one organization. */
  organizationId?: number;
}

/** The user-administration calls of spec section 7. */
export const usersApi = {
  list: (params: UserListParams, signal?: AbortSignal) => api<ListResult<User>>('/users', { query: { ...params }, signal }),
  create: (body: Partial<UserFields>) => api<User>('/users', { method: 'POST', body }),
  update: (id: number, body: Partial<UserFields>) => api<User>(`/users/${id}`, { method: 'PUT', body }),
  remove: (id: number) => api<void>(`/users/${id}`, { method: 'DELETE' }),
  confirmRegistration: (id: number) => api<void>('/users/confirm', { method: 'POST', body: { id } }),
  twoFactorStatus: (id: number, signal?: AbortSignal) => api<TwoFactorStatus>(`/users/${id}/two-factor`, { signal }),
  resetTwoFactor: (id: number) => api<void>(`/users/${id}/two-factor`, { method: 'DELETE' }),
};

export const USERS_KEY = ['users'] as const;
