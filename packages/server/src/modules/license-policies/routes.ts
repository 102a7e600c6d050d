import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idParam } from '@lm/contract';
import type { FastifyRequest } from 'fastify';
import { type LicensePolicy, licensePolicy, licensePolicyCreate, licensePolicyList, licensePolicyListQuery, licensePolicyUpdate } from '@lm/contract/license-policy';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, maySee, visibleFields, visibleItems } from '../../platform/http/auth.ts';
import { editResponses, errorResponses } from '../../platform/http/openapi.ts';
import { ETAG_CONFIG, ifMatchHeaders, preconditionOf, withEtag } from '../../platform/http/versioned.ts';
import { createLicensePolicy, getLicensePolicy, listLicensePolicies, updateLicensePolicy } from './service.ts';

const tags = ['license-policies'];

/** A policy as the caller's GET shows it (staff fields only to staff). */
const shown = (request: FastifyRequest, record: LicensePolicy) => visibleFields(request, 'LicensePolicy', record);

export function licensePolicyRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/license-policies',
      { schema: { tags, summary: 'List license policies', querystring: licensePolicyListQuery, response: { 200: licensePolicyList, ...errorResponses } } },
      async (request) => {
        authorize(request, 'view-list', 'LicensePolicy');
        return visibleItems(request, 'LicensePolicy', await listLicensePolicies(ctx, { ...request.query, searchNotes: maySee(request, 'LicensePolicy', 'notes') }));
      },
    );

    app.get(
      '/license-policies/:id',
      { schema: { tags, summary: 'One license policy, with its ETag', params: idParam, response: { 200: licensePolicy, ...errorResponses } }, config: ETAG_CONFIG },
      async (request, reply) => {
        authorize(request, 'view', 'LicensePolicy');
        return withEtag(reply, shown(request, await getLicensePolicy(ctx, request.params.id)));
      },
    );

    app.post(
      '/license-policies',
      { schema: { tags, summary: 'Create a license policy (numbers are integers)', body: licensePolicyCreate, response: { 201: licensePolicy, ...errorResponses } } },
      async (request, reply) => {
        authorize(request, 'create', 'LicensePolicy');
        return reply.status(201).send(await createLicensePolicy(ctx, actorOf(request), request.body));
      },
    );

    app.put(
      '/license-policies/:id',
      {
        schema: {
          tags,
          summary: 'Change a license policy; a field left out keeps its value; with If-Match only while the policy is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          body: licensePolicyUpdate,
          response: { 200: licensePolicy, ...editResponses },
        },
        config: ETAG_CONFIG,
      },
      async (request, reply) => {
        authorize(request, 'update', 'LicensePolicy');
        const updated = await updateLicensePolicy(ctx, actorOf(request), request.params.id, request.body, preconditionOf(request, (record: LicensePolicy) => shown(request, record)));
        return withEtag(reply, shown(request, updated));
      },
    );
  };
}
