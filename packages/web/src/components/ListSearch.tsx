import { TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { LIST_FILTER_MAX_LENGTH } from '@lm/contract';
import type { ListState } from '../lib/list-state.ts';

/** The free-text search above a list (DESIGN.md section 4, `filter`); typing goes back to the first page. */
export function ListSearch({ state, mb }: { state: Pick<ListState, 'filter' | 'setFilter'>; mb?: string }) {
  const { t } = useTranslation();
  return (
    <TextInput
      mb={mb}
      maw={360}
      // Beside other controls it takes the room left, but never less than a word's width: on a phone it wraps to a line of its own.
      miw={200}
      style={{ flex: 1 }}
      leftSection={<IconSearch size={16} />}
      placeholder={t('common.search')}
      aria-label={t('common.search')}
      value={state.filter}
      maxLength={LIST_FILTER_MAX_LENGTH}
      onChange={(event) => state.setFilter(event.currentTarget.value)}
    />
  );
}
