/**
 * Seeds an embedded database for the protocol benchmark: users, products with features, and
 * licenses of all three policy types, inserted directly in batches inside one transaction.
 */
import { openDatabase } from '../../packages/server/src/platform/db/database.ts';
import { migrateToLatest } from '../../packages/server/src/platform/db/migrate.ts';

const USERS = 10_000;
const PRODUCTS = 20;
const FEATURES_PER_PRODUCT = 5;
const BATCH = 1000;

export interface SeedSummary {
  licenses: number;
  machineIdOf(index: number): string;
  productOf(index: number): string;
}

export const machineIdOf = (index: number) => `BENCH-${index.toString(36).toUpperCase().padStart(6, '0')}-MACHINE`;
export const productOf = (index: number) => `Bench Product ${index % PRODUCTS}`;

export async function seedLicenses(file: string, licenses: number): Promise<SeedSummary> {
  const database = openDatabase({ kind: 'sqlite', file });
  const { db } = database;
  await migrateToLatest(db);
  const now = new Date().toISOString();
  const policies = Object.fromEntries((await db.selectFrom('license_policies').select(['id', 'type']).execute()).map((row) => [row.type, row.id]));
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < USERS; start += BATCH) {
      await trx
        .insertInto('users')
        .values(
          Array.from({ length: Math.min(BATCH, USERS - start) }, (_, offset) => ({
            email: `bench-user-${start + offset}@example.com`,
            password_hash: null,
            first_name: 'Bench',
            last_name: `User ${start + offset}`,
            company: (start + offset) % 3 === 0 ? 'Bench Corp' : null,
            access_role: 'USER' as const,
            opt_in_email: false,
            confirmed: true,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
    }
    const firstUser = (await trx.selectFrom('users').select('id').where('email', '=', 'bench-user-0@example.com').executeTakeFirstOrThrow()).id;
    const productIds: number[] = [];
    for (let p = 0; p < PRODUCTS; p++) {
      const { id } = await trx
        .insertInto('products')
        .values({ name: productOf(p), version: '1.0', active: true, release_date: '2026-01-01', default_license_policy_id: policies.INDEFINITE, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      productIds.push(id);
      for (let f = 0; f < FEATURES_PER_PRODUCT; f++) {
        const feature = await trx
          .insertInto('features')
          .values({ name: `bench:p${p}:f${f}`, localized_description: '{}', hidden: false, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx.insertInto('product_features').values({ product_id: id, feature_id: feature.id }).execute();
      }
    }
    for (let start = 0; start < licenses; start += BATCH) {
      await trx
        .insertInto('licenses')
        .values(
          Array.from({ length: Math.min(BATCH, licenses - start) }, (_, offset) => {
            const index = start + offset;
            // 10 % floating (one seat each), 45 % indefinite, 45 % perpetual.
            const type = index % 10 === 0 ? 'FLOATING' : index % 10 <= 5 ? 'INDEFINITE' : 'PERPETUAL';
            return {
              kind: 'TAN' as const,
              owner_id: firstUser + (index % USERS),
              product_id: productIds[index % PRODUCTS],
              license_policy_id: policies[type],
              tan_id: null,
              machine_id: machineIdOf(index),
              valid_until: null,
              permanent: true,
              revoked: false,
              free_updates_until: '2027-01-01',
              upgraded_to_id: null,
              created_at: now,
              updated_at: now,
            };
          }),
        )
        .execute();
    }
  });
  await database.close();
  return { licenses, machineIdOf, productOf };
}
