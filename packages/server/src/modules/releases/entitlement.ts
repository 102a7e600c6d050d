import semver from 'semver';
import type { NewerReason } from '@lm/contract/release';

const DAY_MS = 86_400_000;

/** What entitlement needs of a license: whether it may have anything, its free-updates end, its beta right. */
export interface LicenseForUpdates {
  productId: number;
  /** Why the license gets nothing (revoked, suspended, lapsed, upgraded), or null. */
  refusal: string | null;
  /** The last day (UTC) of free updates, or null: none. */
  freeUpdatesUntil: string | null;
  /** When the license began (ISO): without free updates, it has the releases out by then. */
  startedAt: string;
  betaUpdates: boolean;
}

export interface ReleaseForUpdates {
  productId: number;
  version: string;
  channel: 'stable' | 'beta';
  releasedAt: string;
  yanked: boolean;
}

/** The moment after which releases are no longer the license's: the end (UTC) of its last free-updates day, or its start when it has none. */
export function updatesEnd(license: Pick<LicenseForUpdates, 'freeUpdatesUntil' | 'startedAt'>): number {
  if (license.freeUpdatesUntil === null) return Date.parse(license.startedAt) + 1;
  return Math.max(Date.parse(`${license.freeUpdatesUntil.slice(0, 10)}T00:00:00.000Z`) + DAY_MS, Date.parse(license.startedAt) + 1);
}

/**
 * Why a license may not have a release, or null when it may (DESIGN.md section 6i): yanked and
 * future releases are nobody's; a beta only where the policy allows betas; a release after the
 * license's free-updates period is not its (the releases out when it began always are: what was bought). A refused license (`refusal`) has none.
 */
export function notEntitledReason(license: LicenseForUpdates, release: ReleaseForUpdates, now: Date): NewerReason | 'not-available' | null {
  if (release.productId !== license.productId || release.yanked || Date.parse(release.releasedAt) > now.getTime() || license.refusal) return 'not-available';
  if (release.channel === 'beta' && !license.betaUpdates) return 'beta-not-allowed';
  if (Date.parse(release.releasedAt) >= updatesEnd(license)) return 'free-updates-ended';
  return null;
}

/** Newest version first (semver precedence; build metadata ignored). */
export const bySemverDescending = (a: { version: string }, b: { version: string }) => semver.rcompare(a.version, b.version);

/**
 * What a license gets of its product's releases: those it may have, newest first, and the newest
 * one it may not have (newer than every one it may), with the reason, for "renew to get it".
 * `channel` 'stable' leaves betas out altogether; 'beta' takes both.
 */
export function entitledReleases<R extends ReleaseForUpdates>(license: LicenseForUpdates, releases: readonly R[], now: Date, channel: 'stable' | 'beta' = 'beta') {
  const offered = releases.filter((release) => (channel === 'beta' || release.channel === 'stable') && notEntitledReason(license, release, now) !== 'not-available');
  const sorted = [...offered].sort(bySemverDescending);
  const entitled = sorted.filter((release) => notEntitledReason(license, release, now) === null);
  const first = entitled[0];
  const newerRelease = sorted.find((release) => notEntitledReason(license, release, now) !== null && (!first || semver.gt(release.version, first.version)));
  const newer = newerRelease ? { release: newerRelease, reason: notEntitledReason(license, newerRelease, now) as NewerReason } : null;
  return { entitled, newer };
}
