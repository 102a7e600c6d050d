import { Select, SimpleGrid, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { productFields, type Product } from '@lm/contract/product';
import { FeaturesInput } from '../../components/FeaturesInput.tsx';
import { formValidator } from '../../lib/forms.ts';
import { policyLabel, useAllLicensePolicies } from '../../lib/license-policies.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { useQueryClient } from '@tanstack/react-query';
import { PRODUCTS_KEY } from '../../lib/products.ts';
import { useVersionedEdit } from '../../lib/use-versioned-edit.tsx';
import { useSaveProduct } from './api/save-product.ts';
import { DownloadLinksInput } from './DownloadLinksInput.tsx';
import { FeatureValuesInput } from './FeatureValuesInput.tsx';
import { grantsSummary } from '../../lib/grants-text.ts';
import { NoneOrNumberInput } from './NoneOrNumberInput.tsx';
import { productBody, productFormValues, type ProductFormValues } from './product-form-values.ts';
import { FormActions } from '../../components/FormActions.tsx';
import { LocalizedDateInput } from '../../components/LocalizedDates.tsx';

const validateBody = formValidator(productFields);

const productBodyOf = (product: Product) => productBody(productFormValues(product)) as unknown as Record<string, unknown>;
const PRODUCT_LABELS: Record<string, string> = {
  ...Object.fromEntries(
    ['name', 'version', 'active', 'trialDays', 'repeatTrialAfterMonths', 'ignoreTrialsBefore', 'releaseDate', 'features', 'downloadLinks'].map((field) => [field, `catalogue.product.${field}`]),
  ),
  defaultLicensePolicyId: 'catalogue.product.defaultLicensePolicy',
  featureValues: 'catalogue.product.featureValues',
  notes: 'catalogue.notes',
};

/** Default values in the conflict dialog as the product list shows them: `MAX_PROJECTS = 50, EDITION = Pro`. */
const formatProductValue = (field: string, value: unknown) =>
  field === 'featureValues' && value && typeof value === 'object' && Object.keys(value).length
    ? grantsSummary(Object.entries(value as Record<string, number | string>).map(([feature, featureValue]) => ({ feature, value: featureValue })))
    : undefined;

interface ProductFormProps {
  /** The product to edit; null creates one. */
  product: Product | null;
  /** Values to start a new product with (duplicate). */
  template?: Product | null;
  onSaved(product: Product): void;
  onCancel?(): void;
}

/**
 * Create, edit or duplicate a product (spec sections 3 and 5). An edit sends only the fields the
 * person changed, with the version the form shows (If-Match); a change made meanwhile is shown in
 * the conflict dialog, never reverted.
 */
export function ProductForm({ product, template = null, onSaved, onCancel }: ProductFormProps) {
  const { t } = useTranslation();
  const save = useSaveProduct(product?.id ?? null);
  const policies = useAllLicensePolicies();
  const form = useForm<ProductFormValues>({
    initialValues: productFormValues(product ?? template),
    validate: (values) => validateBody(productBody(values)),
  });

  const queryClient = useQueryClient();
  const saved = async (record: Product) => {
    showSuccess(t(product ? 'catalogue.saved' : 'catalogue.created', { name: record.formattedName }));
    onSaved(record);
  };
  const edit = useVersionedEdit<Product>({
    path: product ? `/products/${product.id}` : null,
    initial: product,
    bodyOf: productBodyOf,
    labels: PRODUCT_LABELS,
    formatValue: formatProductValue,
    onReload: (current) => {
      form.setValues(productFormValues(current));
      form.resetDirty(productFormValues(current));
    },
    onSaved: async (record) => {
      await queryClient.invalidateQueries({ queryKey: PRODUCTS_KEY });
      await saved(record);
    },
  });

  const submit = form.onSubmit(async (values) => {
    try {
      if (product) await edit.save(productBody(values) as unknown as Record<string, unknown>);
      else await saved(await save.mutateAsync(productBody(values)));
    } catch (error) {
      if (!showFieldErrors(form, error, ['features'])) showError(error, product ? 'catalogue.updateFailed' : 'catalogue.createFailed');
    }
  });

  const dateProps = { clearable: true };
  return (
    <form onSubmit={submit} noValidate data-testid="product-form">
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label={t('catalogue.product.name')} required {...form.getInputProps('name')} />
          <TextInput label={t('catalogue.product.version')} required {...form.getInputProps('version')} />
          <NoneOrNumberInput label={t('catalogue.product.trialDays')} max={3650} fallback={30} {...form.getInputProps('trialDays')} />
          <NoneOrNumberInput label={t('catalogue.product.repeatTrialAfterMonths')} max={120} fallback={12} {...form.getInputProps('repeatTrialAfterMonths')} />
          <LocalizedDateInput label={t('catalogue.product.ignoreTrialsBefore')} description={t('catalogue.product.ignoreTrialsBeforeHint')} {...dateProps} {...form.getInputProps('ignoreTrialsBefore')} />
          <LocalizedDateInput label={t('catalogue.product.releaseDate')} description={t('catalogue.product.releaseDateHint')} {...dateProps} {...form.getInputProps('releaseDate')} />
        </SimpleGrid>
        <FeaturesInput label={t('catalogue.product.features')} {...form.getInputProps('features')} />
        <Select
          label={t('catalogue.product.defaultLicensePolicy')}
          required
          searchable
          data={(policies.data ?? []).map((policy) => ({ value: String(policy.id), label: policyLabel(policy, t) }))}
          {...form.getInputProps('defaultLicensePolicyId')}
        />
        {/* Below the policy, not right below the features: there, opening the policy's list scrolled the
            edit dialog so that the release date's clear button lay under its header (axe target-size). */}
        <FeatureValuesInput form={form} />
        <DownloadLinksInput form={form} />
        <Switch label={t('catalogue.product.active')} {...form.getInputProps('active', { type: 'checkbox' })} />
        <Textarea label={t('catalogue.notes')} autosize minRows={2} {...form.getInputProps('notes')} />
        <FormActions editing={Boolean(product)} saving={save.isPending || edit.saving} onCancel={onCancel} />
      </Stack>
      {edit.conflictDialog}
    </form>
  );
}
