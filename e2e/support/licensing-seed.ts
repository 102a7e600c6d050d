/**
 * Puts catalogue rows and activated licenses straight into a journey server's database (SQLite in
 * its data directory, or DATABASE_URL), for journeys whose setup screens belong to other features.
 */
import path from 'node:path';
import { openDatabase, type Database } from '../../packages/server/src/platform/db/database.ts';
import type { TestServer } from '../harness.ts';

function open(server: TestServer): Database {
  const url = server.env.DATABASE_URL;
  return openDatabase(url?.startsWith('postgres') ? { kind: 'postgres', url } : { kind: 'sqlite', file: path.join(server.dataDir, 'license-manager.db') });
}

export async function seedProduct(server: TestServer, name: string, version: string): Promise<number> {
  const database = open(server);
  try {
    const now = new Date().toISOString();
    const row = await database.db
      .insertInto('products')
      .values({ name, version, active: true, release_date: now.slice(0, 10), created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  } finally {
    await database.close();
  }
}

/**
 * An activated license of the account for a machine, under the built-in indefinite policy (free
 * updates until the given day, if any), activated now or on the given day.
 */
export async function seedActivatedLicense(
  server: TestServer,
  input: { email: string; productId: number; machineId: string; freeUpdatesUntil?: string; activatedOn?: string },
): Promise<number> {
  const database = open(server);
  try {
    const { db } = database;
    const now = input.activatedOn ? `${input.activatedOn}T09:00:00.000Z` : new Date().toISOString();
    const owner = await db.selectFrom('users').select('id').where('email', '=', input.email).executeTakeFirstOrThrow();
    const policy = await db.selectFrom('license_policies').select('id').where('name', '=', 'SINGLE_HOST_INDEFINITE').executeTakeFirstOrThrow();
    const row = await db
      .insertInto('licenses')
      .values({
        kind: 'TAN',
        owner_id: owner.id,
        product_id: input.productId,
        license_policy_id: policy.id,
        machine_id: input.machineId,
        permanent: true,
        revoked: false,
        free_updates_until: input.freeUpdatesUntil ?? null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  } finally {
    await database.close();
  }
}

/** A feature of the catalogue (a flag unless `valueType` says otherwise). */
export async function seedFeature(server: TestServer, name: string, valueType: 'none' | 'integer' | 'string' = 'none'): Promise<void> {
  const database = open(server);
  try {
    const now = new Date().toISOString();
    await database.db.insertInto('features').values({ name, localized_description: '{}', hidden: false, notes: null, value_type: valueType, created_at: now, updated_at: now }).execute();
  } finally {
    await database.close();
  }
}
