import type { Executor } from '../../platform/db/database.ts';

/** The trials of a product on a machine (license_trials): when each began, and a new one. */

/** When the machine's trials of the product started; `exceptLicenseId`: not counting that trial license's own. */
export async function trialStarts(db: Executor, productId: number, machineId: string, exceptLicenseId?: number): Promise<string[]> {
  const rows = await db
    .selectFrom('license_trials')
    .select('started_at')
    .where('product_id', '=', productId)
    .where('machine_id', '=', machineId)
    .$if(exceptLicenseId !== undefined, (query) => query.where((eb) => eb.or([eb('license_id', '!=', exceptLicenseId!), eb('license_id', 'is', null)])))
    .execute();
  return rows.map((row) => row.started_at);
}

export async function recordTrial(trx: Executor, trial: { productId: number; machineId: string; ownerId: number; licenseId: number }, now: string): Promise<void> {
  await trx
    .insertInto('license_trials')
    .values({ product_id: trial.productId, machine_id: trial.machineId, owner_id: trial.ownerId, license_id: trial.licenseId, started_at: now })
    .execute();
}
