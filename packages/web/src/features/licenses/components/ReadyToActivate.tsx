import { Button, Code, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { formatTanCode } from '@lm/contract/tan';
import { formatDate } from '../../../lib/format.ts';
import { useShopPurchases } from '../api/purchases.ts';

/** The TANs the customer bought in a shop with activations left: each with its code and "Activate" (the dialog filled in). */
export function ReadyToActivate({ enabled, onActivate }: { enabled: boolean; onActivate(code: string): void }) {
  const { t } = useTranslation();
  const { data } = useShopPurchases(enabled);
  const ready = (data?.items ?? []).filter((purchase) => !purchase.suspended && purchase.activatedCount < purchase.licenseCount);
  if (!ready.length) return null;
  return (
    <Paper withBorder p="md" data-testid="ready-to-activate">
      <Stack gap="xs">
        <Title order={3} size="h5">
          {t('licenses.readyToActivate.title')}
        </Title>
        {ready.map((purchase) => (
          <Group key={purchase.tanId} justify="space-between" wrap="wrap" gap="xs">
            <Stack gap={0}>
              <Text size="sm" fw={500}>
                {purchase.productName}
              </Text>
              <Text size="xs" c="dimmed">
                {t('licenses.readyToActivate.left', { count: purchase.licenseCount - purchase.activatedCount, date: formatDate(purchase.boughtAt) })}
                {purchase.validUntil ? ` · ${t('licenses.readyToActivate.validUntil', { date: formatDate(purchase.validUntil) })}` : ''}
              </Text>
            </Stack>
            <Group gap="xs">
              <Code>{formatTanCode(purchase.code)}</Code>
              <Button size="compact-sm" variant="light" leftSection={<IconKey size={14} />} onClick={() => onActivate(purchase.code)}>
                {t('licenses.activate')}
              </Button>
            </Group>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
