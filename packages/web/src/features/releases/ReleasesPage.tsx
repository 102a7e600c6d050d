import { useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { IconEye, IconEyeOff, IconPlus, IconTrash, IconUpload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { Release } from '@lm/contract/release';
import { confirmDanger } from '../../components/confirm-danger.tsx';
import { LoadError } from '../../components/LoadError.tsx';
import { PageTitle } from '../../components/PageTitle.tsx';
import { ProductSelect } from '../../components/ProductSelect.tsx';
import { RowAction } from '../../components/RowAction.tsx';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { currentLocale } from '../../lib/i18n.ts';
import { showError } from '../../lib/notify.ts';
import { ArtifactDialog } from './ArtifactDialog.tsx';
import { artifactDownloadUrl, useDeleteRelease, useReleases, useUpdateRelease } from './api/releases.ts';
import { formatSize } from './format.ts';
import { ReleaseDialog } from './ReleaseDialog.tsx';

/** Tools → Releases: the releases of a product version, their files (uploaded with Uppy through tus), yank and downloads. */
export default function ReleasesPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  // A link with a product that is no id (typed or cut off) opens the page without one, not an error.
  const asked = Number(params.get('productId'));
  const productId = Number.isSafeInteger(asked) && asked > 0 ? asked : null;
  const { data, error } = useReleases(productId);
  const update = useUpdateRelease();
  const remove = useDeleteRelease();
  const [creating, setCreating] = useState(false);
  const [addingTo, setAddingTo] = useState<Release | null>(null);

  const toggleYank = async (release: Release) => {
    try {
      await update.mutateAsync({ id: release.id, yanked: !release.yanked });
    } catch (failure) {
      showError(failure, 'releases.saveFailed');
    }
  };
  const confirmDelete = (release: Release) =>
    confirmDanger({
      title: t('releases.deleteTitle'),
      text: t('releases.deleteText', { version: release.version }),
      run: () => remove.mutateAsync(release.id),
      done: t('releases.deleted', { version: release.version }),
      failedKey: 'releases.saveFailed',
    });

  return (
    <>
      <PageTitle
        title={t('releases.title')}
        actions={
          productId !== null && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} data-testid="new-release">
              {t('releases.newRelease')}
            </Button>
          )
        }
      />
      <ProductSelect label={t('releases.product')} value={productId} onChange={(id) => setParams(id === null ? {} : { productId: String(id) })} maw={420} mb="md" data-testid="release-product" />
      {error && <LoadError error={error} />}
      {productId !== null && data && (
        <Paper withBorder p="md">
          {data.items.length === 0 && <Text c="dimmed">{t('releases.none')}</Text>}
          <Stack>
            {data.items.map((release) => (
              <Paper key={release.id} withBorder p="sm" data-testid="release">
                <Group justify="space-between" wrap="wrap">
                  <Group gap="xs">
                    <Text fw={600}>{release.version}</Text>
                    {release.channel === 'beta' && <Badge color="orange" variant="light">{t('releases.beta')}</Badge>}
                    {release.yanked && <Badge color="red" variant="light">{t('releases.yanked')}</Badge>}
                    <Text size="sm" c="dimmed">
                      {formatDateTime(release.releasedAt)} · {t('releases.downloadCount', { count: release.downloads, formatted: formatNumber(release.downloads) })}
                    </Text>
                  </Group>
                  <Group gap={4}>
                    <RowAction label={t('releases.addFileShort')} subject={release.version} icon={<IconUpload size={18} />} onClick={() => setAddingTo(release)} testId="add-file" />
                    <RowAction
                      label={release.yanked ? t('releases.unyank') : t('releases.yank')}
                      subject={release.version}
                      icon={release.yanked ? <IconEye size={18} /> : <IconEyeOff size={18} />}
                      onClick={() => void toggleYank(release)}
                      testId="yank"
                    />
                    <RowAction label={t('common.delete')} subject={release.version} icon={<IconTrash size={18} />} color="red" onClick={() => confirmDelete(release)} testId="delete-release" />
                  </Group>
                </Group>
                {release.artifacts.length > 0 && (
                  <Table mt="xs" fz="sm">
                    <Table.Tbody>
                      {release.artifacts.map((artifact) => (
                        <Table.Tr key={artifact.id}>
                          <Table.Td>
                            <Anchor href={artifactDownloadUrl(release.id, artifact.id)}>{artifact.filename}</Anchor>
                          </Table.Td>
                          <Table.Td>{t(`releases.platforms.${artifact.platform}`)} · {artifact.arch}</Table.Td>
                          <Table.Td>{formatSize(artifact.size, currentLocale())}</Table.Td>
                          <Table.Td>
                            <Code title={artifact.sha256}>{artifact.sha256.slice(0, 16)}…</Code>
                          </Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                )}
              </Paper>
            ))}
          </Stack>
        </Paper>
      )}
      {creating && productId !== null && <ReleaseDialog productId={productId} onClose={() => setCreating(false)} />}
      {addingTo && <ArtifactDialog release={addingTo} onClose={() => setAddingTo(null)} />}
    </>
  );
}
