import { useMemo } from 'react';
import { Fieldset, NumberInput, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { FEATURE_VALUE_STRING_MAX } from '@lm/contract/entitlement';
import { useFeatureCache } from '../../lib/feature-cache.ts';
import { featureValueInputs, type ProductFormValues } from './product-form-values.ts';

const PREFIX = 'featureValues.';

/**
 * The default values of the product's features (DESIGN.md section 6g): for each chosen feature
 * that takes a value, a whole-number or text input labelled with its name; empty is no default.
 * Shown only when a chosen feature takes a value. A refused value is marked at its input
 * (`featureValues.NAME`); one the inputs do not show, under them.
 */
export function FeatureValuesInput({ form }: { form: UseFormReturnType<ProductFormValues> }) {
  const { t } = useTranslation();
  const { data: features } = useFeatureCache();
  const valueTypes = useMemo(() => new Map((features ?? []).map((feature) => [feature.name, feature.valueType])), [features]);
  const { features: chosen, featureValues: values } = form.values;
  const inputs = featureValueInputs(chosen, valueTypes, values);
  const shown = new Set(inputs.map((input) => input.name));
  const otherErrors = Object.entries(form.errors).flatMap(([path, error]) =>
    error && (path === 'featureValues' || (path.startsWith(PREFIX) && !shown.has(path.slice(PREFIX.length)))) ? [String(error)] : [],
  );
  if (inputs.length === 0 && otherErrors.length === 0) return null;

  const change = (name: string, value: number | string) => {
    form.setFieldValue('featureValues', { ...form.getValues().featureValues, [name]: value });
    form.clearFieldError(`${PREFIX}${name}`);
  };
  return (
    <Fieldset legend={t('catalogue.product.featureValues')} data-testid="product-feature-values">
      <Stack gap="xs">
        <Text size="xs" c="dimmed">
          {t('catalogue.product.featureValuesHint')}
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {inputs.map(({ name, kind }) => {
            const common = {
              label: name,
              placeholder: t('catalogue.product.noDefault'),
              error: form.errors[`${PREFIX}${name}`],
              styles: { label: { overflowWrap: 'anywhere' as const } },
            };
            return kind === 'integer' ? (
              <NumberInput key={name} {...common} allowDecimal={false} value={values[name] ?? ''} onChange={(value) => change(name, value)} />
            ) : (
              <TextInput key={name} {...common} maxLength={FEATURE_VALUE_STRING_MAX} value={String(values[name] ?? '')} onChange={(event) => change(name, event.currentTarget.value)} />
            );
          })}
        </SimpleGrid>
        {otherErrors.map((error) => (
          <Text key={error} size="sm" c="var(--mantine-color-error)">
            {error}
          </Text>
        ))}
      </Stack>
    </Fieldset>
  );
}
