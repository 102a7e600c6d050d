import type { Executor } from '../../platform/db/database.ts';
import { selectLicensesForFile, toLicenseForFile, type LicenseForFile } from '../license-files/repo.ts';

/** The licenses of a machine for a product (by name, and version when given); one indexed lookup. */
export async function findLicensesForMachine(db: Executor, machineId: string, productName: string, version: string | undefined): Promise<LicenseForFile[]> {
  let query = selectLicensesForFile(db).where('l.machine_id', '=', machineId).where('p.name', '=', productName);
  if (version !== undefined) query = query.where('p.version', '=', version);
  const rows = await query.limit(50).execute();
  return rows.map(toLicenseForFile);
}
