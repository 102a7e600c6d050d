import { useState } from 'react';
import { FileInput, Stack, Textarea } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { OFFLINE_FILE_MAX_BYTES } from '@lm/contract/offline';

/** A request or proof file, uploaded or pasted (at most 64 KB). */
export function OfflineFileField({ label, value, onChange, error }: { label: string; value: string; onChange: (text: string) => void; error?: string | null }) {
  const { t } = useTranslation();
  const [tooLarge, setTooLarge] = useState(false);
  const read = async (file: File | null) => {
    setTooLarge(Boolean(file && file.size > OFFLINE_FILE_MAX_BYTES));
    if (!file) return;
    onChange(file.size > OFFLINE_FILE_MAX_BYTES ? '' : await file.text());
  };
  return (
    <Stack gap="xs">
      <FileInput label={label} description={t('offline.fileHint')} error={tooLarge ? t('offline.fileTooLarge') : null} placeholder={t('offline.chooseFile')} accept=".req,.txt,.proof" clearable onChange={(file) => void read(file)} />
      <Textarea
        aria-label={t('offline.pasteLabel', { label })}
        placeholder={t('offline.pastePlaceholder')}
        autosize
        minRows={3}
        maxRows={8}
        maxLength={OFFLINE_FILE_MAX_BYTES}
        value={value}
        error={error}
        onChange={(event) => onChange(event.currentTarget.value)}
        styles={{ input: { fontFamily: 'monospace' } }}
      />
    </Stack>
  );
}
