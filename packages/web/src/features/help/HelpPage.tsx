import { Alert, Anchor, Loader, Paper, Typography } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { PageTitle } from '../../components/PageTitle.tsx';
import { GUIDES, renderGuide } from './guides.ts';

/** `/help/:guide`: one of the guides of docs/ (English, as they are written), rendered. */
export default function HelpPage() {
  const { t } = useTranslation();
  const { guide = '' } = useParams();
  const load = GUIDES.get(guide);
  const rendered = useQuery({ queryKey: ['guide', guide], queryFn: async () => renderGuide(await load!()), enabled: Boolean(load), staleTime: Infinity });
  if (!load) {
    return (
      <Alert color="red" title={t('help.unknownTitle')} data-testid="help-unknown">
        {t('help.unknown')}{' '}
        <Anchor component={Link} to="/">
          {t('help.home')}
        </Anchor>
      </Alert>
    );
  }
  if (!rendered.data) return <Loader />;
  return (
    <Paper withBorder p={{ base: 'md', sm: 'xl' }} radius="md" maw={920} mx="auto">
      <PageTitle title={rendered.data.title || t('help.title')} />
      {/* The guides are the repository's own files, built into the app: no one else's HTML. */}
      <Typography>
        <div data-testid="help-guide" dangerouslySetInnerHTML={{ __html: rendered.data.html }} />
      </Typography>
    </Paper>
  );
}
