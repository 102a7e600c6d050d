/**
 * What an integrator writes with a client generated from `/api/openapi.json` by openapi-typescript
 * and openapi-fetch, tools this project did not write. openapi-clients.test.ts generates
 * `generated/api.ts` from the running server, compiles this file against it with tsc (strict) and runs
 * it with an API token. It has to compile without casts, `String(…)` or `parseAs`: ids, counts and
 * flags are numbers and booleans, bodies and answers are named types, a license file is read as JSON.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api.ts';

export type License = components['schemas']['License'];
export type Tan = components['schemas']['Tan'];
export type ApiError = components['schemas']['Error'];

/** A client of the API at `serverUrl` that reads JSON answers, signed in with an API token. */
export function licenseManager(serverUrl: string, token: string) {
  return createClient<paths, 'application/json'>({ baseUrl: `${serverUrl}/api`, headers: { authorization: `Bearer ${token}` } });
}

export interface IntegrationResult {
  tan: Tan;
  activated: License;
  listed: License[];
  file: components['schemas']['LicenseFileJson'];
  revoked: License;
  notFound: ApiError;
  refusedLimit: ApiError;
}

/** A shop's round: a TAN for an order, the customer's activation, the licenses of the TAN, the file, a revocation, two errors. */
export async function integrationRound(serverUrl: string, token: string, productId: number, licensePolicyId: number, machineId: string): Promise<IntegrationResult> {
  const api = licenseManager(serverUrl, token);

  const created = await api.POST('/tans', { params: { query: { count: 1 } }, body: { productId, licensePolicyId, licenseCount: 2, tags: ['order-1001'] } });
  if (created.error) throw new Error(`createTans: ${created.error.error}`);
  const tan = created.data.items[0]!;

  const activation = await api.POST('/licenses/activate', { body: { tan: tan.code, machineId } });
  if (activation.error) throw new Error(`activateLicense: ${activation.error.error}`);

  const list = await api.GET('/licenses', { params: { query: { tanId: tan.id, limit: 10, offset: 0 } } });
  if (list.error) throw new Error(`listLicenses: ${list.error.error}`);

  const file = await api.GET('/licenses/{id}/file', { params: { path: { id: activation.data.id }, query: { format: 'json' } } });
  if (file.error) throw new Error(`getLicenseFile: ${file.error.error}`);

  const update = await api.PUT('/licenses/{id}', { params: { path: { id: activation.data.id } }, body: { revoked: true } });
  if (update.error) throw new Error(`updateLicense: ${update.error.error}`);

  const missing = await api.GET('/licenses/{id}', { params: { path: { id: 2_147_483_647 } } });
  if (!missing.error) throw new Error('getLicense found a license that does not exist');

  const tooMany = await api.GET('/licenses', { params: { query: { limit: 1_000_000 } } });
  if (!tooMany.error) throw new Error('listLicenses took a limit beyond the largest page');

  return {
    tan,
    activated: activation.data,
    listed: list.data.items,
    file: file.data,
    revoked: update.data,
    notFound: missing.error,
    refusedLimit: tooMany.error,
  };
}
