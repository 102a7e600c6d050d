import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParam } from '@lm/contract';
import { consentExportQuery, user, userCreate, userList, userListQuery, userUpdate } from '@lm/contract/user';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, clearSessionCookie, requireUser } from '../../platform/http/auth.ts';
import { sendTextFile } from '../../platform/http/downloads.ts';
import { editResponses, errorResponses, textFileAnswer } from '../../platform/http/openapi.ts';
import { ETAG_CONFIG, ifMatchHeaders, preconditionOf, withEtag } from '../../platform/http/versioned.ts';
import { closeAccount } from './close.ts';
import { consentCsv } from './export.ts';
import { createUser, getUser, setEmailConsent, updateUserFields, userPage, type Caller } from './service.ts';

const tags = ['users'];
const userResponse = { 200: user, ...errorResponses };
const userEditResponse = { 200: user, ...editResponses };
/** The export is a text/csv stream, or its TextFile JSON form (downloads.ts; Fastify sends streams as they are, without serializing). */
const csvBody = textFileAnswer('The CSV file, as an attachment', { 'text/csv': z.string().describe('email, firstName, lastName, company, country, language, registeredAt') });

function callerOf(request: FastifyRequest): Caller {
  requireUser(request);
  return { actor: actorOf(request), ability: request.ability };
}

/** User administration, the own account, e-mail consent and the consent export. */
export function usersRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/users',
      { schema: { tags, summary: 'List accounts (offset, limit, filter, sort, accessRole)', querystring: userListQuery, response: { 200: userList, ...errorResponses } } },
      async (request) => {
        authorize(request, 'view-list', 'User');
        return userPage(ctx, request.query);
      },
    );

    app.post(
      '/users',
      { schema: { tags, summary: 'Create an account: confirmed, random password, no mail', body: userCreate, response: { 201: user, ...errorResponses } } },
      async (request, reply) => {
        authorize(request, 'create', 'User');
        return reply.status(201).send(await createUser(ctx, callerOf(request), request.body));
      },
    );

    app.get(
      '/users/export/email-consent',
      { schema: { tags, summary: 'CSV of the accounts that agreed to e-mails (streamed)', querystring: consentExportQuery, response: { 200: csvBody, ...errorResponses } } },
      async (request, reply) => {
        authorize(request, 'view-export', 'Export');
        const date = new Date().toISOString().slice(0, 10);
        return sendTextFile(request, reply.header('cache-control', 'no-store'), {
          fileName: `email-consent-${date}.csv`,
          mediaType: 'text/csv',
          contentType: 'text/csv; charset=utf-8',
          content: consentCsv(ctx, request.query.separator === 'semicolon' ? ';' : ','),
        });
      },
    );

    app.get(
      '/users/:id',
      { schema: { tags, summary: 'One account (your own, or any for administrators), with its ETag', params: idParam, response: userResponse }, config: ETAG_CONFIG },
      async (request, reply) => withEtag(reply, await getUser(ctx, callerOf(request).ability, request.params.id)),
    );

    app.put(
      '/users/:id',
      {
        schema: {
          tags,
          summary: 'Change an account; each changed field needs the update right on it; with If-Match only while the account is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          body: userUpdate,
          response: userEditResponse,
        },
        config: ETAG_CONFIG,
      },
      async (request, reply) => withEtag(reply, await updateUserFields(ctx, callerOf(request), request.params.id, request.body, preconditionOf(request))),
    );

    app.delete(
      '/users/:id',
      {
        schema: {
          tags,
          summary: 'Close an account for good (own, or any for administrators); with If-Match only while it is still the version read',
          params: idParam,
          headers: ifMatchHeaders,
          response: { 204: z.null(), ...editResponses },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        await closeAccount(ctx, caller, request.params.id, preconditionOf(request));
        if (request.params.id === request.user?.id) clearSessionCookie(reply);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/users/:id/consent/email',
      { schema: { tags, summary: 'Agree to e-mails; with If-Match only while the account is still the version read', params: idParam, headers: ifMatchHeaders, response: userEditResponse }, config: ETAG_CONFIG },
      async (request, reply) => withEtag(reply, await setEmailConsent(ctx, callerOf(request), request.params.id, true, preconditionOf(request))),
    );

    app.delete(
      '/users/:id/consent/email',
      { schema: { tags, summary: 'Withdraw the agreement to e-mails; with If-Match only while the account is still the version read', params: idParam, headers: ifMatchHeaders, response: userEditResponse }, config: ETAG_CONFIG },
      async (request, reply) => withEtag(reply, await setEmailConsent(ctx, callerOf(request), request.params.id, false, preconditionOf(request))),
    );
  };
}
