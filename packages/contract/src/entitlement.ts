/**
 * Entitlements, feature values and metadata (DESIGN.md section 6g). Pure: the server, the web app
 * and tests share the shapes, the limits and the resolution of a license's entitlements.
 */
import { z } from 'zod';
import { featureName } from './feature.ts';

export { FEATURE_VALUE_TYPES, type FeatureValueType } from './feature.ts';

export const FEATURE_VALUE_STRING_MAX = 500;
/** A feature's value: a whole number or a text (which one the feature's valueType says; the server checks). */
export const featureValue = z.union([z.number().int().min(-1_000_000_000_000).max(1_000_000_000_000), z.string().max(FEATURE_VALUE_STRING_MAX)]);
export type FeatureValue = z.output<typeof featureValue>;

/** One grant: a feature, and its value when the feature takes one. */
export const entitlementGrant = z.object({
  feature: featureName,
  value: featureValue.nullish().transform((value) => value ?? null),
});
export type EntitlementGrant = z.output<typeof entitlementGrant>;
/** Grants as answers show them (no transform: a response schema encodes). */
export const grantsView = z.array(z.object({ feature: z.string(), value: z.union([z.number(), z.string()]).nullable() }));

export const ENTITLEMENTS_MAX = 200;
/** Grants without a feature twice. */
export const entitlementList = z
  .array(entitlementGrant)
  .max(ENTITLEMENTS_MAX)
  .superRefine((grants, ctx) => {
    grants.forEach((grant, index) => {
      if (grants.findIndex((other) => other.feature === grant.feature) !== index) ctx.addIssue({ code: 'custom', path: [index, 'feature'], message: 'validation.duplicateFeature' });
    });
  });

/** A product's default values: feature name → value (the feature must be one of the product's). */
export const featureValueMap = z.record(featureName, featureValue).refine((map) => Object.keys(map).length <= ENTITLEMENTS_MAX, 'validation.tooManyEntries');

// ---------------------------------------------------------------------------------------------
// Metadata

export const METADATA_MAX_ENTRIES = 50;
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
export const METADATA_VALUE_MAX = 500;

/** String key–value pairs; keys starting with `_` stay on the server (never in a file). */
export const metadataMap = z
  .record(z.string().max(64).regex(METADATA_KEY_PATTERN, 'validation.metadataKey'), z.string().max(METADATA_VALUE_MAX))
  .refine((map) => Object.keys(map).length <= METADATA_MAX_ENTRIES, { message: 'validation.tooManyEntries', params: { count: METADATA_MAX_ENTRIES } });
export type Metadata = Record<string, string>;

/** The metadata a file carries: without the server-only `_` keys, sorted by key. */
export function publicMetadata(...layers: Metadata[]): Metadata {
  const merged: Metadata = {};
  for (const layer of layers) for (const [key, value] of Object.entries(layer)) if (!key.startsWith('_')) merged[key] = value;
  return Object.fromEntries(Object.keys(merged).sort().map((key) => [key, merged[key]]));
}

// ---------------------------------------------------------------------------------------------
// Soft limits

export const OVERAGE_PERCENTS = [0, 10, 25, 50, 100] as const;

/** Seats or machines beyond `count` that `percent` allows: rounded down, at least 1 when above 0. */
export function overageAllowance(count: number, percent: number): number {
  if (percent <= 0) return 0;
  return Math.max(1, Math.floor((count * percent) / 100));
}

// ---------------------------------------------------------------------------------------------
// Resolution

/** A file's entitlements: feature name → true (a flag, or no value set), a number or a text. */
export type Entitlements = Record<string, true | number | string>;

/**
 * A license's entitlements: the product's features (already resolved by expand-to-features) with
 * its default values, then each layer (policy, TAN, license) adding features and setting values;
 * a granted feature with expansions gives its targets instead (each keeping a value it already
 * has). A grant of a feature unknown to `expansions`' owner is kept as it is (a name is a name).
 * Keys sorted.
 */
