import { Checkbox, Group, NumberInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';

interface NoneOrNumberInputProps {
  label: string;
  description?: string;
  /** null is "none". */
  value?: number | string | null;
  onChange?(value: number | string | null): void;
  error?: string;
  max?: number;
  /** What a field starts with when "none" is unticked. */
  fallback: number;
}

/** A whole number with a "none" option (spec section 9: trial days and repeat-trial months). */
export function NoneOrNumberInput({ label, description, value = null, onChange = () => {}, error, max, fallback }: NoneOrNumberInputProps) {
  const { t } = useTranslation();
  const none = value === null;
  return (
    <Group align="flex-start" gap="sm" wrap="nowrap">
      <NumberInput
        label={label}
        description={description}
        style={{ flex: 1 }}
        min={1}
        max={max}
        allowDecimal={false}
        disabled={none}
        placeholder={none ? t('common.none') : undefined}
        value={none ? '' : value}
        onChange={(next) => onChange(next)}
        error={error}
      />
      <Checkbox label={t('common.none')} checked={none} onChange={(event) => onChange(event.currentTarget.checked ? null : fallback)} mt={description ? 52 : 32} />
    </Group>
  );
}
