import type { FastifyRequest } from 'fastify';
import type { ListResult } from '@lm/contract';
import type { ShopConnection, ShopConnectionFields, ShopConnectionUpdate, ShopMapping, ShopPurchase } from '@lm/contract/shop';
import type { AppContext } from '../../platform/context.ts';
import { nowIso, type Executor } from '../../platform/db/database.ts';
import { authorize, requireUser } from '../../platform/http/auth.ts';
import { lockRow } from '../../platform/db/dialect.ts';
import { AppError, notFound } from '../../platform/http/errors.ts';
import { checkPrecondition, type Precondition } from '../../platform/http/versioned.ts';
import { parseGrants } from '@lm/contract/entitlement';
import { checkGrants } from '../entitlements/service.ts';
import { sealSecret } from '../webhooks/secrets.ts';
import {
  deleteConnection,
  existingPolicies,
  failedEventCounts,
  findConnection,
  insertConnection,
  listConnections,
  mappingsOf,
  productStates,
  purchasesOf,
  replaceMappings,
  updateConnection,
  type ConnectionRow,
  type MappingRow,
} from './repo.ts';

/** Shop connections are the administrators' (they create TANs for anyone): the right to change settings. */
function requireAdministrator(request: FastifyRequest): void {
  requireUser(request);
  authorize(request, 'update', 'Setting');
}

function invalid(path: string, code: string, params: Record<string, string | number> = {}): AppError {
  return new AppError(400, 'ERR_VALIDATION', `${path}: ${code}`, { details: [{ path, message: code, code, params }], params });
}

/** Each mapping must name an existing, active product and, if any, an existing policy: the error names which. */
async function checkMappings(db: Executor, mappings: readonly ShopMapping[]): Promise<void> {
  const products = await productStates(db, [...new Set(mappings.flatMap((mapping) => (mapping.productId === null ? [] : [mapping.productId])))]);
  const policies = await existingPolicies(db, [...new Set(mappings.flatMap((mapping) => (mapping.licensePolicyId === null ? [] : [mapping.licensePolicyId])))]);
  for (const [index, mapping] of mappings.entries()) {
    // No product: the id is "no license", its lines make no TAN.
    if (mapping.productId === null) continue;
    const active = products.get(mapping.productId);
    if (active === undefined) throw invalid(`mappings.${index}.productId`, 'unknownProduct', { productId: mapping.productId, externalId: mapping.externalId });
    if (!active) throw invalid(`mappings.${index}.productId`, 'inactiveProduct', { productId: mapping.productId, externalId: mapping.externalId });
    if (mapping.licensePolicyId !== null && !policies.has(mapping.licensePolicyId)) throw invalid(`mappings.${index}.licensePolicyId`, 'unknownPolicy', { licensePolicyId: mapping.licensePolicyId });
    // Known features with values of their type (an add-on's, or what a made TAN carries).
    await checkGrants(db, mapping.entitlements, `mappings.${index}.entitlements`);
  }
}

const toMapping = (row: MappingRow): ShopMapping => ({
  externalId: row.external_id,
  productId: row.product_id,
  licensePolicyId: row.license_policy_id,
  seats: row.seats,
  addOn: Boolean(row.add_on),
  entitlements: parseGrants(row.entitlements),
});
const toRow = (mapping: ShopMapping) => ({
  external_id: mapping.externalId,
  product_id: mapping.productId,
  license_policy_id: mapping.addOn ? null : mapping.licensePolicyId,
  seats: mapping.addOn ? 1 : mapping.seats,
  add_on: mapping.addOn,
  entitlements: JSON.stringify(mapping.productId === null ? [] : mapping.entitlements),
});

