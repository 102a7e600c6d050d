import { useMutation } from '@tanstack/react-query';
import type { AnyLicCreate, AnyLicLink } from '@lm/contract/anylic';
import { api } from '../../../lib/api.ts';

export function createAnyLicLink(body: AnyLicCreate): Promise<AnyLicLink> {
  return api<AnyLicLink>('/anylic', { method: 'POST', body });
}

export function useCreateAnyLicLink() {
  return useMutation({ mutationFn: createAnyLicLink });
}
