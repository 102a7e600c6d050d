import { useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import type { ListResult } from '@lm/contract';
import { isBuiltInPolicyName, splitDuration, type LicensePolicy } from '@lm/contract/license-policy';
import { api } from './api.ts';

/** The key of every license-policy query; a change to a policy invalidates it. */
export const LICENSE_POLICIES_KEY = ['license-policies'] as const;

/** Every policy, for selects (there are few). */
export function useAllLicensePolicies() {
  return useQuery({
    queryKey: [...LICENSE_POLICIES_KEY, 'all'],
    queryFn: () => api<ListResult<LicensePolicy>>('/license-policies', { query: { limit: 1000, sort: 'name' } }).then((list) => list.items),
    staleTime: 60_000,
  });
}

/** The built-in policies show friendly labels instead of their internal names (spec section 3). */
export function policyLabel(policy: Pick<LicensePolicy, 'name'>, t: TFunction): string {
  return isBuiltInPolicyName(policy.name) ? t(`catalogue.builtInPolicies.${policy.name}`) : policy.name;
}

/** A duration in seconds in words: "15 minutes", "2 hours", "1 month" (a month is 2635200 s). */
export function formatDuration(seconds: number, t: TFunction): string {
  const { amount, unit } = splitDuration(seconds);
  return t(`catalogue.duration.${unit}`, { count: amount });
}