/** Connections as the API shows them: never their secret. */
async function toConnections(db: Executor, rows: ConnectionRow[]): Promise<ShopConnection[]> {
  const ids = rows.map((row) => row.id);
  const mappings = await mappingsOf(db, ids);
  const failed = await failedEventCounts(db, ids);
  return rows.map((row) => ({
    id: row.id,
    provider: row.provider,
    name: row.name,
    graceDays: row.grace_days,
    mappings: mappings.filter((mapping) => mapping.connection_id === row.id).map(toMapping),
    webhookPath: `/api/webhooks/shop/${row.id}`,
    failedEvents: failed.get(row.id) ?? 0,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }));
}

async function connectionById(db: Executor, id: number): Promise<ShopConnection> {
  const row = await findConnection(db, id);
  if (!row) throw notFound('ShopConnection');
  return (await toConnections(db, [row]))[0];
}

export async function listShopConnections(ctx: AppContext, request: FastifyRequest): Promise<ListResult<ShopConnection>> {
  requireAdministrator(request);
  const items = await toConnections(ctx.db, await listConnections(ctx.db));
  return { items, totalCount: items.length };
}

export async function getShopConnection(ctx: AppContext, request: FastifyRequest, id: number): Promise<ShopConnection> {
  requireAdministrator(request);
  return connectionById(ctx.db, id);
}

export async function createShopConnection(ctx: AppContext, request: FastifyRequest, input: ShopConnectionFields): Promise<ShopConnection> {
  requireAdministrator(request);
  await checkMappings(ctx.db, input.mappings);
  const now = nowIso();
  const id = await ctx.db.transaction().execute(async (trx) => {
    const row = await insertConnection(trx, { provider: input.provider, name: input.name, secret: sealSecret(ctx, input.secret), grace_days: input.graceDays, created_at: now, updated_at: now });
    await replaceMappings(trx, row.id, input.mappings.map(toRow));
    return row.id;
  });
  return connectionById(ctx.db, id);
}

/** Fields left out keep their value; `mappings`, when given, replace all of them. */
export async function updateShopConnection(ctx: AppContext, request: FastifyRequest, id: number, input: ShopConnectionUpdate, precondition?: Precondition): Promise<ShopConnection> {
  requireAdministrator(request);
  if (!(await findConnection(ctx.db, id))) throw notFound('ShopConnection');
  if (input.mappings) await checkMappings(ctx.db, input.mappings);
  await ctx.db.transaction().execute(async (trx) => {
    await checkedConnection(trx, id, precondition);
    await updateConnection(trx, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.secret !== undefined ? { secret: sealSecret(ctx, input.secret) } : {}),
      ...(input.graceDays !== undefined ? { grace_days: input.graceDays } : {}),
      updated_at: nowIso(),
    });
    if (input.mappings) await replaceMappings(trx, id, input.mappings.map(toRow));
  });
  return connectionById(ctx.db, id);
}

export async function deleteShopConnection(ctx: AppContext, request: FastifyRequest, id: number, precondition?: Precondition): Promise<void> {
  requireAdministrator(request);
  const deleted = await ctx.db.transaction().execute(async (trx) => {
    if (precondition) await checkedConnection(trx, id, precondition);
    return deleteConnection(trx, id);
  });
  if (!deleted) throw notFound('ShopConnection');
}

/** The connection with its row locked, checked against the caller's If-Match (platform/http/versioned.ts). */
async function checkedConnection(trx: Executor, id: number, precondition: Precondition | undefined): Promise<void> {
  await lockRow(trx, 'shop_connections', id);
  checkPrecondition(precondition, await connectionById(trx, id));
}

/** `GET /shop-purchases`: what the caller bought in a connected shop, so the licenses page can offer it for activation. */
export async function purchasesOfCaller(ctx: AppContext, request: FastifyRequest): Promise<{ items: ShopPurchase[] }> {
  const user = requireUser(request);
  const rows = await purchasesOf(ctx.db, user.id, 100);
  return {
    items: rows.map((row) => ({
      tanId: row.tan_id,
      code: row.code,
      productName: row.product_name,
      licenseCount: row.license_count,
      activatedCount: row.activated_count,
      suspended: Boolean(row.suspended),
      validUntil: row.valid_until,
      boughtAt: row.created_at,
    })),
  };
}
