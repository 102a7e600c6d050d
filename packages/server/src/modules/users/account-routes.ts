import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { emailChange, emailChangeResult, emailRequest, passwordReset, registration, registrationConfirmation } from '@lm/contract/user';
import type { AppContext } from '../../platform/context.ts';
import { actorOf, authorize, requireUser } from '../../platform/http/auth.ts';
import { AppError } from '../../platform/http/errors.ts';
import { requestLocale } from '../../platform/http/locale.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { FailureThrottle } from '../../platform/http/throttle.ts';
import { confirmEmailChange, requestEmailChange } from './email-change.ts';
import { forgotPassword, resetPassword } from './password.ts';
import { confirmRegistrationByAdministrator, confirmRegistrationByToken, register, resendConfirmation } from './registration.ts';

const noContent = { 204: z.null(), ...errorResponses };
const tags = ['accounts'];

/** Registration, confirmation, password reset and e-mail change: the calls that send mail. */
export function accountRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  // Mails per address and per account, on top of the per-address (IP) limits of the routes: nobody
  // can flood one mailbox, and the answer for an unknown address is the same as for a known one.
  const mailsPerAddress = new FailureThrottle(3, 15 * 60_000);
  const emailChangesPerAccount = new FailureThrottle(5, 60 * 60_000);
  const throttle = (limiter: FailureThrottle, key: string) => {
    if (!ctx.config.rateLimits) return;
    const wait = limiter.retryAfter(key);
    if (wait > 0) throw new AppError(429, 'ERR_RATE_LIMITED', 'Too many requests, please try again later', { params: { retryAfter: wait } });
    limiter.fail(key);
  };

  return async (app) => {
    app.post(
      '/users/register',
      {
        schema: { tags, summary: 'Register a new account; a confirmation mail is sent', body: registration, response: noContent },
        config: { rateLimit: { max: 20, timeWindow: '1 hour' } },
      },
      async (request, reply) => {
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
        config: { rateLimit: { max: 10, timeWindow: '15 minutes' } },
      },
      async (request, reply) => {
        throttle(mailsPerAddress, `resend:${request.body.email}`);
        await resendConfirmation(ctx, request.body.email, requestLocale(request));
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/users/forgot-password',
      {
        schema: { tags, summary: 'Mail a password-reset link (same answer for every address)', body: emailRequest, response: noContent },
        config: { rateLimit: { max: 10, timeWindow: '15 minutes' } },
      },
      async (request, reply) => {
        throttle(mailsPerAddress, `forgot:${request.body.email}`);
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

    app.post(
      '/users/change-email',
      {
        schema: {
          tags,
          summary: 'Change the own e-mail address: without token a confirmation mail goes to the new address; with the token from it the change is made',
          body: emailChange,
          response: { 200: emailChangeResult, ...errorResponses },
        },
        config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      },
      async (request) => {
        const user = requireUser(request);
        const { email, token } = request.body;
        if (token) return confirmEmailChange(ctx, user.id, email, token);
        throttle(emailChangesPerAccount, String(user.id));
        return requestEmailChange(ctx, user.id, email, requestLocale(request));
      },
    );
  };
}
