import { SimpleGrid, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { LOCALES, LOCALE_NAMES } from '@lm/contract';
import { featureFields, type Feature } from '@lm/contract/feature';
import { FeaturesInput } from '../../components/FeaturesInput.tsx';
import { formValidator } from '../../lib/forms.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { useSaveFeature } from './api/save-feature.ts';
import { FormActions } from '../../components/FormActions.tsx';

interface FeatureFormValues {
  name: string;
  localizedDescription: Record<string, string>;
  hidden: boolean;
  expandToFeatures: string[];
  notes: string;
}

function initialValues(feature: Feature | null): FeatureFormValues {
  return {
    name: feature?.name ?? '',
    localizedDescription: Object.fromEntries(LOCALES.map((locale) => [locale, feature?.localizedDescription[locale] ?? ''])),
    hidden: feature?.hidden ?? false,
    expandToFeatures: feature?.expandToFeatures ?? [],
    notes: feature?.notes ?? '',
  };
}

/** Create or edit a feature: name, a description per locale, hidden, expand-to-features and notes. */
export function FeatureForm({ feature, onSaved, onCancel }: { feature: Feature | null; onSaved(feature: Feature): void; onCancel?(): void }) {
  const { t } = useTranslation();
  const save = useSaveFeature(feature?.id ?? null);
  const form = useForm<FeatureFormValues>({ initialValues: initialValues(feature), validate: formValidator(featureFields) });

  const submit = form.onSubmit(async (values) => {
    try {
      const saved = await save.mutateAsync(values);
      showSuccess(t(feature ? 'catalogue.saved' : 'catalogue.created', { name: saved.name }));
      onSaved(saved);
    } catch (error) {
      if (!showFieldErrors(form, error, ['expandToFeatures'])) showError(error, feature ? 'catalogue.updateFailed' : 'catalogue.createFailed');
    }
  });

  return (
    <form onSubmit={submit} noValidate data-testid="feature-form">
      <Stack>
        <TextInput label={t('catalogue.feature.name')} description={t('catalogue.feature.nameHint')} required {...form.getInputProps('name')} />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {LOCALES.map((locale) => (
            <TextInput
              key={locale}
              label={t('catalogue.feature.descriptionIn', { language: LOCALE_NAMES[locale] })}
              lang={locale}
              {...form.getInputProps(`localizedDescription.${locale}`)}
            />
          ))}
        </SimpleGrid>
        <FeaturesInput
          label={t('catalogue.feature.expandTo')}
          description={t('catalogue.feature.expandToHint')}
          exclude={[form.values.name]}
          {...form.getInputProps('expandToFeatures')}
        />
        <Switch label={t('catalogue.feature.hidden')} description={t('catalogue.feature.hiddenHint')} {...form.getInputProps('hidden', { type: 'checkbox' })} />
        <Textarea label={t('catalogue.notes')} autosize minRows={2} {...form.getInputProps('notes')} />
        <FormActions editing={Boolean(feature)} saving={save.isPending} onCancel={onCancel} />
      </Stack>
    </form>
  );
}
