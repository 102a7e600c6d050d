import type { FeatureValueType } from '@lm/contract/feature';
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
  /** Default values by feature name, as the inputs hold them ('' is no default). */
  featureValues: Record<string, number | string>;
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
    featureValues: { ...product?.featureValues },
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
    featureValues: featureValuesBody(values.features, values.featureValues),
    defaultLicensePolicyId: values.defaultLicensePolicyId ? Number(values.defaultLicensePolicyId) : (undefined as unknown as number),
    downloadLinks: values.downloadLinks,
    notes: values.notes,
  };
}

/**
 * The default values a product sends (DESIGN.md section 6g): those of its chosen features only (a
 * feature taken out takes its value with it), an empty input none; by name, so that an unchanged
 * form sends the same map as the product it was loaded from.
 */
export function featureValuesBody(features: readonly string[], values: Readonly<Record<string, number | string>>): Record<string, number | string> {
  const entries = Object.entries(values).filter(([name, value]) => features.includes(name) && String(value).trim() !== '');
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export interface FeatureValueInput {
  name: string;
  /** A whole-number input, or a text input. */
  kind: 'integer' | 'string';
}

/**
 * The inputs of the default values: one per chosen feature that takes a value, in the order
 * chosen, and one for a feature that holds a value although it takes none (made a flag since; the
 * server refuses the value until it is cleared). Features not (yet) known get none.
 */
export function featureValueInputs(features: readonly string[], valueTypes: ReadonlyMap<string, FeatureValueType>, values: Readonly<Record<string, number | string>>): FeatureValueInput[] {
  return features.flatMap((name): FeatureValueInput[] => {
    const type = valueTypes.get(name);
    if (type === 'integer' || type === 'string') return [{ name, kind: type }];
    return type !== undefined && values[name] !== undefined && String(values[name]).trim() !== '' ? [{ name, kind: 'string' }] : [];
  });
}
