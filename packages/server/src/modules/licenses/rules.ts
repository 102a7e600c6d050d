/**
 * The licensing rules of DESIGN.md section 6 as pure functions: the service gathers the rows, these
 * decide. Dates are `YYYY-MM-DD`, timestamps ISO strings, "now" is always passed in.
 */
import { MONTH_DAYS, type TrialExtensionUnit } from '@lm/contract';
import { addDays, daysBetween, extensionDays } from '@lm/contract/license';

const HOUR_MS = 3_600_000;

export interface TanForActivation {
  revoked: boolean;
  licenseCount: number;
  activatedCount: number;
  productActive: boolean;
  /** A floating TAN's license count is seats in use at once: any number of machines may join (DESIGN.md section 6). */
  floating: boolean;
}

/** Why a TAN cannot be activated now, or null when it can: unknown, revoked, used up, inactive product. */
export function tanActivationRefusal(tan: TanForActivation | undefined): 'unknown' | 'revoked' | 'used-up' | 'inactive-product' | null {
  if (!tan) return 'unknown';
  if (tan.revoked) return 'revoked';
  if (!tan.floating && tan.activatedCount >= tan.licenseCount) return 'used-up';
  if (!tan.productActive) return 'inactive-product';
  return null;
}

export interface MachineBinding {
  machineId: string;
  boundAt: string;
}

export interface MachineWindow {
  maxCount: number;
  intervalHours: number;
}

export type MachineWindowResult = { allowed: true } | { allowed: false; count: number; days: number; hours: number };

/**
 * The different-machines window: binding `machineId` is allowed while the different machines bound
 * within the last `intervalHours`, this one included, stay at most `maxCount`. A machine already
 * bound within the window costs nothing.
 */
export function checkMachineWindow(bindings: readonly MachineBinding[], machineId: string, window: MachineWindow, now: Date): MachineWindowResult {
  const since = now.getTime() - window.intervalHours * HOUR_MS;
  const recent = new Set(bindings.filter((binding) => Date.parse(binding.boundAt) > since).map((binding) => binding.machineId));
  if (recent.has(machineId) || recent.size + 1 <= window.maxCount) return { allowed: true };
  return { allowed: false, count: recent.size, days: Math.round((window.intervalHours / 24) * 10) / 10, hours: window.intervalHours };
}

/**
 * The window an activation is checked against: the machines of all licenses of the TAN. A TAN for N
 * licenses may always be activated on N machines, so its limit is never below its license count.
 */
export function tanMachineWindow(policy: MachineWindow, licenseCount: number): MachineWindow {
  return { maxCount: Math.max(policy.maxCount, licenseCount), intervalHours: policy.intervalHours };
}

/** Free updates of a new license: the TAN's date, else activation plus the policy's period, else none. */
export function freeUpdatesUntilAtActivation(tanFreeUpdatesUntil: string | null, periodDays: number | null, today: string): string | null {
  if (tanFreeUpdatesUntil) return tanFreeUpdatesUntil;
  if (periodDays && periodDays > 0) return addDays(today, periodDays);
  return null;
}

export interface TrialProduct {
  repeatTrialAfterMonths: number | null;
  ignoreTrialsBefore: string | null;
}

export type TrialResult = { allowed: true } | { allowed: false; nextTrialFrom: string | null };

/**
 * One trial per product and machine; another only `repeatTrialAfterMonths` (30.5 days each) after the
 * latest one, never without that setting. Trials started before `ignoreTrialsBefore` do not count.
 */
export function checkTrialAllowed(previousTrialStarts: readonly string[], product: TrialProduct, today: string): TrialResult {
  const counted = previousTrialStarts
    .map((startedAt) => startedAt.slice(0, 10))
    .filter((startDate) => !product.ignoreTrialsBefore || startDate >= product.ignoreTrialsBefore);
  if (counted.length === 0) return { allowed: true };
  if (!product.repeatTrialAfterMonths) return { allowed: false, nextTrialFrom: null };
  const latest = counted.reduce((a, b) => (a > b ? a : b));
  const nextTrialFrom = addDays(latest, product.repeatTrialAfterMonths * MONTH_DAYS);
  return today >= nextTrialFrom ? { allowed: true } : { allowed: false, nextTrialFrom };
}

