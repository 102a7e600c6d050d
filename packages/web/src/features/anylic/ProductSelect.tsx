import { useMemo, useState } from 'react';
import { Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { SELECT_SEARCH_DEBOUNCE_MS } from '@lm/contract';
import { productLabel, useProductOptions, type ProductOption } from './api/productOptions.ts';

interface Props extends Omit<SelectProps, 'data' | 'onChange' | 'value'> {
  value?: string | null;
  onChange: (value: string | null) => void;
}

/** A product picker searching the server (50 per page, search debounced 300 ms). */
export function ProductSelect({ value, onChange, ...rest }: Props) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const [chosen, setChosen] = useState<ProductOption | null>(null);
  const [debounced] = useDebouncedValue(search, SELECT_SEARCH_DEBOUNCE_MS);
  // While the search box shows the chosen product's label, list all products rather than only it.
  const filter = chosen && search === productLabel(chosen) ? '' : debounced.trim();
  const { data, isFetching } = useProductOptions(filter);
  const options = useMemo(() => {
    const items = data?.items ?? [];
    const all = chosen && !items.some((item) => item.id === chosen.id) ? [chosen, ...items] : items;
    return all.map((product) => ({ value: String(product.id), label: productLabel(product), product }));
  }, [data, chosen]);

  return (
    <Select
      {...rest}
      searchable
      clearable
      value={value ?? null}
      data={options}
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options: shown }) => shown}
      nothingFoundMessage={isFetching ? t('common.loading') : t('anylic.noProducts')}
      onChange={(next) => {
        setChosen(options.find((option) => option.value === next)?.product ?? null);
        onChange(next);
      }}
    />
  );
}
