import { Button, Group } from '@mantine/core';
import { IconHistory } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ChangeLogModel } from '@lm/contract';
import { useAbility } from '../lib/auth.ts';

/**
 * "Change log" on a record's own page (its edit dialog): the record's history, newest first; shown
 * only with view-change-log on the model. On a line of its own, at the right, unless `inline`.
 */
export function ChangeLogLink({ model, recordId, inline }: { model: ChangeLogModel; recordId: number; inline?: boolean }) {
  const { t } = useTranslation();
  const ability = useAbility();
  if (!ability.can('view-change-log', model)) return null;
  const button = (
    <Button component={Link} to={changeLogPath(model, recordId)} variant="subtle" size="xs" leftSection={<IconHistory size={16} aria-hidden />}>
      {t('changes.link')}
    </Button>
  );
  return inline ? (
    button
  ) : (
    <Group justify="flex-end" mb="xs">
      {button}
    </Group>
  );
}

export function changeLogPath(model: ChangeLogModel, recordId?: number): string {
  return `/changes/${model}?sort=-timestamp${recordId ? `&recordId=${recordId}` : ''}`;
}
