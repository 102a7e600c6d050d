import { Alert, List } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/**
 * How to license a machine without internet access. A short inline explanation: the shared
 * component of issue 6 (components/OfflineLicenseInstructions.tsx) is not on main yet.
 */
export function OfflineInstructions() {
  const { t } = useTranslation();
  return (
    <Alert color="blue" icon={<IconPlugConnectedX />} title={t('licenses.offlineTitle')}>
      <List type="ordered" size="sm" spacing={4}>
        <List.Item>{t('licenses.offlineStep1')}</List.Item>
        <List.Item>{t('licenses.offlineStep2')}</List.Item>
        <List.Item>{t('licenses.offlineStep3')}</List.Item>
        <List.Item>{t('licenses.offlineStep4')}</List.Item>
      </List>
    </Alert>
  );
}
