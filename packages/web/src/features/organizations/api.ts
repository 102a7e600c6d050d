import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ListResult } from '@lm/contract';
import type { DevicePending, Invitation, InvitationInfo, Organization, OrganizationLicense, OrganizationMember, OrganizationRole, OrganizationTan, Seat } from '@lm/contract/organization';
import { api } from '../../lib/api.ts';

/** The organization calls (DESIGN.md section 6f): one query key per organization, read again after each change. */
const key = (id?: number) => (id === undefined ? (['organizations'] as const) : (['organizations', id] as const));

export const useOrganizations = () => useQuery({ queryKey: key(), queryFn: ({ signal }) => api<ListResult<Organization>>('/organizations?limit=1000', { signal }) });
export const useOrganization = (id: number) => useQuery({ queryKey: [...key(id), 'self'], queryFn: ({ signal }) => api<Organization>(`/organizations/${id}`, { signal }) });
export const useMembers = (id: number) =>
  useQuery({ queryKey: [...key(id), 'members'], queryFn: ({ signal }) => api<ListResult<OrganizationMember>>(`/organizations/${id}/members?limit=1000`, { signal }) });
export const useSeats = (id: number) => useQuery({ queryKey: [...key(id), 'seats'], queryFn: ({ signal }) => api<ListResult<Seat>>(`/organizations/${id}/seats?limit=1000`, { signal }) });
export const useLicenses = (id: number) =>
  useQuery({ queryKey: [...key(id), 'licenses'], queryFn: ({ signal }) => api<ListResult<OrganizationLicense>>(`/organizations/${id}/licenses?limit=1000`, { signal }) });
export const useTans = (id: number, enabled: boolean) =>
  useQuery({ queryKey: [...key(id), 'tans'], enabled, queryFn: ({ signal }) => api<ListResult<OrganizationTan>>(`/organizations/${id}/tans`, { signal }) });
export const useInvitations = (id: number, enabled: boolean) =>
  useQuery({ queryKey: [...key(id), 'invitations'], enabled, queryFn: ({ signal }) => api<ListResult<Invitation>>(`/organizations/${id}/invitations`, { signal }) });

function useChange<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: call, onSuccess: () => queryClient.invalidateQueries({ queryKey: key() }) });
}

export const useCreateOrganization = () => useChange((body: { name: string; company?: string | null }) => api<Organization>('/organizations', { method: 'POST', body }));
export const useInvite = (id: number) => useChange((body: { email: string; role: OrganizationRole }) => api<Invitation>(`/organizations/${id}/invitations`, { method: 'POST', body }));
export const useChangeRole = (id: number) =>
  useChange(({ userId, role }: { userId: number; role: OrganizationRole }) => api<OrganizationMember>(`/organizations/${id}/members/${userId}`, { method: 'PUT', body: { role } }));
export const useRemoveMember = (id: number) => useChange((userId: number) => api<void>(`/organizations/${id}/members/${userId}`, { method: 'DELETE' }));
export const useClaimTan = (id: number) => useChange((tan: string) => api<OrganizationTan>(`/organizations/${id}/tans`, { method: 'POST', body: { tan } }));
export const useAssignSeat = (id: number) => useChange((body: { tanId: number; userId: number }) => api<Seat>(`/organizations/${id}/seats`, { method: 'POST', body }));
export const useUnassignSeat = (id: number) => useChange((seatId: number) => api<void>(`/organizations/${id}/seats/${seatId}`, { method: 'DELETE' }));

export const useInvitationInfo = (token: string) =>
  useQuery({ queryKey: ['invitation', token], retry: false, queryFn: ({ signal }) => api<InvitationInfo>(`/invitations/${encodeURIComponent(token)}`, { signal }) });
export const useAcceptInvitation = () => useChange((token: string) => api<Organization>(`/invitations/${encodeURIComponent(token)}/accept`, { method: 'POST' }));

export const useDevicePending = (userCode: string | null) =>
  useQuery({
    queryKey: ['device', userCode],
    enabled: Boolean(userCode),
    retry: false,
    queryFn: ({ signal }) => api<DevicePending>(`/device?userCode=${encodeURIComponent(userCode ?? '')}`, { signal }),
  });
export const useDecideDevice = () =>
  useMutation({ mutationFn: ({ userCode, approve }: { userCode: string; approve: boolean }) => api<void>(approve ? '/device/approve' : '/device/deny', { method: 'POST', body: { userCode } }) });
