import type { ReactNode } from 'react';
import { ActionIcon, Tooltip } from '@mantine/core';
import { Link } from 'react-router';

interface RowActionProps {
  /** What the action does; the tooltip and, with `subject`, the accessible name. */
  label: string;
  /** The row it acts on, so that a screen reader hears "Edit Product 1.0" rather than ten times "Edit". */
  subject?: string;
  icon: ReactNode;
  color?: string;
  onClick?: () => void;
  /** A link instead of a click. */
  to?: string;
  testId?: string;
  disabled?: boolean;
}

/** An icon button in a table row, with its label as tooltip. */
export function RowAction({ label, subject, icon, color, onClick, to, testId, disabled }: RowActionProps) {
  const common = { variant: 'subtle', color, disabled, 'aria-label': subject ? `${label} ${subject}` : label, 'data-testid': testId } as const;
  return (
    <Tooltip label={label}>
      {to ? (
        <ActionIcon component={Link} to={to} {...common}>
          {icon}
        </ActionIcon>
      ) : (
        <ActionIcon onClick={onClick} {...common}>
          {icon}
        </ActionIcon>
      )}
    </Tooltip>
  );
}
