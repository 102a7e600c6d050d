import { ActionIcon, Checkbox, Popover, Stack, Tooltip } from '@mantine/core';
import { IconColumns3 } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

interface Props {
  /** The columns a person may hide, in the table's order. */
  columns: { key: string; label: string }[];
  hidden: readonly string[];
  onToggle(key: string): void;
}

/** "Columns": a button that opens a checkbox a column, to hide and show a table's columns. */
export function ColumnMenu({ columns, hidden, onToggle }: Props) {
  const { t } = useTranslation();
  if (columns.length === 0) return null;
  const label = t('table.columns');
  return (
    <Popover position="bottom-end" shadow="md" withinPortal trapFocus>
      <Popover.Target>
        <Tooltip label={label}>
          <ActionIcon variant="subtle" color="gray" aria-label={label} data-testid="column-menu">
            <IconColumns3 size={18} aria-hidden />
          </ActionIcon>
        </Tooltip>
      </Popover.Target>
      <Popover.Dropdown>
        <Checkbox.Group label={t('table.shownColumns')} value={columns.map((column) => column.key).filter((key) => !hidden.includes(key))}
          // The one column whose box changed: shown where it was hidden, or the other way round.
          onChange={(shown) => columns.filter((column) => shown.includes(column.key) === hidden.includes(column.key)).forEach((column) => onToggle(column.key))}
        >
          <Stack gap={6} mt={6}>
            {columns.map((column) => (
              <Checkbox key={column.key} value={column.key} label={column.label} size="xs" data-column={column.key} />
            ))}
          </Stack>
        </Checkbox.Group>
      </Popover.Dropdown>
    </Popover>
  );
}
