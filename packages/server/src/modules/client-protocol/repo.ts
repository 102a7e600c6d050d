import type { CompiledQuery } from 'kysely';
import type { Executor } from '../../platform/db/database.ts';
import { selectLicensesForFile, toLicenseForFile, type LicenseForFile } from '../license-files/repo.ts';

type Slot = 'machineId' | 'product' | 'version' | 'limit';
interface PreparedLookup {
  query: CompiledQuery;
  slots: Slot[];
}

// Sentinels that mark where each value goes in the compiled parameters.
const SENTINELS: Record<string, Slot> = { '\u0000machineId': 'machineId', '\u0000product': 'product', '\u0000version': 'version' };
const LIMIT = 50;
const prepared = new WeakMap<Executor, Map<boolean, PreparedLookup>>();

/**
 * The lookup runs on every desktop call, so Kysely builds and compiles it once per database (and
 * with or without version); each call then only binds its values.
 */
function preparedLookup(db: Executor, withVersion: boolean): PreparedLookup {
  let byShape = prepared.get(db);
  if (!byShape) {
    byShape = new Map();
    prepared.set(db, byShape);
  }
  let lookup = byShape.get(withVersion);
  if (!lookup) {
    let query = selectLicensesForFile(db).where('l.machine_id', '=', '\u0000machineId').where('p.name', '=', '\u0000product');
    if (withVersion) query = query.where('p.version', '=', '\u0000version');
    const compiled = query.limit(LIMIT).compile();
    lookup = { query: compiled, slots: compiled.parameters.map((value) => SENTINELS[String(value)] ?? 'limit') };
    byShape.set(withVersion, lookup);
  }
  return lookup;
}

/** The licenses of a machine for a product (by name, and version when given); one indexed lookup. */
export async function findLicensesForMachine(db: Executor, machineId: string, productName: string, version: string | undefined): Promise<LicenseForFile[]> {
  const { query, slots } = preparedLookup(db, version !== undefined);
  const values: Record<Slot, unknown> = { machineId, product: productName, version, limit: LIMIT };
  const { rows } = await db.executeQuery({ ...query, parameters: slots.map((slot) => values[slot]) });
  return (rows as Parameters<typeof toLicenseForFile>[0][]).map(toLicenseForFile);
}
