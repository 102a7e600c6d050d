import { useMemo } from 'react';
import { Select, type SelectProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { policyLabel, useAllLicensePolicies } from '../lib/license-policies.ts';

type Common = Omit<SelectProps, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange'> & {
  value?: string | null;
  onChange: (value: string | null) => void;
  /** Shown for the current value until the options contain it. */
  currentLabel?: string | null;
};

/** Keeps the selected option in the list, so that a value outside the current search still shows its name. */
function withCurrent(options: { value: string; label: string }[], value: string | null | undefined, currentLabel?: string | null) {
  if (!value || !currentLabel || options.some((option) => option.value === value)) return options;
  return [{ value, label: currentLabel }, ...options];
}

/** The license policies (few: all loaded), built-ins with their friendly labels. */
export function PolicySelect({ value, onChange, currentLabel, ...props }: Common) {
  const { t } = useTranslation();
  const { data } = useAllLicensePolicies();
  const options = useMemo(() => withCurrent((data ?? []).map((policy) => ({ value: String(policy.id), label: policyLabel(policy, t) })), value, currentLabel), [data, value, currentLabel, t]);
  return <Select {...props} searchable clearable data={options} value={value ?? null} onChange={onChange} />;
}
