import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { LicensePolicy, LicensePolicyInput } from '@lm/contract/license-policy';
import { api } from '../../../lib/api.ts';
import { LICENSE_POLICIES_KEY } from '../../../lib/license-policies.ts';

/** POST /license-policies, or PUT /license-policies/{id} when an id is given. */
export function useSaveLicensePolicy(id: number | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: LicensePolicyInput) => api<LicensePolicy>(id ? `/license-policies/${id}` : '/license-policies', { method: id ? 'PUT' : 'POST', body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: LICENSE_POLICIES_KEY }),
  });
}
