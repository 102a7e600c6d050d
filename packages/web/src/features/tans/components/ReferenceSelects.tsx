import { useMemo, useState } from 'react';
import { Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { SELECT_SEARCH_DEBOUNCE_MS, type Role } from '@lm/contract';
import { currentLocale } from '../../../lib/i18n.ts';
import { usePolicyOptions, useProductOptions, useUserOptions, type PolicyOption } from '../api/references.ts';

type Common = Omit<SelectProps, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange'> & {
  value?: string | null;
  onChange: (value: string | null) => void;
  /** Shown for the current value until the search results contain it. */
  currentLabel?: string | null;
};

/** Keeps the selected option in the list, so that a value outside the current search still shows its name. */
function withCurrent(options: { value: string; label: string }[], value: string | null | undefined, currentLabel?: string | null) {
  if (!value || !currentLabel || options.some((option) => option.value === value)) return options;
  return [{ value, label: currentLabel }, ...options];
}

/**
 * Notes the labels shown: once an option is picked, the search box holds its label, which must not
 * become a server-side search that finds nothing but that option.
 */
function remember(labels: Set<string>, options: { value: string; label: string }[]) {
  for (const option of options) labels.add(option.label);
  return options;
}

/** Products, searched on the server (page size 50, search debounced 300 ms). */
export function ProductSelect({ value, onChange, currentLabel, ...props }: Common) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, SELECT_SEARCH_DEBOUNCE_MS);
  const [labels] = useState(() => new Set<string>());
  const { data } = useProductOptions(labels.has(debounced) ? '' : debounced);
  const options = useMemo(
    () => remember(labels, withCurrent((data?.items ?? []).map((product) => ({ value: String(product.id), label: product.formattedName ?? `${product.name} ${product.version}` })), value, currentLabel)),
    [data, value, currentLabel, labels],
  );
  return (
    <Select
      {...props}
      searchable
      data={options}
      value={value ?? null}
      onChange={onChange}
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options: all }) => all}
    />
  );
}

const BUILT_IN_POLICIES = ['SINGLE_HOST_INDEFINITE', 'SINGLE_HOST_PERPETUAL', 'FLOATING_DEFAULT'];

/** A policy's name for people: the friendly label of a built-in, else its public name, else its name. */
export function usePolicyLabel() {
  const { t } = useTranslation();
  return (policy: Pick<PolicyOption, 'name' | 'publicName'>) =>
    BUILT_IN_POLICIES.includes(policy.name) ? t(`tans.builtInPolicies.${policy.name}`) : (policy.publicName?.[currentLocale()] ?? policy.name);
}

export function PolicySelect({ value, onChange, currentLabel, ...props }: Common) {
  const { data } = usePolicyOptions();
  const label = usePolicyLabel();
  const options = useMemo(() => withCurrent((data?.items ?? []).map((policy) => ({ value: String(policy.id), label: label(policy) })), value, currentLabel), [data, value, currentLabel, label]);
  return <Select {...props} searchable clearable data={options} value={value ?? null} onChange={onChange} />;
}

/**
 * Picks a user, optionally of one access role. Written here because the shared UserSelect
 * (components/UserSelect.tsx, issue 3) is not on main yet; it takes the same props.
 */
export function UserSelect({ value, onChange, currentLabel, accessRole, ...props }: Common & { accessRole?: Role }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, SELECT_SEARCH_DEBOUNCE_MS);
  const [labels] = useState(() => new Set<string>());
  const { data } = useUserOptions(labels.has(debounced) ? '' : debounced, accessRole, !props.disabled);
  const options = useMemo(
    () => remember(labels, withCurrent((data?.items ?? []).map((user) => ({ value: String(user.id), label: `${user.formattedName} <${user.email}>` })), value, currentLabel)),
    [data, value, currentLabel, labels],
  );
  return (
    <Select {...props} searchable clearable data={options} value={value ?? null} onChange={onChange} searchValue={search} onSearchChange={setSearch} filter={({ options: all }) => all} />
  );
}
