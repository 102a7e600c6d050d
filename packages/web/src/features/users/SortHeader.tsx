import { Group, Table, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconChevronUp, IconSelector } from '@tabler/icons-react';

/** A column header that sorts by its field: ascending, then descending (`field` / `-field`). */
export function SortHeader({ field, sort, onSort, children }: { field: string; sort: string; onSort: (sort: string) => void; children: React.ReactNode }) {
  const active = sort === field || sort === `-${field}`;
  const descending = sort === `-${field}`;
  const Icon = !active ? IconSelector : descending ? IconChevronDown : IconChevronUp;
  return (
    <Table.Th aria-sort={active ? (descending ? 'descending' : 'ascending') : 'none'}>
      <UnstyledButton onClick={() => onSort(active && !descending ? `-${field}` : field)} fw={700} fz="sm">
        <Group gap={4} wrap="nowrap">
          {children}
          <Icon size={14} aria-hidden />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}
