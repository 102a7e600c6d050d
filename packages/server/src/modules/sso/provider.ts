import * as oidc from 'openid-client';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { readAllSettings } from '../settings/repo.ts';
import { openSecret } from '../webhooks/secrets.ts';
import { SETTING_DEFAULTS, type Role } from '@lm/contract';

/** Seconds the provider's clock may differ from ours (iat, exp, auth_time); beyond it the ID token is refused. */
export const CLOCK_TOLERANCE_SECONDS = 60;
/** A discovered provider is asked again after this long (its keys rotate). */
const DISCOVERY_TTL_MS = 10 * 60_000;

export interface SsoSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  groupsClaim: string;
  roleMapping: Record<string, Role>;
  provisioning: boolean;
  requiredForStaff: boolean;
  trustProviderMfa: boolean;
  buttonLabel: string | null;
}

const orDefault = <T>(all: Record<string, unknown>, key: keyof typeof SETTING_DEFAULTS & string): T => (all[key] ?? SETTING_DEFAULTS[key]) as T;

/** The single sign-on settings, or null while issuer, client id or secret is missing. */
export async function ssoSettings(ctx: AppContext): Promise<SsoSettings | null> {
  const all = await readAllSettings(ctx.db);
  const issuer = all['sso.issuer'];
  const clientId = all['sso.clientId'];
  const secret = all['sso.clientSecret'];
  if (typeof issuer !== 'string' || typeof clientId !== 'string' || typeof secret !== 'string') return null;
  return {
    issuer,
    clientId,
    clientSecret: openSecret(ctx, secret),
    scopes: orDefault(all, 'sso.scopes'),
    groupsClaim: orDefault(all, 'sso.groupsClaim'),
    roleMapping: orDefault(all, 'sso.roleMapping'),
    provisioning: orDefault(all, 'sso.provisioning'),
    requiredForStaff: orDefault(all, 'sso.requiredForStaff'),
    trustProviderMfa: orDefault(all, 'sso.trustProviderMfa'),
    buttonLabel: typeof all['sso.buttonLabel'] === 'string' ? all['sso.buttonLabel'] : null,
  };
}

/** Plain http only for a provider on this machine (a test or a local Keycloak); anything else must be https. */
function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

const cache = new Map<string, { config: oidc.Configuration; until: number }>();

/** Forgets discovered providers (after a settings change, and in tests). */
export function forgetProviders(): void {
  cache.clear();
}

export const ssoFailed = (reason: string) => new AppError(400, 'ERR_SSO_FAILED', `Single sign-on failed: ${reason}`);

/**
 * The provider's configuration by discovery, with the ID token's signature checked against its
 * published keys (non-repudiation) and a bounded clock tolerance.
 */
export async function providerConfiguration(settings: SsoSettings): Promise<oidc.Configuration> {
  const key = JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret]);
  const cached = cache.get(key);
  if (cached && cached.until > Date.now()) return cached.config;
  const issuer = new URL(settings.issuer);
  const insecure = issuer.protocol === 'http:';
  if (insecure && !isLoopback(issuer)) throw ssoFailed('the issuer must use https');
  let config: oidc.Configuration;
  try {
    config = await oidc.discovery(issuer, settings.clientId, { client_secret: settings.clientSecret, [oidc.clockTolerance]: CLOCK_TOLERANCE_SECONDS }, undefined, {
      execute: insecure ? [oidc.allowInsecureRequests] : [],
      timeout: 10,
    });
  } catch (error) {
    throw ssoFailed(`discovery of ${settings.issuer} failed (${error instanceof Error ? error.message : String(error)})`);
  }
  oidc.enableNonRepudiationChecks(config);
  cache.set(key, { config, until: Date.now() + DISCOVERY_TTL_MS });
  return config;
}
