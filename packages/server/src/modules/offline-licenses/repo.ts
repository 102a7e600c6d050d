import type { Executor } from '../../platform/db/database.ts';

/** The SQL of offline activation and deactivation (DESIGN.md section 6h). */

export interface InstallBinding {
  machineId: string | null;
  tanId: number | null;
  productId: number;
  installKeyId: string | null;
  installPublicKey: string | null;
  offlineFileIssuedAt: string | null;
}

export async function findInstallBinding(db: Executor, licenseId: number): Promise<InstallBinding | undefined> {
  const row = await db
    .selectFrom('licenses')
    .select(['machine_id', 'tan_id', 'product_id', 'install_key_id', 'install_public_key', 'offline_file_issued_at'])
    .where('id', '=', licenseId)
    .executeTakeFirst();
  return (
    row && {
      machineId: row.machine_id,
      tanId: row.tan_id,
      productId: row.product_id,
      installKeyId: row.install_key_id,
      installPublicKey: row.install_public_key,
      offlineFileIssuedAt: row.offline_file_issued_at,
    }
  );
}

/** Binds a license to an install key, by a file issued at `issuedAt`. */
export async function bindInstallKey(trx: Executor, licenseId: number, key: { id: string; publicKey: string }, issuedAt: string): Promise<void> {
  await trx
    .updateTable('licenses')
    .set({ install_key_id: key.id, install_public_key: key.publicKey, offline_file_issued_at: issuedAt, updated_at: issuedAt })
    .where('id', '=', licenseId)
    .execute();
}

/** Whether a proof's nonce was accepted before. */
export async function proofNonceUsed(db: Executor, nonce: string): Promise<boolean> {
  return (await db.selectFrom('offline_proof_nonces').select('nonce').where('nonce', '=', nonce).executeTakeFirst()) !== undefined;
}

/**
 * Frees a license's machine after a verified deactivation, in the caller's transaction: the nonce
 * kept (its primary key refuses a second acceptance even from a racing request), the machine and
 * the install key unbound, and the machine's binding taken out of the different-machines window.
 */
export async function freeDeactivatedMachine(trx: Executor, licenseId: number, machineId: string, nonce: string, now: string): Promise<void> {
  await trx.insertInto('offline_proof_nonces').values({ nonce, license_id: licenseId, used_at: now }).execute();
  await trx
    .updateTable('licenses')
    .set({ machine_id: null, install_key_id: null, install_public_key: null, offline_file_issued_at: null, updated_at: now })
    .where('id', '=', licenseId)
    .execute();
  await trx.deleteFrom('license_machines').where('license_id', '=', licenseId).where('machine_id', '=', machineId).execute();
}
