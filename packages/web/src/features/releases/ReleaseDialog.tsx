import { useState, type FormEvent } from 'react';
import { SegmentedControl, Stack, TextInput, Textarea } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { SEMVER_PATTERN, type ReleaseChannel } from '@lm/contract/release';
import { Dialog } from '../../components/Dialog.tsx';
import { FormActions } from '../../components/FormActions.tsx';
import { currentLocale } from '../../lib/i18n.ts';
import { showError, showSuccess } from '../../lib/notify.ts';
import { useCreateRelease } from './api/releases.ts';

/** A new release: version (semver), channel, release time, notes in the current language (Markdown). */
export function ReleaseDialog({ productId, onClose }: { productId: number; onClose(): void }) {
  const { t } = useTranslation();
  const create = useCreateRelease(productId);
  const [version, setVersion] = useState('');
  const [channel, setChannel] = useState<ReleaseChannel>('stable');
  const [releasedAt, setReleasedAt] = useState(() => new Date().toISOString().slice(0, 16));
  const [notes, setNotes] = useState('');
  const [touched, setTouched] = useState(false);
  const versionError = touched && !SEMVER_PATTERN.test(version.trim()) ? t('validation.semver') : null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!SEMVER_PATTERN.test(version.trim())) return;
    try {
      await create.mutateAsync({ version: version.trim(), channel, releasedAt: new Date(releasedAt).toISOString(), notes: notes ? { [currentLocale()]: notes } : {} });
      showSuccess(t('releases.created', { version: version.trim() }));
      onClose();
    } catch (error) {
      showError(error, 'releases.createFailed');
    }
  };

  return (
    <Dialog onClose={onClose} title={t('releases.newRelease')} size="lg">
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label={t('releases.version')} placeholder="2.1.0" required value={version} onChange={(event) => setVersion(event.currentTarget.value)} onBlur={() => setTouched(true)} error={versionError} data-testid="release-version" data-autofocus />
          <SegmentedControl value={channel} onChange={(value) => setChannel(value as ReleaseChannel)} data={[{ value: 'stable', label: t('releases.stable') }, { value: 'beta', label: t('releases.beta') }]} />
          <TextInput type="datetime-local" label={t('releases.releasedAt')} required value={releasedAt} onChange={(event) => setReleasedAt(event.currentTarget.value)} />
          <Textarea label={t('releases.notes')} description={t('releases.notesHint')} autosize minRows={3} value={notes} onChange={(event) => setNotes(event.currentTarget.value)} />
          <FormActions saving={create.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Dialog>
  );
}
