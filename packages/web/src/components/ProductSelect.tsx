import { useState } from 'react';
import { Loader, Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SELECT_PAGE_SIZE, SELECT_SEARCH_DEBOUNCE_MS, type ListResult } from '@lm/contract';
import type { Product } from '@lm/contract/product';
import { api } from '../lib/api.ts';
import { PRODUCTS_KEY } from '../lib/products.ts';

export interface ProductSelectProps extends Omit<SelectProps<number>, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange' | 'filter'> {
  value: number | null;
  onChange(productId: number | null, product: Product | null): void;
  /** Only active products. */
  active?: boolean;
  /** Products not to offer (already chosen elsewhere). */
  exclude?: number[];
  /** Shown under the field while the chosen product is inactive (what that means in this form). */
  inactiveHint?: string;
}

/**
 * Picks a product from GET /api/products: searched on the server as the user types (debounced
 * 300 ms), 50 at a time, the next 50 loaded at the end of the list (spec section 9).
 */
export function ProductSelect({ value, onChange, active, exclude = [], inactiveHint, ...props }: ProductSelectProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  // An inactive product says so wherever it is offered: nothing can be activated for it.
  const labelOf = (product: Product) => (product.active ? product.formattedName : t('catalogue.productSelect.inactive', { name: product.formattedName }));

  const selected = useQuery({
    queryKey: [...PRODUCTS_KEY, 'one', value],
    queryFn: ({ signal }) => api<Product>(`/products/${value}`, { signal }),
    enabled: value !== null,
    staleTime: 60_000,
  });
  // The input shows the chosen product's name; only what the user types is a search.
  const typed = selected.data && search === labelOf(selected.data) ? '' : search.trim();
  const [query] = useDebouncedValue(typed, SELECT_SEARCH_DEBOUNCE_MS);

  const pages = useInfiniteQuery({
    queryKey: [...PRODUCTS_KEY, 'select', active ?? null, query],
    queryFn: ({ pageParam, signal }) =>
      api<ListResult<Product>>('/products', { query: { offset: pageParam, limit: SELECT_PAGE_SIZE, filter: query, active, sort: 'name,version' }, signal }),
    initialPageParam: 0,
    getNextPageParam: (last, all) => {
      const loaded = all.reduce((count, page) => count + page.items.length, 0);
      return loaded < last.totalCount ? loaded : undefined;
    },
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });

  const products = new Map<number, Product>();
  if (selected.data) products.set(selected.data.id, selected.data);
  for (const page of pages.data?.pages ?? []) for (const product of page.items) if (!exclude.includes(product.id)) products.set(product.id, product);
  const data = [...products.values()].map((product) => ({ value: product.id, label: labelOf(product) }));
  const chosenInactive = value !== null && selected.data?.id === value && !selected.data.active;

  return (
    <Select<number>
      searchable
      clearable
      placeholder={t('catalogue.productSelect.placeholder')}
      nothingFoundMessage={pages.isFetching ? t('common.loading') : t('catalogue.productSelect.nothingFound')}
      {...props}
      description={chosenInactive && inactiveHint ? inactiveHint : props.description}
      data={data}
      value={value}
      onChange={(id) => onChange(id, id === null ? null : (products.get(id) ?? null))}
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options }) => options}
      rightSection={pages.isFetching ? <Loader size="xs" /> : undefined}
      scrollAreaProps={{ onBottomReached: () => void (pages.hasNextPage && !pages.isFetchingNextPage && pages.fetchNextPage()) }}
    />
  );
}
