import type { AnyLicCreate, AnyLicLink } from '@lm/contract/anylic';
import { ANY_MACHINE, LICENSE_FILE_FORMAT_VERSION, licenseFileName, type LicenseFileFormat, type LicenseFileJson } from '@lm/contract/license-file';
import { hashToken, randomToken } from '../../platform/auth/secrets.ts';
import type { Actor, AppContext } from '../../platform/context.ts';
import { notFound, validationError } from '../../platform/http/errors.ts';
import { catalogueCache } from '../license-files/catalogue-cache.ts';
import { findProduct } from '../license-files/repo.ts';
import { signPayload } from '../license-files/service.ts';
import { settingValue } from '../settings/service.ts';
import { deleteExpiredAnyLicLinks, findAnyLicLink, insertAnyLicLink } from './repo.ts';

const DAY_MS = 86_400_000;
const today = (now: Date) => now.toISOString().slice(0, 10);
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * `POST /api/anylic`: a link that downloads a file for any machine (`*`) until the end (UTC) of
 * `validUntil`, at most the 'anylic.maxDays' setting from today. The token is the only credential:
 * 256 random bits, stored hashed.
 */
export async function createAnyLicLink(ctx: AppContext, actor: Actor, input: AnyLicCreate, now = new Date()): Promise<AnyLicLink> {
  if (!(await findProduct(ctx.db, input.productId))) throw validationError('productId', 'unknownProduct');
  const maxDays = await settingValue<number>(ctx.db, 'anylic.maxDays');
  const latest = addDays(today(now), maxDays);
  if (input.validUntil < today(now) || input.validUntil > latest) throw validationError('validUntil', 'maxDaysAhead', { count: maxDays });
  const token = randomToken(32);
  const expiresAt = new Date(Date.parse(`${input.validUntil}T00:00:00.000Z`) + DAY_MS).toISOString();
  await deleteExpiredAnyLicLinks(ctx.db, now.toISOString());
  await insertAnyLicLink(ctx.db, {
    tokenHash: hashToken(token),
    productId: input.productId,
    format: input.format,
    validUntil: input.validUntil,
    expiresAt,
    createdBy: actor.userId,
  });
  return { url: `${ctx.config.publicUrl}/api/anylic/${token}`, expiresAt };
}

/** `GET /api/anylic/{token}`: the ANY-Lic file, signed now; unknown and expired links are alike not found. */
export async function downloadAnyLic(ctx: AppContext, token: string, now = new Date()): Promise<{ file: LicenseFileJson; fileName: string; format: LicenseFileFormat }> {
  const link = await findAnyLicLink(ctx.db, hashToken(token));
  if (!link || link.expires_at <= now.toISOString()) throw notFound('ANY-Lic link');
  const cache = catalogueCache(ctx);
  const product = { id: link.product_id, name: link.product_name, version: link.product_version };
  const values = (await cache.current()).product(product.id)?.featureValues ?? {};
  const entitlements = await cache.entitlements(product.id, values, [], now.getTime());
  const { file } = await signPayload(ctx, {
    formatVersion: LICENSE_FILE_FORMAT_VERSION,
    licenseId: null,
    kind: 'ANYLIC',
    policyType: null,
    product,
    features: Object.keys(entitlements),
    entitlements,
    metadata: {},
    machineId: ANY_MACHINE,
    owner: { name: `${link.first_name ?? ''} ${link.last_name ?? ''}`.trim(), company: link.company },
    issuedAt: now.toISOString(),
    expiresAt: link.expires_at,
    licenseValidUntil: link.valid_until,
    permanent: false,
    freeUpdatesUntil: null,
    // Nothing to refresh from: the file is valid until its end and no longer.
    refetchIntervalSeconds: 0,
    refetchBeforeExpirySeconds: 0,
    serverCustomerId: await cache.serverCustomerId(now.getTime()),
  });
  return { file, fileName: licenseFileName(product, ANY_MACHINE, link.format), format: link.format };
}
