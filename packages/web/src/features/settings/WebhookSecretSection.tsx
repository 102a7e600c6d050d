import { useState } from 'react';
import { ActionIcon, Alert, Badge, Button, Code, CopyButton, Group, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { openConfirmModal } from '../../components/modals.tsx';
import { IconCheck, IconCopy, IconKey, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { COPIED_LABEL_MS } from '@lm/contract';
import { showError } from '../../lib/notify.ts';
import { useChangeSettings } from './api/change-setting.ts';

/** 32 random bytes from the browser's cryptographic source, base64url: 43 characters. */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The order webhook's secret: the server never sends it back, so a new one is shown here once,
 * right after it was generated, to be copied into the shop system.
 */
export function WebhookSecretSection({ isSet }: { isSet: boolean }) {
  const { t } = useTranslation();
  const change = useChangeSettings();
  const [shown, setShown] = useState<string | null>(null);

  const generate = async () => {
    const secret = newSecret();
    try {
      await change.mutateAsync([['webhook.secret', secret]]);
      setShown(secret);
    } catch (error) {
      showError(error, 'settings.changeFailed');
    }
  };
  const confirmThen = (titleKey: string, textKey: string, action: () => Promise<void>) =>
    openConfirmModal({
      title: t(titleKey),
      children: <Text size="sm">{t(textKey)}</Text>,
      labels: { confirm: t('common.confirm'), cancel: t('common.cancel') },
      confirmProps: { color: 'red' },
      onConfirm: () => void action(),
    });
  const remove = async () => {
    try {
      await change.mutateAsync([['webhook.secret', null]]);
      setShown(null);
    } catch (error) {
      showError(error, 'settings.changeFailed');
    }
  };

  return (
    <Paper withBorder p="lg" data-testid="settings-webhook">
      <Stack>
        <div>
          <Title order={3} size="h4">
            {t('settings.webhook.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('settings.webhook.description')}
          </Text>
        </div>
        <Group>
          <Text size="sm">{t('settings.webhook.secret')}:</Text>
          <Badge color={isSet ? 'green' : 'gray'}>{isSet ? t('settings.webhook.isSet') : t('settings.webhook.notSet')}</Badge>
        </Group>
        {shown && (
          <Alert color="yellow" title={t('settings.webhook.shownOnce')} data-testid="webhook-secret">
            <Group gap="xs" wrap="nowrap">
              <Code style={{ wordBreak: 'break-all' }}>{shown}</Code>
              <CopyButton value={shown} timeout={COPIED_LABEL_MS}>
                {({ copied, copy }) => (
                  <Tooltip label={copied ? t('settings.copied') : t('settings.copy')} withArrow>
                    <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray'} onClick={copy} aria-label={t('settings.copy')}>
                      {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
                    </ActionIcon>
                  </Tooltip>
                )}
              </CopyButton>
            </Group>
          </Alert>
        )}
        <Group justify="flex-end">
          {isSet && (
            <Button variant="subtle" color="red" leftSection={<IconTrash size={16} />} onClick={() => confirmThen('settings.webhook.removeTitle', 'settings.webhook.removeText', remove)}>
              {t('settings.webhook.remove')}
            </Button>
          )}
          <Button
            leftSection={<IconKey size={16} />}
            loading={change.isPending}
            onClick={() => (isSet ? confirmThen('settings.webhook.regenerateTitle', 'settings.webhook.regenerateText', generate) : void generate())}
          >
            {isSet ? t('settings.webhook.regenerate') : t('settings.webhook.generate')}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