/** Whether a temporary license may be valid until `validUntil`: from today up to today + maxDays. */
export function temporaryValidityRefusal(validUntil: string, today: string, maxDays: number): 'past' | 'too-far' | null {
  if (validUntil < today) return 'past';
  if (daysBetween(today, validUntil) > maxDays) return 'too-far';
  return null;
}

export type ExtensionResult = { allowed: true; validUntil: string } | { allowed: false; reason: 'ended' } | { allowed: false; reason: 'too-far'; latest: string };

/** The latest end of a trial: its start (first day) plus the trial limit, never counted from today. */
export function latestTrialEnd(startedOn: string, maxDays: number): string {
  return addDays(startedOn, maxDays);
}

/**
 * Extends a running trial from its end by days, weeks or months, up to its start + maxDays (DESIGN.md
 * section 6: 'You cannot extend the license this far into the future'). A trial that has ended (its
 * last day before today) is not extended: extending it would restart a trial the machine has used.
 */
export function extendTrial(
  trial: { startedOn: string; validUntil: string | null },
  amount: number,
  unit: TrialExtensionUnit,
  today: string,
  maxDays: number,
): ExtensionResult {
  if (trial.validUntil !== null && trial.validUntil < today) return { allowed: false, reason: 'ended' };
  const from = trial.validUntil ?? today;
  const extended = addDays(from, extensionDays(amount, unit));
  const latest = latestTrialEnd(trial.startedOn, maxDays);
  return extended <= latest ? { allowed: true, validUntil: extended } : { allowed: false, reason: 'too-far', latest };
}

/** The major version: the leading number of a version string, or null for one that has none. */
export function majorVersion(version: string): number | null {
  const match = /^\s*v?(\d+)/i.exec(version);
  return match ? Number(match[1]) : null;
}

export interface ProductVersion {
  id: number;
  name: string;
  version: string;
  active: boolean;
  releaseDate: string | null;
}

/** A license's free-updates period: from its start (null: not checked) until its free-updates end (null: none). */
export interface FreeUpdatesPeriod {
  from: string | null;
  until: string | null;
}

/**
 * The free upgrade for a license: among the active versions of the same product name with a higher
 * major version released within the license's free-updates period (a version already out when the
 * period began is what the customer chose not to buy), the next major version (its newest
 * release). Null when there is none, or the license has no free updates.
 */
export function findFreeUpgrade(current: ProductVersion, period: FreeUpdatesPeriod, candidates: readonly ProductVersion[], today: string): ProductVersion | null {
  const currentMajor = majorVersion(current.version);
  const freeUpdatesUntil = period.until;
  if (!freeUpdatesUntil || currentMajor === null) return null;
  const covered = candidates.filter((candidate) => {
    const major = majorVersion(candidate.version);
    return (
      candidate.id !== current.id &&
      candidate.name === current.name &&
      candidate.active &&
      major !== null &&
      major > currentMajor &&
      candidate.releaseDate !== null &&
      (period.from === null || candidate.releaseDate >= period.from) &&
      candidate.releaseDate <= freeUpdatesUntil &&
      candidate.releaseDate <= today
    );
  });
  if (covered.length === 0) return null;
  const nextMajor = Math.min(...covered.map((candidate) => majorVersion(candidate.version)!));
  const ofNextMajor = covered.filter((candidate) => majorVersion(candidate.version) === nextMajor);
  return ofNextMajor.reduce((best, candidate) => (compareVersions(candidate.version, best.version) > 0 ? candidate : best));
}

/** Compares dotted versions numerically part by part ('2.10' > '2.9'); text parts compare as text. */
export function compareVersions(a: string, b: string): number {
  const left = a.split(/[.\-+]/);
  const right = b.split(/[.\-+]/);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? '0';
    const y = right[i] ?? '0';
    const difference = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}
