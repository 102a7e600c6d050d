import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idParam } from '@lm/contract';
import { licensePolicy, licensePolicyFields, licensePolicyList, licensePolicyListQuery, licensePolicyUpdate } from '@lm/contract/license-policy';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, maySee, visibleFields, visibleItems } from '../../platform/http/auth.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { createLicensePolicy, getLicensePolicy, listLicensePolicies, updateLicensePolicy } from './service.ts';

const tags = ['license-policies'];

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
      { schema: { tags, summary: 'One license policy', params: idParam, response: { 200: licensePolicy, ...errorResponses } } },
      async (request) => {
        authorize(request, 'view', 'LicensePolicy');
        return visibleFields(request, 'LicensePolicy', await getLicensePolicy(ctx, request.params.id));
      },
    );

    app.post(
      '/license-policies',
      { schema: { tags, summary: 'Create a license policy (numbers are integers)', body: licensePolicyFields, response: { 201: licensePolicy, ...errorResponses } } },
      async (request, reply) => {
        authorize(request, 'create', 'LicensePolicy');
        return reply.status(201).send(await createLicensePolicy(ctx, actorOf(request), request.body));
      },
    );

    app.put(
      '/license-policies/:id',
      { schema: { tags, summary: 'Change a license policy; a field left out keeps its value', params: idParam, body: licensePolicyUpdate, response: { 200: licensePolicy, ...errorResponses } } },
      async (request) => {
        authorize(request, 'update', 'LicensePolicy');
        return updateLicensePolicy(ctx, actorOf(request), request.params.id, request.body);
      },
    );
  };
}
