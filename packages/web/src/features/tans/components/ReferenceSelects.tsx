import { useMemo, useState } from 'react';
import { Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { SELECT_SEARCH_DEBOUNCE_MS, type Role } from '@lm/contract';
import { policyLabel, useAllLicensePolicies } from '../../../lib/license-policies.ts';
import { useUserOptions } from '../api/references.ts';

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

/**
 * Picks a user, optionally of one access role, searched on the server. Written here because the
 * shared UserSelect (components/UserSelect.tsx, issue 3) is not on main yet; it takes the same props.
 */
export function UserSelect({ value, onChange, currentLabel, accessRole, ...props }: Common & { accessRole?: Role }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, SELECT_SEARCH_DEBOUNCE_MS);
  // Once a user is picked the box shows its label, which must not become a search that finds only it.
  const [labels] = useState(() => new Set<string>());
  const { data } = useUserOptions(labels.has(debounced) ? '' : debounced, accessRole, !props.disabled);
  const options = useMemo(() => {
    const list = withCurrent((data?.items ?? []).map((user) => ({ value: String(user.id), label: `${user.formattedName} <${user.email}>` })), value, currentLabel);
    for (const option of list) labels.add(option.label);
    return list;
  }, [data, value, currentLabel, labels]);
  return (
    <Select {...props} searchable clearable data={options} value={value ?? null} onChange={onChange} searchValue={search} onSearchChange={setSearch} filter={({ options: all }) => all} />
  );
}
