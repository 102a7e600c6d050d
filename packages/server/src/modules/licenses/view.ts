import { formatUserName } from '@lm/contract';
import { freeUpdatesState, todayOf, trialReachDays, type License } from '@lm/contract/license';
import { formatProductName } from '@lm/contract/product';
import type { Executor } from '../../platform/db/database.ts';
import { settingValue } from '../settings/service.ts';
import { findLicenseView, liveSeatsOf, productVersions, type LicenseRow, type LicenseViewRow } from './repo.ts';
import { findFreeUpgrade, latestTrialEnd, type ProductVersion } from './rules.ts';

/** A license as the permission rules see it. */
export function licenseSubject(row: { owner_id: number; kind: string; distributor_id?: number | null }) {
  return { ownerId: row.owner_id, kind: row.kind, distributorId: row.distributor_id ?? null };
}

/** A license's values for the change log. */
export function licenseValues(row: LicenseRow): Record<string, unknown> {
  return {
    kind: row.kind,
    ownerId: row.owner_id,
    productId: row.product_id,
    licensePolicyId: row.license_policy_id,
    tanId: row.tan_id,
    machineId: row.machine_id,
    validUntil: row.valid_until,
    permanent: Boolean(row.permanent),
    revoked: Boolean(row.revoked),
    suspended: Boolean(row.suspended),
    tanValidUntil: row.tan_valid_until,
    freeUpdatesUntil: row.free_updates_until,
    upgradedToId: row.upgraded_to_id,
  };
}

function publicName(json: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(json);
    if (!parsed || typeof parsed !== 'object') return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

function currentVersion(row: LicenseViewRow): ProductVersion {
  return { id: row.product_id, name: row.product_name, version: row.product_version, active: Boolean(row.product_active), releaseDate: row.product_release_date };
}

/**
 * When a license's free-updates period began: where the TAN names its own free-updates date, when
 * the TAN was issued (what was sold then with updates until that date, however late it is
 * activated); else at the activation, where the policy's period starts. A license that came from
 * an upgrade continues the period of the one it replaced, which began before the version it was
 * upgraded to was released: null, no start to check.
 */
function freeUpdatesFrom(row: LicenseViewRow): string | null {
  if (row.upgraded_from_id !== null) return null;
  return (row.tan_free_updates_until !== null && row.tan_created_at !== null ? row.tan_created_at : row.created_at).slice(0, 10);
}

/** The free upgrade a license may take now: only a live license with free updates. */
export function freeUpgradeOf(row: LicenseViewRow, versions: readonly ProductVersion[], today: string): ProductVersion | null {
  if (row.revoked || row.upgraded_to_id !== null) return null;
  return findFreeUpgrade(currentVersion(row), { from: freeUpdatesFrom(row), until: row.free_updates_until }, versions, today);
}

/** What a page of licenses shares beyond its rows: today, the trial limit setting, the floating seats. */
interface PageContext {
  today: string;
  temporaryMaxDays: number;
  seats: Map<number, License['seat']>;
}

export function toLicense(row: LicenseViewRow, upgrade: ProductVersion | null, page: PageContext): License {
  const { today } = page;
  return {
    id: row.id,
    kind: row.kind,
    ownerId: row.owner_id,
    ownerName: formatUserName({ firstName: row.owner_first_name, lastName: row.owner_last_name, company: row.owner_company }),
    ownerEmail: row.owner_email,
    productId: row.product_id,
    productName: formatProductName({ name: row.product_name, version: row.product_version }),
    productVersion: row.product_version,
    licensePolicyId: row.license_policy_id,
    licensePolicyName: row.policy_name,
    licensePolicyType: row.policy_type,
    licensePolicyPublicName: publicName(row.policy_public_name),
    tanId: row.tan_id,
    tanCode: row.tan_code,
    distributorId: row.distributor_id,
    organization: row.organization_id !== null && row.organization_name !== null ? { id: row.organization_id, name: row.organization_name } : null,
    machineId: row.machine_id,
    validUntil: row.valid_until,
    permanent: Boolean(row.permanent),
    revoked: Boolean(row.revoked),
    suspended: Boolean(row.suspended),
    tanValidUntil: row.tan_valid_until,
    tanSubscription: Boolean(row.tan_subscription),
    latestTrialEnd: row.kind === 'TEMPORARY' ? latestTrialEnd(row.created_at.slice(0, 10), trialReachDays(row.product_trial_days, page.temporaryMaxDays)) : null,
    seat: page.seats.get(row.id) ?? null,
    freeUpdatesUntil: row.free_updates_until,
    freeUpdatesState: freeUpdatesState(row.free_updates_until, today),
    upgradedToId: row.upgraded_to_id,
    freeUpgrade: upgrade ? { productId: upgrade.id, productName: formatProductName(upgrade) } : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Licenses for the API, with their free-upgrade offers read in one query for the whole page. */
export async function toLicenses(db: Executor, rows: readonly LicenseViewRow[], now = new Date()): Promise<License[]> {
  const today = todayOf(now);
  const versions = await productVersions(db, [...new Set(rows.map((row) => row.product_name))]);
  const floating = rows.filter((row) => row.policy_type === 'FLOATING').map((row) => row.id);
  const seats = new Map(
    (await liveSeatsOf(db, floating, now.toISOString())).map((seat) => [
      seat.license_id,
      { leasedUntil: seat.leased_until, borrowedUntil: seat.borrowed_until !== null && seat.borrowed_until > now.toISOString() ? seat.borrowed_until : null },
    ]),
  );
  const page: PageContext = { today, temporaryMaxDays: await settingValue<number>(db, 'license.temporaryMaxDays'), seats };
  return rows.map((row) => toLicense(row, freeUpgradeOf(row, versions, today), page));
}

export async function licenseById(db: Executor, id: number): Promise<License> {
  const row = (await findLicenseView(db, id))!;
  return (await toLicenses(db, [row]))[0];
}
