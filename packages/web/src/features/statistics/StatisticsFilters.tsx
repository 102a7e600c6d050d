import { useState } from 'react';
import { Group, Select } from '@mantine/core';
import { DatePickerInput, DatesProvider, type DatesRangeValue } from '@mantine/dates';
import { useDebouncedValue } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { SELECT_SEARCH_DEBOUNCE_MS } from '@lm/contract';
import 'dayjs/locale/de';
import 'dayjs/locale/es';
import 'dayjs/locale/fr';
import 'dayjs/locale/it';
import { currentLocale } from '../../lib/i18n.ts';
import { useProductOptions, type StatisticsFilter } from './api.ts';

interface Props {
  filter: StatisticsFilter;
  /** The range the server used (the default when none is chosen). */
  shownRange?: { from: string; to: string };
  onChange: (filter: StatisticsFilter) => void;
}

/** The date range and the product of every statistics call on the page. */
export function StatisticsFilters({ filter, shownRange, onChange }: Props) {
  const { t } = useTranslation();
  const [range, setRange] = useState<DatesRangeValue<string>>([filter.from ?? null, filter.to ?? null]);
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search, SELECT_SEARCH_DEBOUNCE_MS);
  const products = useProductOptions(debouncedSearch);
  const options = (products.data?.items ?? []).map((product) => ({ value: String(product.id), label: product.formattedName }));
  if (filter.productId && !options.some((option) => option.value === String(filter.productId))) {
    options.unshift({ value: String(filter.productId), label: t('statistics.productNumber', { id: filter.productId }) });
  }
  const shown: DatesRangeValue<string> = range[0] || range[1] ? range : [shownRange?.from ?? null, shownRange?.to ?? null];

  return (
    <DatesProvider settings={{ locale: currentLocale() }}>
      <Group align="flex-end" wrap="wrap">
        <DatePickerInput
          type="range"
          label={t('statistics.range')}
          value={shown}
          onChange={(value) => {
            setRange(value);
            const [from, to] = value;
            if (from && to) onChange({ ...filter, from, to });
            if (!from && !to) onChange({ ...filter, from: undefined, to: undefined });
          }}
          valueFormat="D MMM YYYY"
          clearable
          allowSingleDateInRange
          miw={260}
          data-testid="statistics-range"
        />
        <Select
          label={t('statistics.product')}
          placeholder={t('statistics.allProducts')}
          data={options}
          value={filter.productId ? String(filter.productId) : null}
          onChange={(value) => onChange({ ...filter, productId: value ? Number(value) : undefined })}
          searchable
          searchValue={search}
          onSearchChange={setSearch}
          clearable
          nothingFoundMessage={products.isError ? t('statistics.productsUnavailable') : t('statistics.noProducts')}
          filter={({ options: all }) => all}
          miw={240}
        />
      </Group>
    </DatesProvider>
  );
}
