import type { ReactNode } from 'react';
import { Group, Table, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowDown, IconArrowUp, IconArrowsSort } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ColumnMenu } from './ColumnMenu.tsx';
import { useHiddenColumns } from './column-visibility.ts';
import { TruncatedText } from './TruncatedText.tsx';
import classes from './DataTable.module.css';

export interface DataColumn<T> {
  /** `actions`: the row's buttons, last, never hidden, never cut. */
  key: string;
  label: string;
  /**
   * `text` (the default): one line, cut with "…", the whole text on hover and focus (names, e-mails);
   * `fit`: as wide as its content, never cut (dates, numbers, codes, short badges);
   * `wrap`: shares the room like `text` but breaks into lines (tags, lists of names).
   */
  kind?: 'text' | 'fit' | 'wrap';
  /** The API sort field; the header then sorts on click. */
  sortField?: string;
  render(item: T): ReactNode;
  /** The whole text a cut cell's tooltip shows, where the cell's own text is not it. */
  text?(item: T): string;
  /**
   * A `text` or `wrap` column's share of the room, relative to the others' (default 1): what people
   * scan a list for (tags, names) gets more than a detail, so that it is cut last.
   */
  grow?: number;
  /** Hidden until shown in the column menu (a detail most people do not need on every row). */
  hiddenByDefault?: boolean;
}

export interface DataTableProps<T> {
  /** Names the table for the browser's memory of its hidden columns: one per list, stable. */
  id: string;
  columns: DataColumn<T>[];
  items: T[] | undefined;
  rowKey(item: T): string | number;
  /** Attributes of a row (and of its card on a phone), such as its `data-testid`. */
  rowProps?(item: T): Record<string, string | undefined>;
  /** `field` or `-field`; with `onSort`, the headers of columns with a `sortField` sort. */
  sort?: string;
  onSort?(sort: string): void;
  /** While a new page loads: the old one dimmed. */
  busy?: boolean;
  testId?: string;
  /** The table's name for screen readers where the page's heading does not say it. */
  label?: string;
}

/** Below this width (Mantine's `sm`) a list shows as cards: a table's columns would not fit a phone. */
export const CARDS_BELOW = '48em';

function SortButton({ label, field, sort, onSort }: { label: string; field: string; sort: string | undefined; onSort(sort: string): void }) {
  const { t } = useTranslation();
  const direction = sort === field ? 'ascending' : sort === `-${field}` ? 'descending' : 'none';
  const Icon = direction === 'ascending' ? IconArrowUp : direction === 'descending' ? IconArrowDown : IconArrowsSort;
  return (
    <UnstyledButton onClick={() => onSort(sort === field ? `-${field}` : field)} aria-label={t('catalogue.list.sortBy', { field: label })}>
      <Group gap={4} wrap="nowrap" align="flex-end">
        <Text fw={600} size="sm" lh={1.25}>
          {label}
        </Text>
        <Icon size={14} aria-hidden opacity={direction === 'none' ? 0.4 : 1} style={{ flexShrink: 0 }} />
      </Group>
    </UnstyledButton>
  );
}

const kindOf = <T,>(column: DataColumn<T>) => (column.key === 'actions' ? 'actions' : (column.kind ?? 'text'));

/**
 * A list's table (issue 38): dense rows, never wider than its container (long texts cut with their
 * whole text on hover and focus), columns a person may hide (kept per browser), and on a phone a card
 * a row with every value under its label instead of a table cut at its sides. The first column names
 * the row and is always shown, as is `actions`.
 */
