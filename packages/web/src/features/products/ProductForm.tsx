import { Select, SimpleGrid, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { productFields, type Product } from '@lm/contract/product';
import { FeaturesInput } from '../../components/FeaturesInput.tsx';
import { formValidator } from '../../lib/forms.ts';
import { policyLabel, useAllLicensePolicies } from '../../lib/license-policies.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { useSaveProduct } from './api/save-product.ts';
import { DownloadLinksInput } from './DownloadLinksInput.tsx';
import { NoneOrNumberInput } from './NoneOrNumberInput.tsx';
import { productBody, productFormValues, type ProductFormValues } from './product-form-values.ts';
import { FormActions } from '../../components/FormActions.tsx';
import { LocalizedDateInput } from '../../components/LocalizedDates.tsx';

const validateBody = formValidator(productFields);

interface ProductFormProps {
  /** The product to edit; null creates one. */
  product: Product | null;
  /** Values to start a new product with (duplicate). */
  template?: Product | null;
  onSaved(product: Product): void;
  onCancel?(): void;
}

/** Create, edit or duplicate a product (spec sections 3 and 5). */
export function ProductForm({ product, template = null, onSaved, onCancel }: ProductFormProps) {
  const { t } = useTranslation();
  const save = useSaveProduct(product?.id ?? null);
  const policies = useAllLicensePolicies();
  const form = useForm<ProductFormValues>({
    initialValues: productFormValues(product ?? template),
    validate: (values) => validateBody(productBody(values)),
  });

  const submit = form.onSubmit(async (values) => {
    try {
      const saved = await save.mutateAsync(productBody(values));
      showSuccess(t(product ? 'catalogue.saved' : 'catalogue.created', { name: saved.formattedName }));
      onSaved(saved);
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
        <DownloadLinksInput form={form} />
        <Switch label={t('catalogue.product.active')} {...form.getInputProps('active', { type: 'checkbox' })} />
        <Textarea label={t('catalogue.notes')} autosize minRows={2} {...form.getInputProps('notes')} />
        <FormActions editing={Boolean(product)} saving={save.isPending} onCancel={onCancel} />
      </Stack>
    </form>
  );
}
