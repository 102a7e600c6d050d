import { lazy, Suspense, useState, type FormEvent } from 'react';
import { Alert, Loader, Select, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ARTIFACT_ARCHS, ARTIFACT_PLATFORMS, artifactFileName, type ArtifactArch, type ArtifactPlatform, type Release } from '@lm/contract/release';
import { Dialog } from '../../components/Dialog.tsx';
import { FormActions } from '../../components/FormActions.tsx';
import { currentLocale } from '../../lib/i18n.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useAddArtifact } from './api/releases.ts';

// Uppy (about 100 KB) loads only when a file is added.
const ArtifactUploader = lazy(() => import('./ArtifactUploader.tsx'));

/** Adds a file to a release: uploaded (resumable, with progress) first, then saved for its platform and architecture. */
export function ArtifactDialog({ release, onClose }: { release: Release; onClose(): void }) {
  const { t } = useTranslation();
  const add = useAddArtifact();
  const [platform, setPlatform] = useState<ArtifactPlatform>('windows');
  const [arch, setArch] = useState<ArtifactArch>('x86_64');
  const [filename, setFilename] = useState('');
  const [uploadId, setUploadId] = useState<string | null>(null);
  const nameOk = artifactFileName.safeParse(filename).success;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!uploadId || !nameOk) return;
    try {
      await add.mutateAsync({ releaseId: release.id, uploadId, platform, arch, filename });
      showSuccess(t('releases.fileAdded', { name: filename }));
      onClose();
    } catch (error) {
      showError(error, 'releases.fileFailed');
    }
  };

  return (
    <Dialog onClose={onClose} title={t('releases.addFile', { version: release.version })} size="xl">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Suspense fallback={<Loader />}>
            <ArtifactUploader locale={currentLocale()} onFileAdded={(name) => setFilename(name.replace(/[^A-Za-z0-9._+-]/g, '-').replace(/^[^A-Za-z0-9]+/, ''))} onUploaded={(id) => setUploadId(id)} />
          </Suspense>
          {uploadId && <Alert color="green" data-testid="upload-done">{t('releases.uploaded')}</Alert>}
          <Select label={t('releases.platform')} data={ARTIFACT_PLATFORMS.map((value) => ({ value, label: t(`releases.platforms.${value}`) }))} value={platform} onChange={(value) => value && setPlatform(value as ArtifactPlatform)} allowDeselect={false} />
          <Select label={t('releases.arch')} data={ARTIFACT_ARCHS.map((value) => ({ value, label: value === 'any' ? t('releases.platforms.any') : value }))} value={arch} onChange={(value) => value && setArch(value as ArtifactArch)} allowDeselect={false} />
          <TextInput label={t('releases.fileName')} required value={filename} onChange={(event) => setFilename(event.currentTarget.value)} error={filename && !nameOk ? t('validation.artifactFileName') : null} data-testid="artifact-filename" />
          <FormActions saving={add.isPending} onCancel={onClose} submitLabel={uploadId ? t('releases.saveFile') : t('releases.waitForUpload')} />
        </Stack>
      </form>
    </Dialog>
  );
}
