import { z } from 'zod';
import { featureName, featureNameList } from './feature.ts';
import { featureValueMap } from './entitlement.ts';
import { isoDate, isoDateTime, listQuery, listResponse, recordId, updateOf } from './list.ts';

export const DOWNLOAD_LINK_TYPES = ['mac', 'win', 'offline'] as const;
export type DownloadLinkType = (typeof DOWNLOAD_LINK_TYPES)[number];

/** Product text fields (spec section 5): no leading or trailing whitespace. */
const untrimmedText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((value) => value === value.trim(), 'validation.noOuterWhitespace');

export const downloadLink = z.object({
  type: z.enum(DOWNLOAD_LINK_TYPES),
  url: z.url({ protocol: /^https?$/, error: 'validation.url' }).max(2048),
});
export type DownloadLink = z.output<typeof downloadLink>;

export const productFields = z.object({
  name: untrimmedText(255),
  version: untrimmedText(100),
  active: z.boolean().default(true),
  /** Days of a trial license; null is "none" (no trials). */
  trialDays: z.number().int().min(1).max(3650).nullable().default(null),
  /** Months after which a machine may try again; null is "none" (never again). */
  repeatTrialAfterMonths: z.number().int().min(1).max(120).nullable().default(null),
  ignoreTrialsBefore: isoDate.nullable().default(null),
  releaseDate: isoDate.nullable().default(null),
  features: featureNameList.default([]),
  /** Default values of its features that take one (DESIGN.md section 6g): name → number or text. */
  featureValues: featureValueMap.default({}),
  defaultLicensePolicyId: recordId,
  downloadLinks: z.array(downloadLink).max(50).default([]),
  notes: z.string().max(10000).nullish().transform((value) => value || null),
});
export type ProductFields = z.output<typeof productFields>;
export type ProductInput = z.input<typeof productFields>;
/** The body of a PUT: a field left out keeps its value. */
export const productUpdate = updateOf(productFields);
export type ProductUpdate = z.output<typeof productUpdate>;

export const product = z.object({
  id: z.number().int(),
  name: z.string(),
  version: z.string(),
  formattedName: z.string(),
  active: z.boolean(),
  trialDays: z.number().int().nullable(),
  repeatTrialAfterMonths: z.number().int().nullable(),
  ignoreTrialsBefore: isoDate.nullable(),
  releaseDate: isoDate.nullable(),
  /** Feature names, sorted; resolved by expand-to-features when the list was asked with resolveFeatures. */
  features: z.array(z.string()),
  featureValues: z.record(z.string(), z.union([z.number(), z.string()])),
  defaultLicensePolicyId: z.number().int().nullable(),
  downloadLinks: z.array(downloadLink),
  /** For administrators only: left out of answers to anyone else. */
  notes: z.string().nullable().optional(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type Product = z.output<typeof product>;

const queryFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** A query list of names: `a,b` or `?x=a&x=b`. */
const nameListParam = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((part) => part.split(',')).map((part) => part.trim()).filter(Boolean))
  .pipe(z.array(featureName).max(100));

export const PRODUCT_SORT_FIELDS = ['id', 'name', 'version', 'active', 'releaseDate', 'createdAt'] as const;
export const productListQuery = listQuery(PRODUCT_SORT_FIELDS).extend({
  active: queryFlag.optional(),
  /** Answer each product's features with expand-to-features applied (and match featureNames on them). */
  resolveFeatures: queryFlag.optional(),
  /** Only products having every one of these features. */
  featureNames: nameListParam.optional(),
  /** Only these products (the compare view). */
  ids: z
    .string()
    .regex(/^\d+(,\d+)*$/)
    .transform((value) => value.split(',').map(Number))
    .pipe(z.array(recordId).max(100))
    .optional(),
});
export type ProductListQuery = z.output<typeof productListQuery>;
export const productList = listResponse(product);

export function formatProductName(item: { name: string; version: string }): string {
  return `${item.name} ${item.version}`;
}

/** Orders versions naturally, digit runs by their value: 1.9 < 1.10 < 2.0. */
export function compareVersions(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' }) || (a < b ? -1 : a > b ? 1 : 0);
}
