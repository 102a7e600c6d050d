import { SegmentedControl, SimpleGrid, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { LOCALES, LOCALE_NAMES } from '@lm/contract';
import { FEATURE_VALUE_TYPES, featureFields, type Feature, type FeatureValueType } from '@lm/contract/feature';
import { FeaturesInput } from '../../components/FeaturesInput.tsx';
import { formValidator } from '../../lib/forms.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { showFieldErrors } from '../../lib/server-errors.ts';
import { useQueryClient } from '@tanstack/react-query';
import { featuresChanged } from '../../lib/feature-cache.ts';
import { useVersionedEdit } from '../../lib/use-versioned-edit.tsx';
import { useSaveFeature } from './api/save-feature.ts';
import { FormActions } from '../../components/FormActions.tsx';

interface FeatureFormValues {
  name: string;
  localizedDescription: Record<string, string>;
  hidden: boolean;
  expandToFeatures: string[];
  valueType: FeatureValueType;
  notes: string;
}

function initialValues(feature: Feature | null): FeatureFormValues {
  return {
    name: feature?.name ?? '',
    localizedDescription: Object.fromEntries(LOCALES.map((locale) => [locale, feature?.localizedDescription[locale] ?? ''])),
    hidden: feature?.hidden ?? false,
    expandToFeatures: feature?.expandToFeatures ?? [],
    valueType: feature?.valueType ?? 'none',
    notes: feature?.notes ?? '',
  };
}

const featureBodyOf = (feature: Feature) => initialValues(feature) as unknown as Record<string, unknown>;
const FEATURE_LABELS: Record<string, string> = {
  name: 'catalogue.feature.name',
  localizedDescription: 'catalogue.feature.description',
  hidden: 'catalogue.feature.hidden',
  expandToFeatures: 'catalogue.feature.expandTo',
  notes: 'catalogue.notes',
};

/**
 * Create or edit a feature: name, a description per locale, hidden, expand-to-features and notes.
 * An edit sends only what the person changed, with If-Match (a change made meanwhile is shown, never reverted).
 */
export function FeatureForm({ feature, onSaved, onCancel }: { feature: Feature | null; onSaved(feature: Feature): void; onCancel?(): void }) {
  const { t } = useTranslation();
  const save = useSaveFeature(feature?.id ?? null);
  const form = useForm<FeatureFormValues>({ initialValues: initialValues(feature), validate: formValidator(featureFields) });

  const queryClient = useQueryClient();
  const done = (record: Feature) => {
    showSuccess(t(feature ? 'catalogue.saved' : 'catalogue.created', { name: record.name }));
    onSaved(record);
  };
  const edit = useVersionedEdit<Feature>({
    path: feature ? `/features/${feature.id}` : null,
    initial: feature,
    bodyOf: featureBodyOf,
    labels: FEATURE_LABELS,
    onReload: (current) => {
      form.setValues(initialValues(current));
      form.resetDirty(initialValues(current));
    },
    onSaved: async (record) => {
      await featuresChanged(queryClient);
      done(record);
    },
  });

  const submit = form.onSubmit(async (values) => {
    try {
      if (feature) await edit.save(values as unknown as Record<string, unknown>);
      else done(await save.mutateAsync(values));
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
        <div>
          <Text size="sm" fw={500}>{t('entitlements.valueType')}</Text>
          <SegmentedControl data={FEATURE_VALUE_TYPES.map((type) => ({ value: type, label: t(`entitlements.valueTypes.${type}`) }))} {...form.getInputProps('valueType')} />
        </div>
        <Switch label={t('catalogue.feature.hidden')} description={t('catalogue.feature.hiddenHint')} {...form.getInputProps('hidden', { type: 'checkbox' })} />
        <Textarea label={t('catalogue.notes')} autosize minRows={2} {...form.getInputProps('notes')} />
        <FormActions editing={Boolean(feature)} saving={save.isPending || edit.saving} onCancel={onCancel} />
      </Stack>
      {edit.conflictDialog}
    </form>
  );
}
