import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ListResult } from '@lm/contract';
import type { LicensePolicy } from '@lm/contract/license-policy';
import { api } from '../../../lib/api.ts';
import { LICENSE_POLICIES_KEY } from '../../../lib/license-policies.ts';

/** GET /license-policies: one page of the policy list. */
export function useLicensePolicyList(query: Record<string, string | number | undefined>) {
  return useQuery({
    queryKey: [...LICENSE_POLICIES_KEY, 'list', query],
    queryFn: ({ signal }) => api<ListResult<LicensePolicy>>('/license-policies', { query, signal }),
    placeholderData: keepPreviousData,
  });
}
