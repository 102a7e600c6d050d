import { z } from 'zod';
import { csvLine } from '@lm/contract/csv';
import { formatTanCode, isTanTag, TAN_MAX_TAGS, type TanFieldsInput } from '@lm/contract/tan';
import type { TanItem } from './api/tans.ts';
import { formatGrants, formatMetadata, parseGrantsText, parseMetadataText } from '../../lib/grants-text.ts';

/** The TAN form as Mantine holds it: selects give strings, the count a number or ''. */
export interface TanFormValues {
  productId: number | null;
  licensePolicyId: string | null;
  licenseCount: number | string;
  distributorId: number | null;
  freeUpdatesUntil: string | null;
  /** A subscription's paid period plus grace: the licenses run until the end of this day. */
  validUntil: string | null;
  tags: string[];
  /** Grants and metadata as text lines (features/entitlements/grants-text.ts). */
  entitlements: string;
  metadata: string;
  notes: string;
}

export const emptyTanForm: TanFormValues = {
  productId: null,
  licensePolicyId: null,
  licenseCount: 1,
  distributorId: null,
  freeUpdatesUntil: null,
  validUntil: null,
  tags: [],
  entitlements: '',
  metadata: '',
  notes: '',
};

/** The form's rules; the license count may not pass the configured maximum (spec section 5). */
export function tanFormSchema(maxLicenseCount: number) {
  return z.object({
    productId: z.number().int().positive(),
    licensePolicyId: z.string().nullable(),
    licenseCount: z.number().int().min(1).max(maxLicenseCount),
    distributorId: z.number().int().positive().nullable(),
    freeUpdatesUntil: z.iso.date().nullable(),
    validUntil: z.iso.date().nullable(),
    tags: z
      .array(z.string())
      .max(TAN_MAX_TAGS)
      .refine((tags) => tags.every(isTanTag), 'validation.tanTag'),
    entitlements: z.string().max(100_000),
    metadata: z.string().max(100_000),
    notes: z.string().max(10000),
  });
}

/** The TAN form's labels by field, for the default validation message ("License policy is not an allowed value"). */
export const TAN_FIELD_LABELS: Record<keyof TanFormValues, string> = {
  productId: 'tans.product',
  licensePolicyId: 'tans.policy',
  licenseCount: 'tans.licenseCount',
  distributorId: 'tans.distributor',
  freeUpdatesUntil: 'tans.freeUpdatesUntil',
  validUntil: 'tans.validUntil',
  tags: 'tans.tags',
  entitlements: 'entitlements.tanGrants',
  metadata: 'entitlements.tanMetadata',
  notes: 'tans.notes',
};

const idOrNull = (value: string | null) => (value ? Number(value) : null);

export function toTanBody(values: TanFormValues): TanFieldsInput {
  return {
    productId: Number(values.productId),
    licensePolicyId: idOrNull(values.licensePolicyId),
    licenseCount: Number(values.licenseCount),
    distributorId: values.distributorId,
    freeUpdatesUntil: values.freeUpdatesUntil || null,
    validUntil: values.validUntil || null,
    tags: values.tags,
    entitlements: parseGrantsText(values.entitlements),
    metadata: parseMetadataText(values.metadata),
    notes: values.notes.trim() ? values.notes : null,
  };
}

export function toTanForm(tan: TanItem): TanFormValues {
  return {
    productId: tan.productId,
    licensePolicyId: tan.licensePolicyId === null ? null : String(tan.licensePolicyId),
    licenseCount: tan.licenseCount,
    distributorId: tan.distributorId,
    freeUpdatesUntil: tan.freeUpdatesUntil,
    validUntil: tan.validUntil,
    tags: tan.tags,
    entitlements: formatGrants(tan.entitlements),
    metadata: formatMetadata(tan.metadata),
    notes: tan.notes ?? '',
  };
}

/** The new codes as a CSV file: code as shown, product, license count, free updates, tags. */
export function tansCsv(tans: readonly TanItem[]): string {
  const header = csvLine(['code', 'product', 'licenseCount', 'freeUpdatesUntil', 'tags']);
  return header + tans.map((tan) => csvLine([formatTanCode(tan.code), tan.productName, tan.licenseCount, tan.freeUpdatesUntil, tan.tags.join(' ')])).join('');
}
