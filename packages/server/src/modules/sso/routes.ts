import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ssoIdentityList, ssoSecondFactorRequest, ssoSignedIn, ssoStart, ssoStatus } from '@lm/contract/sso';
import type { AppContext } from '../../platform/context.ts';
import { requireUser, setSessionCookie } from '../../platform/http/auth.ts';
import { AppError } from '../../platform/http/errors.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { ssoSettings } from './provider.ts';
import { accountIdentities, finishSsoLogin, startSsoLogin, unlinkIdentity } from './service.ts';
import { finishSecondFactor } from './sessions.ts';

/** The state of a sign-in on its way, in the browser that started it (only the callback reads it). */
const STATE_COOKIE = 'lm_sso_state';
/** A vouched-for identity waiting for the account's second factor (sessions.ts), in the same browser. */
const SECOND_FACTOR_COOKIE = 'lm_sso_second_factor';
/** A distributor's work is its TANs; everyone else starts on the home page. */
const landingOf = (role: string) => (role === 'DISTRIBUTOR' ? '/tans' : '/');
const redirect = { 302: z.null().describe('A redirect (Location): to the provider, or back to the web app') };

function setStateCookie(request: FastifyRequest, reply: FastifyReply, state: string): void {
  reply.setCookie(STATE_COOKIE, state, { path: '/api/sso', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', maxAge: 600 });
}

/** An error of the flow as the web app's page for it: the login page shows the code's translated text; nobody is signed in. */
function errorCodeOf(request: FastifyRequest, error: unknown): string {
  if (error instanceof AppError) {
    request.log.info({ code: error.code, reason: error.message }, 'single sign-on refused');
    return error.code;
  }
  request.log.error({ err: error }, 'single sign-on failed');
  return 'ERR_SSO_FAILED';
}

export function ssoRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/sso/status',
      { schema: { tags: ['session'], summary: 'Whether single sign-on is set up (for the login page)', description: 'Public: the login page shows its "Sign in with …" button from this.', response: { 200: ssoStatus } } },
      async () => {
        const settings = await ssoSettings(ctx);
        return { enabled: settings !== null, label: settings?.buttonLabel ?? null, requiredForStaff: settings?.requiredForStaff ?? false };
      },
    );

    app.get(
      '/sso/login',
      {
        // A browser's navigation, not an API call: left out of the document (the login page links to it).
        schema: { hide: true, tags: ['session'], summary: 'Start signing in with the identity provider', description: "Redirects to the provider's authorization endpoint (code flow with PKCE, state and nonce); on a problem to `/login?ssoError=<code>`.", response: redirect },
        config: { rateLimit: { max: 60, timeWindow: '1 minute' } },
      },
      async (request, reply) => {
        try {
          const { url, state } = await startSsoLogin(ctx, null);
          setStateCookie(request, reply, state);
          return reply.redirect(url, 302);
        } catch (error) {
          return reply.redirect(`/login?ssoError=${errorCodeOf(request, error)}`, 302);
        }
      },
    );

    app.get(
      '/sso/callback',
      {
        schema: {
          hide: true,
          tags: ['session'],
          summary: "The provider's redirect back (the redirect URI to register: PUBLIC_URL/api/sso/callback)",
          description: 'Exchanges the code, checks state, nonce and the ID token (signature, issuer, audience, times), then signs the person in and redirects to the web app; on any problem to `/login?ssoError=<code>` with nobody signed in.',
          querystring: z.object({
            code: z.string().max(4000).optional().describe('The authorization code'),
            state: z.string().max(500).optional().describe('The state this server sent'),
            error: z.string().max(500).optional().describe("The provider's error, if it refused"),
            error_description: z.string().max(2000).optional().describe("The provider's description of its error"),
            iss: z.string().max(500).optional().describe('The issuer (RFC 9207)'),
            session_state: z.string().max(500).optional().describe('The provider session state, if the provider sends one'),
          }),
          response: redirect,
        },
        config: { rateLimit: { max: 60, timeWindow: '1 minute' } },
      },
      async (request, reply) => {
        const stateCookie = request.cookies[STATE_COOKIE];
        reply.clearCookie(STATE_COOKIE, { path: '/api/sso' });
        try {
          const url = new URL(request.url, 'http://callback.invalid');
          const outcome = await finishSsoLogin(ctx, url, stateCookie, { address: request.ip, userAgent: request.headers['user-agent'] });
          if (outcome.kind === 'linked') return reply.redirect('/account/security?ssoLinked=1', 302);
          if (outcome.kind === 'second-factor') {
            reply.setCookie(SECOND_FACTOR_COOKIE, outcome.token, { path: '/api/sso', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https', maxAge: 300 });
            return reply.redirect('/login?ssoSecondFactor=1', 302);
          }
          setSessionCookie(request, reply, outcome.token);
          return reply.redirect(landingOf(outcome.role), 302);
        } catch (error) {
          return reply.redirect(`/login?ssoError=${errorCodeOf(request, error)}`, 302);
        }
      },
    );

    app.post(
      '/sso/second-factor',
      {
        schema: {
          tags: ['session'],
          summary: "The account's second factor after single sign-on",
          description:
            "When the provider did not assert a second factor (or is not trusted to), the callback sends the browser to `/login?ssoSecondFactor=1`, which posts the account's authenticator or recovery code here within 5 minutes: 200 signs in. A wrong code is 401 `ERR_TWO_FACTOR_INVALID`; the fifth, or a step expired or used, 401 `ERR_SSO_SECOND_FACTOR` (sign in again).",
          body: ssoSecondFactorRequest,
          response: { 200: ssoSignedIn, ...errorResponses },
        },
        config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      },
      async (request, reply) => {
        const outcome = await finishSecondFactor(ctx, request.cookies[SECOND_FACTOR_COOKIE], request.body.code, { address: request.ip, userAgent: request.headers['user-agent'] });
        reply.clearCookie(SECOND_FACTOR_COOKIE, { path: '/api/sso' });
        setSessionCookie(request, reply, outcome.token);
        return { redirect: landingOf(outcome.role) };
      },
    );

    app.get(
      '/account/sso',
      { schema: { tags: ['account'], summary: "The own account's identities at the single sign-on provider", response: { 200: ssoIdentityList, ...errorResponses } } },
      async (request) => ({ items: await accountIdentities(ctx, requireUser(request).id) }),
    );

    app.post(
      '/account/sso',
      {
        schema: {
          tags: ['account'],
          summary: 'Link a provider identity to the own account',
          description: "Answers the provider's URL to open in this browser; coming back, the identity is linked to this account (only its signed-in owner links one, never an e-mail match).",
          response: { 200: ssoStart, ...errorResponses },
        },
        config: { sessionOnly: true },
      },
      async (request, reply) => {
        const { url, state } = await startSsoLogin(ctx, requireUser(request).id);
        setStateCookie(request, reply, state);
        return { url };
      },
    );

    app.delete(
      '/account/sso/:id',
      {
        schema: { tags: ['account'], summary: 'Unlink a provider identity from the own account', params: z.object({ id: z.coerce.number().int().positive().describe('The identity') }), response: { 204: z.null(), ...errorResponses } },
        config: { sessionOnly: true },
      },
      async (request, reply) => {
        await unlinkIdentity(ctx, requireUser(request).id, request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
