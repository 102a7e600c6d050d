/**
 * What an integrator writes with a client generated from `/api/openapi.json` by openapi-typescript
 * and openapi-fetch, tools this project did not write. openapi-clients.test.ts generates
 * `generated/api.ts` from the running server, compiles this file against it with tsc (strict) and runs
 * it with an API token. It has to compile without casts, `String(…)` or `parseAs`: ids, counts and
 * flags are numbers and booleans, bodies and answers are named types, and every download (the .lic
 * and .json license files, an ANY-Lic file, the CSV export, a PEM key) is read as JSON: the client
 * asks for `application/json` once, and text files then come as the TextFile object.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api.ts';

export type License = components['schemas']['License'];
export type Tan = components['schemas']['Tan'];
export type ApiError = components['schemas']['Error'];
export type TextFile = components['schemas']['TextFile'];
export type LicenseFileJson = components['schemas']['LicenseFileJson'];

/**
 * A client of the API at `serverUrl` that reads JSON answers, signed in with an API token. The type
 * argument picks the `application/json` answers from the document; the Accept header asks the server
 * for them, so that downloads come as JSON too.
 */
export function licenseManager(serverUrl: string, token: string) {
  return createClient<paths, 'application/json'>({ baseUrl: `${serverUrl}/api`, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
}

export interface IntegrationResult {
  tan: Tan;
  activated: License;
  listed: License[];
  file: LicenseFileJson;
  licFile: TextFile;
  anyLicFile: TextFile;
  consentCsv: TextFile;
  publicKey: { kid: string; publicKeyPem: string; pem: TextFile };
  revoked: License;
  notFound: ApiError;
  refusedLimit: ApiError;
}

/** A shop's round: a TAN for an order, the customer's activation, the licenses of the TAN, every kind of download, a revocation, two errors. */
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
  // Either form of a license file is JSON here: the JSON file itself, or the .lic file in a TextFile.
  if ('content' in file.data) throw new Error('getLicenseFile: format=json answered a TextFile');

  const lic = await api.GET('/licenses/{id}/file', { params: { path: { id: activation.data.id }, query: { format: 'lic' } } });
  if (lic.error) throw new Error(`getLicenseFile: ${lic.error.error}`);
  if (!('content' in lic.data)) throw new Error('getLicenseFile: format=lic answered the JSON file');

  const link = await api.POST('/anylic', { body: { productId, validUntil: new Date(Date.now() + 7 * 86_400_000).toJSON().slice(0, 10), format: 'lic' } });
  if (link.error) throw new Error(`createAnyLicLink: ${link.error.error}`);
  const anyLic = await api.GET('/anylic/{token}', { params: { path: { token: link.data.url.slice(link.data.url.lastIndexOf('/') + 1) } } });
  if (anyLic.error) throw new Error(`downloadAnyLicFile: ${anyLic.error.error}`);
  if (!('content' in anyLic.data)) throw new Error('downloadAnyLicFile: a .lic link answered the JSON file');

  const csv = await api.GET('/users/export/email-consent', { params: { query: { separator: 'semicolon' } } });
  if (csv.error) throw new Error(`exportEmailConsent: ${csv.error.error}`);

  const keys = await api.GET('/client/v1/keys');
  if (keys.error) throw new Error(`listSigningKeys: ${keys.error.error}`);
  const key = keys.data.keys[0];
  if (!key) throw new Error('listSigningKeys: no key');
  const pem = await api.GET('/client/v1/keys/{kid}.pem', { params: { path: { kid: key.kid } } });
  if (pem.error) throw new Error(`getSigningKeyPem: ${pem.error.error}`);

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
    licFile: lic.data,
    anyLicFile: anyLic.data,
    consentCsv: csv.data,
    publicKey: { kid: key.kid, publicKeyPem: key.publicKeyPem, pem: pem.data },
    revoked: update.data,
    notFound: missing.error,
    refusedLimit: tooMany.error,
  };
}
