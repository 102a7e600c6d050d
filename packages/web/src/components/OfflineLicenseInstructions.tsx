import { Alert, Code, List, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/**
 * How to use a license on a computer without internet (the offline view of My licenses): download
 * the file elsewhere, carry it over, put it where the desktop software looks (the SDK's
 * defaultLicenseDirectory: the `licenses` folder in the application's data folder).
 */
export function OfflineLicenseInstructions({ applicationName }: { applicationName?: string }) {
  const { t } = useTranslation();
  const app = applicationName?.trim() || t('licenseFiles.offline.applicationPlaceholder');
  const folders = [
    { system: 'Windows', path: `%APPDATA%\\${app}\\licenses` },
    { system: 'macOS', path: `~/Library/Application Support/${app}/licenses` },
    { system: 'Linux', path: `~/.config/${app}/licenses` },
  ];
  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="offline-license-title">
      <Stack gap="sm">
        <Title order={3} id="offline-license-title">
          {t('licenseFiles.offline.title')}
        </Title>
        <Text>{t('licenseFiles.offline.intro')}</Text>
        <List type="ordered" spacing="xs">
          <List.Item>{t('licenseFiles.offline.stepDownload')}</List.Item>
          <List.Item>{t('licenseFiles.offline.stepCopy')}</List.Item>
          <List.Item>
            {t('licenseFiles.offline.stepPlace')}
            <Table mt="xs" withTableBorder verticalSpacing={4} fz="sm">
              <Table.Tbody>
                {folders.map((folder) => (
                  <Table.Tr key={folder.system}>
                    <Table.Th w={110}>{folder.system}</Table.Th>
                    <Table.Td>
                      <Code style={{ wordBreak: 'break-all' }}>{folder.path}</Code>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <Text size="sm" c="dimmed" mt={4}>
              {t('licenseFiles.offline.stepPlaceAlternative')}
            </Text>
          </List.Item>
          <List.Item>{t('licenseFiles.offline.stepStart')}</List.Item>
        </List>
        <Alert variant="light" color="blue" icon={<IconInfoCircle size={18} />}>
          <List size="sm" spacing={4}>
            <List.Item>{t('licenseFiles.offline.noteMachine')}</List.Item>
            <List.Item>{t('licenseFiles.offline.noteExpiry')}</List.Item>
            <List.Item>{t('licenseFiles.offline.noteUntouched')}</List.Item>
          </List>
        </Alert>
      </Stack>
    </Paper>
  );
}
