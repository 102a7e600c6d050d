import type { DownloadLink, Product, ProductInput } from '@lm/contract/product';

export interface ProductFormValues {
  name: string;
  version: string;
  active: boolean;
  trialDays: number | string | null;
  repeatTrialAfterMonths: number | string | null;
  ignoreTrialsBefore: string | null;
  releaseDate: string | null;
  features: string[];
  defaultLicensePolicyId: string | null;
  downloadLinks: DownloadLink[];
  notes: string;
}

/** A new product's form, or one filled from an existing product (edit and duplicate). */
export function productFormValues(product: Product | null): ProductFormValues {
  return {
    name: product?.name ?? '',
    version: product?.version ?? '',
    active: product?.active ?? true,
    trialDays: product ? product.trialDays : null,
    repeatTrialAfterMonths: product ? product.repeatTrialAfterMonths : null,
    ignoreTrialsBefore: product?.ignoreTrialsBefore ?? null,
    releaseDate: product?.releaseDate ?? null,
    features: product?.features ?? [],
    defaultLicensePolicyId: product?.defaultLicensePolicyId ? String(product.defaultLicensePolicyId) : null,
    downloadLinks: product?.downloadLinks.map((link) => ({ ...link })) ?? [],
    notes: product?.notes ?? '',
  };
}

/** An empty number field (not "none") stays invalid rather than silently becoming none. */
const wholeOrNone = (value: number | string | null) => (value === null ? null : value === '' ? Number.NaN : Number(value));

export function productBody(values: ProductFormValues): ProductInput {
  return {
    name: values.name,
    version: values.version,
    active: values.active,
    trialDays: wholeOrNone(values.trialDays),
    repeatTrialAfterMonths: wholeOrNone(values.repeatTrialAfterMonths),
    ignoreTrialsBefore: values.ignoreTrialsBefore || null,
    releaseDate: values.releaseDate || null,
    features: values.features,
    defaultLicensePolicyId: values.defaultLicensePolicyId ? Number(values.defaultLicensePolicyId) : (undefined as unknown as number),
    downloadLinks: values.downloadLinks,
    notes: values.notes,
  };
}
