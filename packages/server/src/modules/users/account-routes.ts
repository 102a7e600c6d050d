import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { emailChange, emailChangeResult, emailRequest, passwordReset, pendingEmailChange, registration, registrationConfirmation } from '@lm/contract/user';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, requireUser } from '../../platform/http/auth.ts';
import { requestLocale } from '../../platform/http/locale.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { FIFTEEN_MINUTES } from '../../platform/limits/limiter.ts';
import { limitedClient } from '../../platform/limits/client-address.ts';
import { confirmEmailChange, pendingEmailChangeOf, requestEmailChange } from './email-change.ts';
import { forgotPassword, resetPassword } from './password.ts';
import { confirmRegistrationByAdministrator, confirmRegistrationByToken, register, resendConfirmation } from './registration.ts';

const noContent = { 204: z.null(), ...errorResponses };
const tags = ['accounts'];

/** Registration, confirmation, password reset and e-mail change: the calls that send mail. */
/**
 * The calls that send mail, limited per e-mail address, per client address and per account, in the
 * database (shared by every instance): nobody can flood one mailbox or send mail without end, and
 * the answer for an unknown address is the same as for a known one.
 */
export const MAIL_LIMITS = {
  perAddress: { name: 'mail-address', max: 3, windowMs: FIFTEEN_MINUTES },
  perClient: { name: 'mail-client', max: 10, windowMs: FIFTEEN_MINUTES },
  registrationsPerClient: { name: 'registration-client', max: 20, windowMs: 60 * 60_000 },
  emailChangesPerAccount: { name: 'email-change-account', max: 5, windowMs: 60 * 60_000 },
};

export function accountRoutes(ctx: AppContext): FastifyPluginAsyncZod {

  return async (app) => {
    app.post(
      '/users/register',
      {
        schema: { tags, summary: 'Register a new account; a confirmation mail is sent', body: registration, response: noContent },
      },
      async (request, reply) => {
        await ctx.limits.take(MAIL_LIMITS.registrationsPerClient, limitedClient(request.ip));
        await register(ctx, request.body, requestLocale(request));
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/users/confirm',
      {
        schema: {
          tags,
          summary: 'Confirm a registration: with the token from the mail, or by an administrator with the id alone',
          body: registrationConfirmation,
          response: noContent,
        },
        config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      },
      async (request, reply) => {
        const { id, token } = request.body;
        if (token) {
          await confirmRegistrationByToken(ctx, id, token);
        } else {
          authorize(request, 'confirm-registration', 'User');
          await confirmRegistrationByAdministrator(ctx, actorOf(request), id);
        }
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/users/confirm/resend',
      {
        schema: { tags, summary: 'Send the confirmation mail again (same answer for every address)', body: emailRequest, response: noContent },
      },
      async (request, reply) => {
        await ctx.limits.take(MAIL_LIMITS.perClient, `resend:${limitedClient(request.ip)}`);
        await ctx.limits.take(MAIL_LIMITS.perAddress, `resend:${request.body.email}`);
        await resendConfirmation(ctx, request.body.email, requestLocale(request));
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/users/forgot-password',
      {
        schema: { tags, summary: 'Mail a password-reset link (same answer for every address)', body: emailRequest, response: noContent },
      },
      async (request, reply) => {
        await ctx.limits.take(MAIL_LIMITS.perClient, `forgot:${limitedClient(request.ip)}`);
        await ctx.limits.take(MAIL_LIMITS.perAddress, `forgot:${request.body.email}`);
        await forgotPassword(ctx, request.body.email, requestLocale(request));
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/users/reset-password',
      {
        schema: { tags, summary: 'Set a new password with the token from the reset mail', body: passwordReset, response: noContent },
        config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      },
      async (request, reply) => {
        await resetPassword(ctx, request.body);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/users/change-email',
      { schema: { tags, summary: 'The own e-mail change still waiting for its confirmation link, if any', response: { 200: pendingEmailChange, ...errorResponses } } },
      async (request) => pendingEmailChangeOf(ctx, requireUser(request).id),
    );

    app.post(
      '/users/change-email',
      {
        schema: {
          tags,
          summary: 'Change the own e-mail address: without token a confirmation mail goes to the new address; with the token from it the change is made',
          body: emailChange,
          response: { 200: emailChangeResult, ...errorResponses },
        },
        config: { rateLimit: { max: 30, timeWindow: '1 minute' }, sessionOnly: true },
      },
      async (request) => {
        const user = requireUser(request);
        const { email, token } = request.body;
        if (token) return confirmEmailChange(ctx, user.id, email, token, requestLocale(request));
        await ctx.limits.take(MAIL_LIMITS.emailChangesPerAccount, String(user.id));
        return requestEmailChange(ctx, user.id, email, requestLocale(request));
      },
    );
  };
}
