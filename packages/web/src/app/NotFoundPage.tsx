import { Button, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PageTitle } from '../components/PageTitle.tsx';

export default function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <Stack align="flex-start">
      <PageTitle title={t('notFound.title')} />
      <Text>{t('notFound.text')}</Text>
      <Button component={Link} to="/">
        {t('notFound.home')}
      </Button>
    </Stack>
  );
}
