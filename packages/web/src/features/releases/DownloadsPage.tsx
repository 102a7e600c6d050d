import { Alert, Anchor, Badge, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { LoadError } from '../../components/LoadError.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { formatDate } from '../../lib/format.ts';
import { currentLocale } from '../../lib/i18n.ts';
import { artifactDownloadUrl, useDownloads } from './api/releases.ts';
import { formatSize } from './format.ts';

/** My account → Downloads: per license, the releases it may download; for a newer one it may not, why and how to renew. */
export default function DownloadsPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const only = params.get('licenseId');
  const { data, error } = useDownloads();
  const items = (data?.items ?? []).filter((item) => !only || String(item.licenseId) === only);

  return (
    <>
      <PageTitle title={t('releases.downloadsTitle')} />
      {error && <LoadError error={error} />}
      {data && items.length === 0 && <Text c="dimmed">{t('releases.noDownloads')}</Text>}
      <Stack>
        {items.map((item) => (
          <Paper key={item.licenseId} withBorder p="md" data-testid="license-downloads">
            <Title order={2} size="h4">
              {item.product.name} {item.product.version}
            </Title>
            <Text size="sm" c="dimmed" mb="xs">
              {item.machineId ?? ''}
              {item.freeUpdatesUntil ? ` · ${t('releases.freeUpdatesUntil', { date: formatDate(item.freeUpdatesUntil) })}` : ''}
            </Text>
            {item.refusal && <Alert color="red">{t(`errors.${item.refusal}`)}</Alert>}
            {!item.refusal && item.releases.length === 0 && <Text size="sm">{t('releases.nothingYet')}</Text>}
            {item.releases.map((release) => (
              <Stack key={release.id} gap={2} mb="xs">
                <Group gap="xs">
                  <Text fw={600}>{release.version}</Text>
                  {release.channel === 'beta' && <Badge color="orange" variant="light">{t('releases.beta')}</Badge>}
                  <Text size="sm" c="dimmed">{formatDate(release.releasedAt)}</Text>
                </Group>
                {release.artifacts.map((artifact) => (
                  <Anchor key={artifact.id} href={artifactDownloadUrl(release.id, artifact.id)} size="sm" data-testid="download-link">
                    <IconDownload size={14} style={{ verticalAlign: 'middle' }} /> {artifact.filename} ({t(`releases.platforms.${artifact.platform}`)}, {artifact.arch}, {formatSize(artifact.size, currentLocale())})
                  </Anchor>
                ))}
              </Stack>
            ))}
            {item.newer && (
              <Alert color="yellow" mt="xs" data-testid="newer-release">
                {t(`releases.newer.${item.newer.reason}`, { version: item.newer.version, date: formatDate(item.newer.releasedAt) })}
              </Alert>
            )}
          </Paper>
        ))}
      </Stack>
    </>
  );
}
