import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idParam } from '@lm/contract';
import {
  claimTan as claimTanBody,
  invitation,
  invitationCreate,
  invitationInfo as invitationInfoSchema,
  invitationList,
  invitationParams,
  invitationTokenParams,
  memberParams,
  memberRoleUpdate,
  moveLicenseToOrganization,
  organization,
  organizationFields,
  organizationLicenseList,
  organizationList,
  organizationListQuery,
  organizationMember,
  organizationMemberList,
  organizationPageQuery,
  organizationSuspend,
  organizationSuspended,
  organizationTan,
  organizationTanList,
  organizationUpdate,
  seat,
  seatCreate,
  seatList,
  seatParams,
} from '@lm/contract/organization';
import type { AppContext } from '../../platform/context.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { assignSeat, claimTan, listLicensesOfOrganization, listOrganizationSeats, listTansOfOrganization, moveLicenseToOrganization as moveLicense, suspendOrganization, unassignSeat } from './seats.ts';
import {
  acceptInvitation,
  changeMemberRole,
  createOrganization,
  editOrganization,
  getOrganization,
  invitationInfo,
  inviteMember,
  listInvitations,
  listMyOrganizations,
  listOrganizationMembers,
  removeMember,
  withdrawInvitation,
} from './service.ts';

const tags = ['organizations'];

