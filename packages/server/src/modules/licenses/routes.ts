import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParam } from '@lm/contract';
import {
  activateLicense as activateBody,
  changeMachine as changeMachineBody,
  extendLicense as extendBody,
  license,
  licenseList,
  licenseListQuery,
  licenseUpdate,
  moveLicense as moveBody,
  temporaryLicense,
  temporaryOptions as temporaryOptionsResponse,
} from '@lm/contract/license';
import type { AppContext } from '../../platform/context.ts';
import { editResponses, errorResponses } from '../../platform/http/openapi.ts';
import { ETAG_CONFIG, ifMatchHeaders, preconditionOf, withEtag } from '../../platform/http/versioned.ts';
import { changeMachine, extendLicense, moveLicense, upgradeLicense } from './actions.ts';
import { activateLicense, addTemporaryLicense } from './activation.ts';
import { deleteLicenseFor, getLicense, listVisibleLicenses, temporaryOptions, updateLicenseFor } from './service.ts';

const tags = ['licenses'];

export function licenseRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/licenses',
      {
        schema: {
          tags,
          summary: "The caller's licenses, or with userId/tanId another account's or a TAN's (view-list on License); filter matches machine id and TAN",
          querystring: licenseListQuery,
          response: { 200: licenseList, ...errorResponses },
        },
      },
      async (request) => listVisibleLicenses(ctx, request, request.query),
    );

    app.get(
      '/licenses/temporary-options',
      { schema: { tags, summary: 'Products that offer temporary licenses and the longest validity', response: { 200: temporaryOptionsResponse, ...errorResponses } } },
      async (request) => temporaryOptions(ctx, request),
    );

    app.post(
      '/licenses/activate',
      { schema: { tags, summary: 'Activate a license with a TAN and a machine id', body: activateBody, response: { 201: license, ...errorResponses } } },
      async (request, reply) => reply.status(201).send(await activateLicense(ctx, request, request.body)),
    );

    app.post(
      '/licenses/temporary',
      { schema: { tags, summary: 'Add a temporary (trial) license', body: temporaryLicense, response: { 201: license, ...errorResponses } } },
      async (request, reply) => reply.status(201).send(await addTemporaryLicense(ctx, request, request.body)),
    );

    app.get(
      '/licenses/:id',
      { schema: { tags, summary: 'One license, with its ETag', params: idParam, response: { 200: license, ...errorResponses } }, config: ETAG_CONFIG },
      async (request, reply) => withEtag(reply, await getLicense(ctx, request, request.params.id)),
    );

    app.put(
      '/licenses/:id',
      {
        schema: {
          tags,
          summary: "Administrator's edit: revoked, valid until, permanent; a field left out keeps its value; with If-Match only while the license is still the version read",
          params: idParam,
          headers: ifMatchHeaders,
          body: licenseUpdate,
          response: { 200: license, ...editResponses },
        },
        config: ETAG_CONFIG,
      },
      async (request, reply) => withEtag(reply, await updateLicenseFor(ctx, request, request.params.id, request.body, preconditionOf(request))),
    );

    app.delete(
      '/licenses/:id',
      {
        schema: {
          tags,
          summary: 'Delete a temporary license (administrators: any license); with If-Match only while it is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          response: { 204: z.null(), ...editResponses },
        },
      },
      async (request, reply) => {
        await deleteLicenseFor(ctx, request, request.params.id, preconditionOf(request));
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/licenses/:id/extend',
      { schema: { tags, summary: 'Extend a temporary license by days, weeks or months', params: idParam, body: extendBody, response: { 200: license, ...errorResponses } } },
      async (request) => extendLicense(ctx, request, request.params.id, request.body),
    );

    app.put(
      '/licenses/:id/machine',
      { schema: { tags, summary: 'Change the machine of a license', params: idParam, body: changeMachineBody, response: { 200: license, ...errorResponses } } },
      async (request) => changeMachine(ctx, request, request.params.id, request.body.machineId),
    );

    app.post(
      '/licenses/:id/move',
      { schema: { tags, summary: 'Move a license to another confirmed account', params: idParam, body: moveBody, response: { 200: license, ...errorResponses } } },
      async (request) => moveLicense(ctx, request, request.params.id, request.body.email),
    );

    app.post(
      '/licenses/:id/upgrade',
      { schema: { tags, summary: 'Take the free upgrade to the next major version', params: idParam, response: { 201: license, ...errorResponses } } },
      async (request, reply) => reply.status(201).send(await upgradeLicense(ctx, request, request.params.id)),
    );
  };
}
