import { z } from 'zod';
import { FEATURE_CACHE_LIMIT, LOCALES, type Locale } from './constants.ts';
import { isoDateTime, listQuery, listResponse, updateOf } from './list.ts';

/** Feature names (spec section 5): letters, digits, colon, slash, underscore and dash. */
export const FEATURE_NAME_PATTERN = /^[A-Za-z0-9:/_-]+$/;
export const FEATURE_NAME_MAX = 100;

export function isValidFeatureName(name: string): boolean {
  return name.length <= FEATURE_NAME_MAX && FEATURE_NAME_PATTERN.test(name);
}

export const featureName = z
  .string()
  .trim()
  .min(1)
  .max(FEATURE_NAME_MAX)
  .regex(FEATURE_NAME_PATTERN, 'validation.featureNameChars');

/** A list of feature names without duplicates (products' features, a feature's expand-to-features). */
export const featureNameList = z
  .array(featureName)
  .max(1000)
  .refine((names) => new Set(names).size === names.length, 'validation.duplicateFeature');

/**
 * A map of locale to text, one entry per locale at most (object keys are unique). Empty texts are
 * dropped, so that a form can send every locale's field whether filled in or not.
 */
export function localizedTexts(text: z.ZodString) {
  return z
    .partialRecord(z.enum(LOCALES), z.string().trim().max(2000))
    .transform((map) => Object.fromEntries(Object.entries(map).filter(([, value]) => value)) as Partial<Record<Locale, string>>)
    .pipe(z.partialRecord(z.enum(LOCALES), text));
}

/** What a feature's value is (DESIGN.md section 6g): none (a flag), a whole number or a text. */
export const FEATURE_VALUE_TYPES = ['none', 'integer', 'string'] as const;
export type FeatureValueType = (typeof FEATURE_VALUE_TYPES)[number];

export const featureFields = z.object({
  name: featureName,
  localizedDescription: localizedTexts(z.string().max(1000)).default({}),
  hidden: z.boolean().default(false),
  /** The features this one is replaced by (spec: expand-to-features); names, as the input shows them. */
  expandToFeatures: featureNameList.default([]),
  valueType: z.enum(FEATURE_VALUE_TYPES).default('none'),
  notes: z.string().max(10000).nullish().transform((value) => value || null),
});
export type FeatureFields = z.output<typeof featureFields>;
export type FeatureInput = z.input<typeof featureFields>;
/** The body of a PUT: a field left out keeps its value. */
export const featureUpdate = updateOf(featureFields);
export type FeatureUpdate = z.output<typeof featureUpdate>;

export const feature = z.object({
  id: z.number().int(),
  name: z.string(),
  localizedDescription: z.partialRecord(z.enum(LOCALES), z.string()),
  hidden: z.boolean(),
  expandToFeatures: z.array(z.string()),
  valueType: z.enum(FEATURE_VALUE_TYPES),
  /** For administrators only: left out of answers to anyone else. */
  notes: z.string().nullable().optional(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type Feature = z.output<typeof feature>;

export const FEATURE_SORT_FIELDS = ['id', 'name', 'hidden', 'createdAt'] as const;
/** The web app's feature cache asks for up to 10000 features at once. */
export const featureListQuery = listQuery(FEATURE_SORT_FIELDS, FEATURE_CACHE_LIMIT);
export const featureList = listResponse(feature);

/** A feature's description in the locale, else English, else its name. */
export function featureLabel(item: Pick<Feature, 'name' | 'localizedDescription'>, locale: string): string {
  const texts = item.localizedDescription as Record<string, string | undefined>;
  return texts[locale] || texts.en || item.name;
}

/**
 * Resolves feature names by their expand-to-features (spec section 3): a feature with expansions is
 * replaced by them, recursively; others stay. The result is sorted and without duplicates. A cycle
 * (refused when saving, so only in corrupt data) stops where it would repeat.
 */
export function resolveFeatureNames(names: readonly string[], expansions: ReadonlyMap<string, readonly string[]>): string[] {
  const result = new Set<string>();
  const visit = (name: string, path: Set<string>) => {
    const targets = expansions.get(name);
    if (!targets || targets.length === 0) {
      result.add(name);
      return;
    }
    if (path.has(name)) return;
    path.add(name);
    for (const target of targets) visit(target, path);
    path.delete(name);
  };
  for (const name of names) visit(name, new Set());
  return [...result].sort();
}

/**
 * The cycle that giving `name` the expansions `targets` would close, as a path of names from `name`
 * back to `name`, or null when there is none.
 */
export function findExpansionCycle(name: string, targets: readonly string[], expansions: ReadonlyMap<string, readonly string[]>): string[] | null {
  const graph = new Map(expansions);
  graph.set(name, targets);
  const seen = new Set<string>();
  const walk = (current: string, path: string[]): string[] | null => {
    for (const next of graph.get(current) ?? []) {
      if (next === name) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return null;
  };
  return walk(name, [name]);
}

/**
 * The features whose resolution contains `name`: the feature itself and every feature that expands
 * to it, directly or not. None when `name` itself expands (it is then always replaced).
 */
export function featuresResolvingTo(name: string, expansions: ReadonlyMap<string, readonly string[]>): string[] {
  if (expansions.get(name)?.length) return [];
  const parents = new Map<string, string[]>();
  for (const [source, targets] of expansions) for (const target of targets) parents.set(target, [...(parents.get(target) ?? []), source]);
  const found = new Set([name]);
  const queue = [name];
  while (queue.length) {
    for (const parent of parents.get(queue.pop()!) ?? []) {
      if (found.has(parent)) continue;
      found.add(parent);
      queue.push(parent);
    }
  }
  return [...found].sort();
}
