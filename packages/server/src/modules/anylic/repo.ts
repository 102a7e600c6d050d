import type { Executor } from '../../platform/db/database.ts';

export interface NewAnyLicLink {
  tokenHash: string;
  productId: number;
  format: 'lic' | 'json';
  validUntil: string;
  expiresAt: string;
  createdBy: number | null;
}

export async function insertAnyLicLink(db: Executor, link: NewAnyLicLink): Promise<number> {
  const row = await db
    .insertInto('anylic_links')
    .values({
      token_hash: link.tokenHash,
      product_id: link.productId,
      format: link.format,
      valid_until: link.validUntil,
      expires_at: link.expiresAt,
      created_by: link.createdBy,
      created_at: new Date().toISOString(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A link with its product and its creator (the owner named in the file). */
export async function findAnyLicLink(db: Executor, tokenHash: string) {
  return db
    .selectFrom('anylic_links as a')
    .innerJoin('products as p', 'p.id', 'a.product_id')
    .leftJoin('users as u', 'u.id', 'a.created_by')
    .select([
      'a.id',
      'a.format',
      'a.valid_until',
      'a.expires_at',
      'p.id as product_id',
      'p.name as product_name',
      'p.version as product_version',
      'u.first_name',
      'u.last_name',
      'u.company',
    ])
    .where('a.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Links past their validity serve nothing; they are removed now and then. */
export async function deleteExpiredAnyLicLinks(db: Executor, now: string): Promise<void> {
  await db.deleteFrom('anylic_links').where('expires_at', '<=', now).execute();
}
