import { Button } from '@mantine/core';
import { IconHistory } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ChangeLogModel } from '@lm/contract';
import { useAbility } from '../lib/auth.ts';

/** "Change log" on a record's own page: its history, newest first; shown only with view-change-log. */
export function ChangeLogLink({ model, recordId }: { model: ChangeLogModel; recordId: number }) {
  const { t } = useTranslation();
  const ability = useAbility();
  if (!ability.can('view-change-log', model)) return null;
  return (
    <Button component={Link} to={changeLogPath(model, recordId)} variant="subtle" size="xs" leftSection={<IconHistory size={16} aria-hidden />}>
      {t('changes.link')}
    </Button>
  );
}

export function changeLogPath(model: ChangeLogModel, recordId?: number): string {
  return `/changes/${model}?sort=-timestamp${recordId ? `&recordId=${recordId}` : ''}`;
}
