import { Alert, Button, SimpleGrid, Stack, Tabs } from '@mantine/core';
import '@mantine/charts/styles.css';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import { STATISTICS_CATEGORIES, type AppAbility, type StatisticsCategory } from '@lm/contract';
import { STATISTICS_METRICS, statisticsField } from '@lm/contract/statistics';
import { PageTitle } from '../../components/PageTitle.tsx';
import { ApiError } from '../../lib/api.ts';
import { useAbility } from '../../lib/auth.ts';
import { useStatistics, type StatisticsFilter } from './api.ts';
import { CategoryPanel } from './CategoryPanel.tsx';
import { StatisticsFilters } from './StatisticsFilters.tsx';

const OVERVIEW = 'overview';
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The categories whose every number the field rules let this user see. */
function visibleCategories(ability: AppAbility): StatisticsCategory[] {
  return STATISTICS_CATEGORIES.filter((category) => STATISTICS_METRICS[category].every((metric) => ability.can('view-chart', 'Statistics', statisticsField(category, metric))));
}

function useFilter(): [StatisticsFilter, (filter: StatisticsFilter) => void] {
  const [search, setSearch] = useSearchParams();
  const from = search.get('from') ?? '';
  const to = search.get('to') ?? '';
  const productId = Number(search.get('productId'));
  const filter: StatisticsFilter = {
    ...(DATE.test(from) && DATE.test(to) ? { from, to } : {}),
    ...(Number.isInteger(productId) && productId > 0 ? { productId } : {}),
  };
  const setFilter = (next: StatisticsFilter) => {
    const params = new URLSearchParams();
    if (next.from && next.to) {
      params.set('from', next.from);
      params.set('to', next.to);
    }
    if (next.productId) params.set('productId', String(next.productId));
    setSearch(params, { replace: true });
  };
  return [filter, setFilter];
}

export default function StatisticsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const ability = useAbility();
  const { category } = useParams();
  const [filter, setFilter] = useFilter();
  const [search] = useSearchParams();
  const categories = visibleCategories(ability);
  const chosen = categories.find((name) => name === category);
  // One category (a distributor's TAN activations) is the whole page: no tab bar with one tab, no overview.
  const only = categories.length === 1 ? categories[0] : undefined;
  const shownCategory = chosen ?? only;
  // The range the server applied, to show the default range in the picker.
  const shownQuery = useStatistics(chosen ?? categories[0] ?? 'tan-activations', filter);
  const shown = shownQuery.data;
  // A product of a kept link or bookmark that has been deleted since: one explanation and a way
  // back, instead of "Not found" in every panel beside a product field that shows no product.
  const productGone = filter.productId !== undefined && shownQuery.error instanceof ApiError && shownQuery.error.body?.error === 'ERR_NOT_FOUND';

  if (category && !chosen) {
    return (STATISTICS_CATEGORIES as readonly string[]).includes(category) ? <Navigate to="/statistics" replace /> : <Alert color="red">{t('statistics.unknownCategory', { category })}</Alert>;
  }
  const query = search.toString() ? `?${search.toString()}` : '';

  return (
    <Stack>
      <PageTitle title={shownCategory ? t('statistics.title', { category: t(`statistics.categories.${shownCategory}`) }) : t('pages.statistics')} />
      {!only && (
      <Tabs value={chosen ?? OVERVIEW} onChange={(value) => navigate(`/statistics${value && value !== OVERVIEW ? `/${value}` : ''}${query}`)} variant="pills">
        <Tabs.List style={{ flexWrap: 'wrap' }}>
          <Tabs.Tab value={OVERVIEW}>{t('statistics.overview')}</Tabs.Tab>
          {categories.map((name) => (
            <Tabs.Tab key={name} value={name}>
              {t(`statistics.categories.${name}`)}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      )}
      <StatisticsFilters filter={filter} shownRange={shown} onChange={setFilter} />
      {productGone ? (
        <Alert color="yellow" role="alert" title={t('statistics.productGone')}>
          <Button mt="sm" variant="light" onClick={() => setFilter({ ...filter, productId: undefined })}>
            {t('statistics.showAllProducts')}
          </Button>
        </Alert>
      ) : shownCategory ? (
        <CategoryPanel category={shownCategory} filter={filter} />
      ) : (
        <SimpleGrid cols={{ base: 1, lg: 2 }}>
          {categories.map((name) => (
            <CategoryPanel key={name} category={name} filter={filter} compact detailPath={`/statistics/${name}${query}`} />
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}