export function DataTable<T>({ id, columns, items, rowKey, rowProps, sort, onSort, busy, testId, label }: DataTableProps<T>) {
  const { t } = useTranslation();
  const phone = useMediaQuery(`(max-width: ${CARDS_BELOW})`, false, { getInitialValueInEffect: false });
  const hideable = columns.filter((column, index) => index > 0 && column.key !== 'actions');
  const { hidden, toggle } = useHiddenColumns(
    id,
    hideable.map((column) => column.key),
    hideable.filter((column) => column.hiddenByDefault).map((column) => column.key),
  );
  const shown = columns.filter((column) => !hidden.includes(column.key));
  const actions = shown.find((column) => column.key === 'actions');
  // The columns that share the room share it by their worth (`grow`); without a width, Chromium gave each the width of its header.
  const sharing = shown.filter((column) => kindOf(column) === 'text' || kindOf(column) === 'wrap');
  const weights = sharing.reduce((total, column) => total + (column.grow ?? 1), 0);
  const share = (column: DataColumn<T>) => `${Math.round((100 * (column.grow ?? 1)) / Math.max(1, weights))}%`;
  const menu = <ColumnMenu columns={hideable.map(({ key, label }) => ({ key, label }))} hidden={hidden} onToggle={toggle} />;

  if (phone) {
    const [title, ...fields] = shown.filter((column) => column !== actions);
    return (
      <div data-testid={testId} data-layout="cards" style={{ opacity: busy ? 0.7 : 1 }}>
        {hideable.length > 0 && <Group justify="flex-end">{menu}</Group>}
        <ul className={classes.cards} aria-label={label}>
          {items?.map((item) => (
            <li key={rowKey(item)} className={classes.card} {...rowProps?.(item)}>
              <div className={classes.cardTitle}>{title?.render(item)}</div>
              {fields.length > 0 && (
                <dl className={classes.fields}>
                  {fields.map((column) => {
                    const value = column.render(item);
                    // A field with nothing to show is left out of the card rather than shown as a bare label.
                    if (value === null || value === undefined || value === false || value === '') return null;
                    return (
                      <div key={column.key} style={{ display: 'contents' }}>
                        <dt className={classes.label} data-card-label>
                          {column.label}
                        </dt>
                        <dd className={classes.value}>{value}</dd>
                      </div>
                    );
                  })}
                </dl>
              )}
              {actions && <div className={classes.cardActions}>{actions.render(item)}</div>}
            </li>
          ))}
        </ul>
      </div>
    );
  }

  return (
    <Table striped highlightOnHover verticalSpacing={4} horizontalSpacing="xs" fz="sm" className={classes.table} data-testid={testId} aria-label={label} style={{ opacity: busy ? 0.7 : 1 }}>
      <Table.Thead>
        <Table.Tr>
          {shown.map((column) => {
            const kind = kindOf(column);
            const sorted = column.sortField && (sort === column.sortField ? 'ascending' : sort === `-${column.sortField}` ? 'descending' : 'none');
            if (kind === 'actions')
              return (
                <Table.Th key={column.key} className={classes.actions}>
                  <Group gap={4} wrap="nowrap" justify="flex-end">
                    <VisuallyHidden>{column.label}</VisuallyHidden>
                    {menu}
                  </Group>
                </Table.Th>
              );
            return (
              <Table.Th key={column.key} aria-sort={sorted || undefined} style={{ width: kind === 'fit' ? '1%' : share(column) }}>
                {column.sortField && onSort ? <SortButton label={column.label} field={column.sortField} sort={sort} onSort={onSort} /> : column.label}
              </Table.Th>
            );
          })}
          {!actions && hideable.length > 0 && (
            <Table.Th className={classes.actions}>
              <VisuallyHidden>{t('table.columns')}</VisuallyHidden>
              {menu}
            </Table.Th>
          )}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {items?.map((item) => (
          <Table.Tr key={rowKey(item)} {...rowProps?.(item)}>
            {shown.map((column) => {
              const kind = kindOf(column);
              return (
                <Table.Td key={column.key} className={classes[kind]}>
                  {kind === 'text' ? <TruncatedText text={column.text?.(item)}>{column.render(item)}</TruncatedText> : column.render(item)}
                </Table.Td>
              );
            })}
            {!actions && hideable.length > 0 && <Table.Td className={classes.actions} />}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
