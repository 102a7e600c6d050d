import { useQuery } from '@tanstack/react-query';
import { SELECT_PAGE_SIZE, type ListResult, type Role } from '@lm/contract';
import { api } from '../../../lib/api.ts';

/** The users the distributor field picks from (the users API belongs to another area). */
export interface UserOption {
  id: number;
  email: string;
  formattedName: string;
}

export function useUserOptions(filter: string, accessRole: Role | undefined, enabled: boolean) {
  return useQuery({
    queryKey: ['tan-form-users', accessRole, filter],
    queryFn: ({ signal }) => api<ListResult<UserOption>>('/users', { signal, query: { filter, accessRole, limit: SELECT_PAGE_SIZE } }),
    enabled,
    staleTime: 60_000,
  });
}
