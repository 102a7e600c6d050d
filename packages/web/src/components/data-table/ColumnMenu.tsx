import { ActionIcon, Menu, Tooltip } from '@mantine/core';
import { IconColumns3, IconSquare, IconSquareCheck } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

interface Props {
  /** The columns a person may hide, in the table's order. */
  columns: { key: string; label: string }[];
  hidden: readonly string[];
  onToggle(key: string): void;
}

/** "Columns": a menu of checkboxes that hides and shows a table's columns. */
export function ColumnMenu({ columns, hidden, onToggle }: Props) {
  const { t } = useTranslation();
  if (columns.length === 0) return null;
  const label = t('table.columns');
  return (
    <Menu closeOnItemClick={false} position="bottom-end" withinPortal>
      <Menu.Target>
        <Tooltip label={label}>
          <ActionIcon variant="subtle" color="gray" aria-label={label} data-testid="column-menu">
            <IconColumns3 size={18} aria-hidden />
          </ActionIcon>
        </Tooltip>
      </Menu.Target>
      <Menu.Dropdown aria-label={label}>
        <Menu.Label>{t('table.shownColumns')}</Menu.Label>
        {columns.map((column) => (
          <Menu.Item
            key={column.key}
            role="menuitemcheckbox"
            aria-checked={!hidden.includes(column.key)}
            onClick={() => onToggle(column.key)}
            leftSection={hidden.includes(column.key) ? <IconSquare size={16} aria-hidden /> : <IconSquareCheck size={16} aria-hidden />}
            data-column={column.key}
          >
            {column.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
