import { useQuery } from '@tanstack/react-query';
import { SELECT_PAGE_SIZE, type ListResult, type Role } from '@lm/contract';
import { api } from '../../../lib/api.ts';

/** The catalogue and user lists the TAN form picks from (their APIs belong to other areas). */
export interface ProductOption {
  id: number;
  name: string;
  version: string;
  formattedName?: string;
}

export interface PolicyOption {
  id: number;
  name: string;
  type: string;
  publicName?: Record<string, string>;
  freeUpdatesPeriodDays?: number | null;
}

export interface UserOption {
  id: number;
  email: string;
  formattedName: string;
}

export function useProductOptions(filter: string) {
  return useQuery({
    queryKey: ['tan-form-products', filter],
    queryFn: ({ signal }) => api<ListResult<ProductOption>>('/products', { signal, query: { filter, limit: SELECT_PAGE_SIZE } }),
    staleTime: 60_000,
  });
}

export function usePolicyOptions() {
  return useQuery({
    queryKey: ['tan-form-policies'],
    queryFn: ({ signal }) => api<ListResult<PolicyOption>>('/license-policies', { signal, query: { limit: 1000 } }),
    staleTime: 60_000,
  });
}

export function useUserOptions(filter: string, accessRole: Role | undefined, enabled: boolean) {
  return useQuery({
    queryKey: ['tan-form-users', accessRole, filter],
    queryFn: ({ signal }) => api<ListResult<UserOption>>('/users', { signal, query: { filter, accessRole, limit: SELECT_PAGE_SIZE } }),
    enabled,
    staleTime: 60_000,
  });
}
