/**
 * A real OpenID Connect provider (panva's oidc-provider) on 127.0.0.1 for the single sign-on tests:
 * no traffic leaves the machine. Its login is automatic: the account named by `nextLogin` signs in
 * without a form (a browser journey walks through the same redirects).
 */
import { createPrivateKey, generateKeyPairSync, sign, type JsonWebKey } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  email: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  groups?: string[];
}

function signingJwks(kid: string) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { keys: [{ ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] };
}

/** The public half of another key: what the provider's JWKS shows while `foreignKeys` is on. */
function publicOf(jwks: { keys: Record<string, unknown>[] }) {
  return { keys: jwks.keys.map(({ kty, n, e, kid, alg, use }) => ({ kty, n, e, kid, alg, use })) };
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, TestAccount>;
  /** Who signs in next, and the authentication methods the provider asserts (amr). */
  nextLogin: { accountId: string; amr?: string[] };
  /** While true the provider publishes keys other than those it signs with (an ID token signed with an unknown key). */
  foreignKeys: boolean;
  /** Seconds the provider's clock is off: its ID tokens' iat and exp are moved by that much. */
  clockSkewSeconds: number;
  close(): Promise<void>;
}

export async function startTestProvider(redirectUris: string[]): Promise<TestProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestAccount>();
  const clientId = 'license-manager';
  const clientSecret = 'a-client-secret-for-tests-only-0123456789';
  const foreign = publicOf(signingJwks('foreign') as { keys: Record<string, unknown>[] });
  const state: TestProvider = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    nextLogin: { accountId: '' },
    foreignKeys: false,
    clockSkewSeconds: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const jwks = signingJwks('provider-key');
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
    jwks,
    cookies: { keys: ['test-cookie-key-0123456789'] },
    // amr in the ID token, as Entra ID, Okta and Keycloak send it (oidc-provider sends only the claims of a scope).
    claims: { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name', 'name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    pkce: { required: () => true },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 3600 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
    },
  });
  const callback = provider.callback();
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (state.foreignKeys && request.url === '/jwks') {
      response.setHeader('content-type', 'application/jwk-set+json');
      response.end(JSON.stringify(foreign));
      return;
    }
    if (request.url?.startsWith('/interaction/')) {
      void (async () => {
        const details = await provider.interactionDetails(request, response);
        const { accountId, amr } = state.nextLogin;
        const grant = new provider.Grant({ accountId, clientId });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await provider.interactionFinished(request, response, { login: { accountId, ...(amr ? { amr } : {}) }, consent: { grantId } }, { mergeWithLastSubmission: false });
      })().catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
      return;
    }
    if (state.clockSkewSeconds && request.url === '/token') skewIdTokens(response, jwks.keys[0], state.clockSkewSeconds);
    callback(request, response);
  });
  return state;
}

/** Re-signs the ID token of a token answer with its times moved, as a provider whose clock is off would sign it. */
function skewIdTokens(response: http.ServerResponse, jwk: Record<string, unknown>, seconds: number): void {
  const end = response.end.bind(response) as (chunk?: unknown) => http.ServerResponse;
  response.end = ((chunk?: unknown) => {
    const body = JSON.parse(String(chunk)) as { id_token?: string };
    if (body.id_token) {
      const [header, payload] = body.id_token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, number>;
      for (const name of ['iat', 'exp', 'auth_time']) if (typeof claims[name] === 'number') claims[name] += seconds;
      const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
      body.id_token = `${input}.${sign('sha256', Buffer.from(input), createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' })).toString('base64url')}`;
    }
    response.removeHeader('content-length');
    return end(JSON.stringify(body));
  }) as typeof response.end;
}

/** A cookie jar for the provider's cookies, kept per test flow. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (value) this.cookies.set(name, value);
      else this.cookies.delete(name);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * Walks a browser's way through the provider: from its authorization URL through the (automatic)
 * login until it redirects to a URL outside the provider, which it answers (the app's callback).
 */
export async function followProvider(provider: TestProvider, authorizationUrl: string, jar = new CookieJar()): Promise<string> {
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (!url.startsWith(provider.issuer)) return url;
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(response);
    const location = response.headers.get('location');
    if (!location) throw new Error(`the provider answered ${response.status} without a redirect: ${await response.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects at the provider');
}