export function resolveEntitlements(
  productFeatures: readonly string[],
  productValues: Readonly<Record<string, FeatureValue>>,
  layers: readonly (readonly EntitlementGrant[])[],
  expansions: ReadonlyMap<string, readonly string[]>,
): Entitlements {
  const result: Entitlements = {};
  for (const name of productFeatures) result[name] = productValues[name] ?? true;
  const expand = (name: string, path: Set<string>): string[] => {
    const targets = expansions.get(name);
    if (!targets?.length) return [name];
    if (path.has(name)) return [];
    const next = new Set(path).add(name);
    return targets.flatMap((target) => expand(target, next));
  };
  for (const layer of layers) {
    for (const grant of layer) {
      for (const name of expand(grant.feature, new Set())) {
        result[name] = name === grant.feature && grant.value !== null ? grant.value : (result[name] ?? true);
      }
    }
  }
  return Object.fromEntries(Object.keys(result).sort().map((key) => [key, result[key]]));
}

/**
 * An add-on's grants laid over a TAN's (DESIGN.md section 6g): each replaces the grant of its feature
 * or is added. `previous`: the grants it replaced, which taking the add-on away again restores.
 */
export function addGrants(current: readonly EntitlementGrant[], added: readonly EntitlementGrant[]): { grants: EntitlementGrant[]; previous: EntitlementGrant[] } {
  const names = new Set(added.map((grant) => grant.feature));
  const previous = current.filter((grant) => names.has(grant.feature));
  return { grants: [...current.filter((grant) => !names.has(grant.feature)), ...added], previous };
}

/**
 * Takes an add-on's grants away again: a grant still as the add-on set it goes, and what it had
 * replaced comes back; a grant changed since (by an administrator, another add-on) stays as it is.
 */
export function removeGrants(current: readonly EntitlementGrant[], added: readonly EntitlementGrant[], previous: readonly EntitlementGrant[]): EntitlementGrant[] {
  const unchanged = (grant: EntitlementGrant) => added.some((own) => own.feature === grant.feature && own.value === grant.value);
  const gone = new Set(current.filter(unchanged).map((grant) => grant.feature));
  return [...current.filter((grant) => !gone.has(grant.feature)), ...previous.filter((grant) => gone.has(grant.feature))];
}

/** Parses a stored JSON list of grants (written by the server, checked then); anything unreadable is no grants. */
export function parseGrants(text: string | null | undefined): EntitlementGrant[] {
  if (!text || text === '[]') return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as EntitlementGrant[]) : [];
  } catch {
    return [];
  }
}

/** Parses a stored JSON object of metadata; anything unreadable is none. */
export function parseMetadata(text: string | null | undefined): Metadata {
  if (!text || text === '{}') return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Metadata) : {};
  } catch {
    return {};
  }
}

/** `GET /tans/{id}/overage`: the month of the true-up (`YYYY-MM`). */
export const overageQuery = z.object({ month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'validation.date').describe('The month, YYYY-MM') });

/** The body of `PUT /licenses/{id}/entitlements`: an administrator's additions after the sale. */
export const licenseEntitlementsUpdate = z.object({
  entitlements: entitlementList.optional(),
  metadata: metadataMap.optional(),
});
export type LicenseEntitlementsUpdate = z.output<typeof licenseEntitlementsUpdate>;

/** A license's entitlements as its card shows them. */
export const licenseEntitlements = z.object({
  /** The license's own grants (after the sale). */
  entitlements: grantsView,
  metadata: z.record(z.string(), z.string()),
  /** The grants and metadata of its TAN (read-only here). */
  tanEntitlements: grantsView,
  tanMetadata: z.record(z.string(), z.string()),
  /** What its file carries now. */
  resolved: z.record(z.string(), z.union([z.literal(true), z.number(), z.string()])),
});
export type LicenseEntitlements = z.output<typeof licenseEntitlements>;
