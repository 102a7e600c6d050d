import { Alert, Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useReloadReason, type ReloadReason } from './version-check.ts';

/**
 * The spec's reload alert (sections 4 and 8): a new version is out, or a part of the app could not
 * be loaded (the connection), each said as it is, with the reload that fixes both.
 */
export function NewVersionAlert({ reason = 'new-version' }: { reason?: ReloadReason }) {
  const { t } = useTranslation();
  const failed = reason === 'load-failed';
  return (
    <Alert color={failed ? 'orange' : 'blue'} title={failed ? t('chunkLoad.title') : t('shell.newVersionTitle')} mb="md" role="alert" data-testid="reload-alert" data-reason={reason}>
      <Group justify="space-between">
        <Text size="sm">{failed ? t('chunkLoad.text') : t('shell.newVersionText')}</Text>
        <Button size="xs" onClick={() => window.location.reload()}>
          {failed ? t('chunkLoad.retry') : t('shell.reload')}
        </Button>
      </Group>
    </Alert>
  );
}

/** The reload alert once the version check or a failed chunk says so; nothing before. */
export function ReloadAlert() {
  const reason = useReloadReason();
  return reason ? <NewVersionAlert reason={reason} /> : null;
}
