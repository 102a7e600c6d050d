import { Box, Button, Group, Image, Progress, Stack, Text } from '@mantine/core';
import { Dropzone, type FileRejection } from '@mantine/dropzone';
import '@mantine/dropzone/styles.css';
import { IconPhoto, IconTrash, IconUpload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { notifications } from '@mantine/notifications';
import { THEME_FILE_MAX_BYTES, THEME_FILE_TYPES, TOAST_MS } from '@lm/contract';
import { ApiError } from '../../lib/api.ts';
import { errorText, showError } from '../../lib/notify.ts';
import i18n from '../../lib/i18n.ts';
import { useChangeSettings } from './api/change-setting.ts';
import { useUploadSettingFile } from './api/upload-setting-file.ts';

/** Browsers name .ico files differently; the server judges by content anyway. */
const ACCEPTED = [...THEME_FILE_TYPES, 'image/vnd.microsoft.icon'];

function uploadFailed(reason: string) {
  notifications.show({ color: 'red', title: i18n.t('settings.uploadFailed'), message: reason, autoClose: TOAST_MS });
}

/** A theme image (logo, favicon): drop or pick a file, see the upload's progress, remove it. */
export function ThemeFileInput({ settingKey, label, url }: { settingKey: 'theme.logo' | 'theme.favicon'; label: string; url: string | null }) {
  const { t } = useTranslation();
  const uploadFile = useUploadSettingFile(settingKey);
  const change = useChangeSettings();

  const onDrop = async (files: File[]) => {
    try {
      await uploadFile.mutateAsync(files[0]);
    } catch (error) {
      const code = error instanceof ApiError ? error.code : undefined;
      if (code === 'ERR_PAYLOAD_TOO_LARGE') uploadFailed(t('settings.fileTooLarge', { max: THEME_FILE_MAX_BYTES / 1024 / 1024 }));
      else if (code === 'ERR_VALIDATION') uploadFailed(t('settings.fileWrongType'));
      else uploadFailed(errorText(error, 'settings.uploadFailed'));
    }
  };
  const onReject = (rejections: FileRejection[]) => {
    const code = rejections[0]?.errors[0]?.code;
    uploadFailed(code === 'file-too-large' ? t('settings.fileTooLarge', { max: THEME_FILE_MAX_BYTES / 1024 / 1024 }) : t('settings.fileWrongType'));
  };
  const remove = async () => {
    try {
      await change.mutateAsync([[settingKey, null]]);
    } catch (error) {
      showError(error, 'settings.changeFailed');
    }
  };

  return (
    <Stack gap="xs" data-testid={`file-${settingKey}`}>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <Group align="stretch" wrap="nowrap">
        <Box w={96} h={96} bg="dark.8" style={{ borderRadius: 8, display: 'grid', placeItems: 'center', flexShrink: 0 }}>
          {url ? <Image src={url} alt={label} maw={80} mah={80} fit="contain" /> : <IconPhoto size={32} color="var(--mantine-color-gray-6)" aria-hidden />}
        </Box>
        <Dropzone
          onDrop={onDrop}
          onReject={onReject}
          maxSize={THEME_FILE_MAX_BYTES}
          accept={ACCEPTED}
          multiple={false}
          loading={uploadFile.isPending}
          style={{ flex: 1 }}
          aria-label={t('settings.upload', { name: label })}
        >
          <Group justify="center" gap="sm" mih={64} style={{ pointerEvents: 'none' }}>
            <IconUpload size={24} aria-hidden />
            <div>
              <Text size="sm">{t('settings.dropHint')}</Text>
              <Text size="xs" c="dimmed">
                {t('settings.fileRules', { max: THEME_FILE_MAX_BYTES / 1024 / 1024 })}
              </Text>
            </div>
          </Group>
        </Dropzone>
      </Group>
      {uploadFile.isPending && <Progress value={uploadFile.progress * 100} animated aria-label={t('settings.uploading')} />}
      {url && (
        <Group>
          <Button variant="subtle" color="red" size="xs" leftSection={<IconTrash size={14} />} onClick={remove} loading={change.isPending}>
            {t('settings.removeFile')}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
