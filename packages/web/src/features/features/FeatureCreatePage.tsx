import { Paper } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PageTitle } from '../../components/PageTitle.tsx';
import { FeatureForm } from './FeatureForm.tsx';

export default function FeatureCreatePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <>
      <PageTitle title={t('pages.featureCreate')} />
      <Paper withBorder p="lg" maw={900}>
        <FeatureForm feature={null} onSaved={() => navigate('/features')} onCancel={() => navigate('/features')} />
      </Paper>
    </>
  );
}