/** Organizations, members, invitations, their licenses and named-user seats (DESIGN.md section 6f). */
export function organizationRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/organizations',
      {
        schema: {
          tags,
          summary: "The caller's organizations",
          description: 'The organizations the caller belongs to, with the caller\'s role; administrators of the installation list every organization with `all=true`.',
          querystring: organizationListQuery,
          response: { 200: organizationList, ...errorResponses },
        },
      },
      async (request) => listMyOrganizations(ctx, request, request.query),
    );
    app.post(
      '/organizations',
      { schema: { tags, summary: 'Create an organization', description: 'Creates an organization; the caller becomes its owner.', body: organizationFields, response: { 201: organization, ...errorResponses } } },
      async (request, reply) => reply.status(201).send(await createOrganization(ctx, request, request.body)),
    );
    app.get(
      '/organizations/:id',
      { schema: { tags, summary: 'One organization', description: 'An organization the caller belongs to (administrators: any).', params: idParam, response: { 200: organization, ...errorResponses } } },
      async (request) => getOrganization(ctx, request, request.params.id),
    );
    app.put(
      '/organizations/:id',
      { schema: { tags, summary: 'Edit an organization', description: 'Name and company; owners and admins of the organization.', params: idParam, body: organizationUpdate, response: { 200: organization, ...errorResponses } } },
      async (request) => editOrganization(ctx, request, request.params.id, request.body),
    );
    app.get(
      '/organizations/:id/members',
      {
        schema: { tags, summary: 'Members of an organization', description: 'Every member with their role; any member may list them.', params: idParam, querystring: organizationPageQuery, response: { 200: organizationMemberList, ...errorResponses } },
      },
      async (request) => listOrganizationMembers(ctx, request, request.params.id, request.query),
    );
    app.put(
      '/organizations/:id/members/:userId',
      {
        schema: {
          tags,
          summary: "Change a member's role",
          description: 'Owners and admins change roles; only owners make or unmake owners; the last owner stays one (ERR_LAST_OWNER).',
          params: memberParams,
          body: memberRoleUpdate,
          response: { 200: organizationMember, ...errorResponses },
        },
      },
      async (request) => changeMemberRole(ctx, request, request.params.id, request.params.userId, request.body.role),
    );
    app.delete(
      '/organizations/:id/members/:userId',
      {
        schema: {
          tags,
          summary: 'Remove a member, or leave',
          description: "Owners and admins remove members; anyone removes themselves (leaves). The member's seats and the machines signed in on them end at once; the last owner cannot leave (ERR_LAST_OWNER).",
          params: memberParams,
          response: { 204: z.null(), ...errorResponses },
        },
      },
      async (request, reply) => {
        await removeMember(ctx, request, request.params.id, request.params.userId);
        return reply.status(204).send(null);
      },
    );
    app.get(
      '/organizations/:id/invitations',
      { schema: { tags, summary: 'Open invitations', description: 'Invitations not accepted and not expired; owners and admins.', params: idParam, response: { 200: invitationList, ...errorResponses } } },
      async (request) => listInvitations(ctx, request, request.params.id),
    );
    app.post(
      '/organizations/:id/invitations',
      {
        schema: {
          tags,
          summary: 'Invite by e-mail',
          description: "Mails a link, valid 7 days, in the invitee's language when known, else the inviter's. Refused for an address that is already a member (ERR_ALREADY_MEMBER).",
          params: idParam,
          body: invitationCreate,
          response: { 201: invitation, ...errorResponses },
        },
      },
      async (request, reply) => reply.status(201).send(await inviteMember(ctx, request, request.params.id, request.body)),
    );
    app.delete(
      '/organizations/:id/invitations/:invitationId',
      { schema: { tags, summary: 'Withdraw an invitation', description: 'The link stops working at once.', params: invitationParams, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        await withdrawInvitation(ctx, request, request.params.id, request.params.invitationId);
        return reply.status(204).send(null);
      },
    );
    app.get(
      '/invitations/:token',
      { schema: { tags, summary: 'What an invitation link offers', description: 'The organization and address of an open invitation; the token is the credential.', params: invitationTokenParams, response: { 200: invitationInfoSchema, ...errorResponses } } },
      async (request) => invitationInfo(ctx, request.params.token),
    );
    app.post(
      '/invitations/:token/accept',
      {
        schema: {
          tags,
          summary: 'Accept an invitation',
          description: 'The signed-in account with the invited address joins the organization; a link works once and for 7 days (ERR_INVALID_TOKEN).',
          params: invitationTokenParams,
          response: { 200: organization, ...errorResponses },
        },
      },
      async (request) => acceptInvitation(ctx, request, request.params.token),
    );
    app.get(
      '/organizations/:id/tans',
      { schema: { tags, summary: "An organization's TANs", description: 'Its TANs with the seats (USER policies) or activations in use; owners, admins and staff.', params: idParam, response: { 200: organizationTanList, ...errorResponses } } },
      async (request) => listTansOfOrganization(ctx, request, request.params.id),
    );
    app.post(
      '/organizations/:id/tans',
      {
        schema: { tags, summary: 'Claim a TAN for the organization', description: 'An owner or admin claims a TAN by its code; its licenses become the organization\'s.', params: idParam, body: claimTanBody, response: { 201: organizationTan, ...errorResponses } },
      },
      async (request, reply) => reply.status(201).send(await claimTan(ctx, request, request.params.id, request.body.tan)),
    );
    app.get(
      '/organizations/:id/licenses',
      {
        schema: { tags, summary: "An organization's licenses", description: 'Owners, admins and staff see all of them; members those they hold.', params: idParam, querystring: organizationPageQuery, response: { 200: organizationLicenseList, ...errorResponses } },
      },
      async (request) => listLicensesOfOrganization(ctx, request, request.params.id, request.query),
    );
    app.post(
      '/organizations/:id/licenses',
      { schema: { tags, summary: 'Move a license to the organization', description: 'An owner or admin moves a license of their own to the organization.', params: idParam, body: moveLicenseToOrganization, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        await moveLicense(ctx, request, request.params.id, request.body.licenseId);
        return reply.status(204).send(null);
      },
    );
    app.get(
      '/organizations/:id/seats',
      { schema: { tags, summary: 'Named-user seats', description: 'Owners and admins see every assigned seat, members their own.', params: idParam, querystring: organizationPageQuery, response: { 200: seatList, ...errorResponses } } },
      async (request) => listOrganizationSeats(ctx, request, request.params.id, request.query),
    );
    app.post(
      '/organizations/:id/seats',
      {
        schema: {
          tags,
          summary: 'Assign a seat',
          description:
            "A seat of a USER-policy TAN of the organization for a member. Never more than the TAN's count (ERR_SEATS_TAKEN); a seat freed within the policy's seatReassignHours passes to another person only after it (ERR_SEAT_REASSIGN_WAIT).",
          params: idParam,
          body: seatCreate,
          response: { 201: seat, ...errorResponses },
        },
      },
      async (request, reply) => reply.status(201).send(await assignSeat(ctx, request, request.params.id, request.body)),
    );
    app.delete(
      '/organizations/:id/seats/:seatId',
      { schema: { tags, summary: 'Unassign a seat', description: 'The seat ends at once; machines signed in on it are refused at their next refresh (ERR_SEAT_UNASSIGNED).', params: seatParams, response: { 204: z.null(), ...errorResponses } } },
      async (request, reply) => {
        await unassignSeat(ctx, request, request.params.id, request.params.seatId);
        return reply.status(204).send(null);
      },
    );
    app.post(
      '/organizations/:id/suspend',
      { schema: { tags, summary: "Suspend or reinstate an organization's TANs", description: 'Administrators: every TAN of the organization (and its licenses) at once.', params: idParam, body: organizationSuspend, response: { 200: organizationSuspended, ...errorResponses } } },
      async (request) => suspendOrganization(ctx, request, request.params.id, request.body.suspended),
    );
  };
}
