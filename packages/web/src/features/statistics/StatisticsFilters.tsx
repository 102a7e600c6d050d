import { useState } from 'react';
import { Group } from '@mantine/core';
import { DatePickerInput, type DatesRangeValue } from '@mantine/dates';
import { useTranslation } from 'react-i18next';
import { ProductSelect } from '../../components/ProductSelect.tsx';
import { LocalizedDates, pickerDates } from '../../components/LocalizedDates.tsx';
import type { StatisticsFilter } from './api.ts';

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
  const shown: DatesRangeValue<string> = range[0] || range[1] ? range : [shownRange?.from ?? null, shownRange?.to ?? null];

  return (
    <LocalizedDates>
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
          valueFormatter={pickerDates}
          clearable
          clearButtonProps={{ 'aria-label': t('statistics.clearRange') }}
          allowSingleDateInRange
          miw="min(16.25rem, 100%)"
          data-testid="statistics-range"
        />
        <ProductSelect
          label={t('statistics.product')}
          placeholder={t('statistics.allProducts')}
          value={filter.productId ?? null}
          onChange={(productId) => onChange({ ...filter, productId: productId ?? undefined })}
          miw="min(15rem, 100%)"
          data-testid="statistics-product"
        />
      </Group>
    </LocalizedDates>
  );
}
