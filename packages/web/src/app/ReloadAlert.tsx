import { Alert, Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNewVersionAvailable } from './version-check.ts';

/** The spec's reload alert (sections 4 and 8): a new version is out, or a part of the app could not be loaded. */
export function NewVersionAlert() {
  const { t } = useTranslation();
  return (
    <Alert color="blue" title={t('shell.newVersionTitle')} mb="md" role="alert" data-testid="reload-alert">
      <Group justify="space-between">
        <Text size="sm">{t('shell.newVersionText')}</Text>
        <Button size="xs" onClick={() => window.location.reload()}>
          {t('shell.reload')}
        </Button>
      </Group>
    </Alert>
  );
}

/** The reload alert once the version check or a failed chunk says so; nothing before. */
export function ReloadAlert() {
  const stale = useNewVersionAvailable();
  return stale ? <NewVersionAlert /> : null;
}
