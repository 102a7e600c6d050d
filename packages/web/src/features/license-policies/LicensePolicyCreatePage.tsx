import { Paper } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PageTitle } from '../../components/PageTitle.tsx';
import { LicensePolicyForm } from './LicensePolicyForm.tsx';

export default function LicensePolicyCreatePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <>
      <PageTitle title={t('pages.licensePolicyCreate')} />
      <Paper withBorder p="lg" maw={900}>
        <LicensePolicyForm policy={null} onSaved={() => navigate('/license-policies')} onCancel={() => navigate('/license-policies')} />
      </Paper>
    </>
  );
}
