import { CompositeChart, type CompositeChartSeries } from '@mantine/charts';
import { useTranslation } from 'react-i18next';
import type { StatisticsCategory } from '@lm/contract';
import type { StatisticsResult } from '@lm/contract/statistics';
import { chartRows } from './format.ts';

type SeriesSpec = Pick<CompositeChartSeries, 'name' | 'type' | 'color'> & { right?: boolean };

/** How each category is drawn: monthly counts as bars, running totals and rates as lines on the right axis. */
const CHART_SERIES: Record<StatisticsCategory, SeriesSpec[]> = {
  'tan-activations': [
    { name: 'activations', type: 'bar', color: 'blue.6' },
    { name: 'total', type: 'line', color: 'grape.6', right: true },
  ],
  'tan-free-updates-expired': [
    { name: 'tans', type: 'bar', color: 'orange.6' },
    { name: 'licenses', type: 'bar', color: 'yellow.5' },
  ],
  'trial-licenses': [
    { name: 'trials', type: 'bar', color: 'cyan.6' },
    { name: 'machines', type: 'bar', color: 'indigo.4' },
    { name: 'converted', type: 'bar', color: 'teal.6' },
    { name: 'conversionRate', type: 'line', color: 'red.6', right: true },
  ],
  'new-users': [{ name: 'users', type: 'bar', color: 'green.6' }],
  'active-users': [{ name: 'users', type: 'bar', color: 'lime.7' }],
  'active-machines': [{ name: 'machines', type: 'bar', color: 'violet.6' }],
  downloads: [{ name: 'downloads', type: 'bar', color: 'blue.6' }],
  overage: [
    { name: 'grants', type: 'bar', color: 'red.6' },
    { name: 'tans', type: 'bar', color: 'orange.6' },
  ],
};

export function CategoryChart({ category, result, height = 300 }: { category: StatisticsCategory; result: StatisticsResult; height?: number }) {
  const { t } = useTranslation();
  const specs = CHART_SERIES[category];
  const hasRight = specs.some((spec) => spec.right);
  const series: CompositeChartSeries[] = specs.map((spec) => ({
    name: spec.name,
    type: spec.type,
    color: spec.color,
    label: t(`statistics.metrics.${category}.${spec.name}`) + (spec.name === 'conversionRate' ? ' (%)' : ''),
    ...(spec.right ? { yAxisId: 'right' } : {}),
  }));
  return (
    <CompositeChart
      h={height}
      data={chartRows(result)}
      dataKey="month"
      series={series}
      withLegend
      withRightYAxis={hasRight}
      maxBarWidth={28}
      curveType="linear"
      yAxisProps={{ allowDecimals: false }}
      rightYAxisProps={{ allowDecimals: category !== 'tan-activations' }}
      // No fixed height: on a phone the legend takes two or three lines, and the chart makes room for them.
      legendProps={{ verticalAlign: 'bottom' }}
      aria-label={t(`statistics.categories.${category}`)}
      data-testid={`chart-${category}`}
    />
  );
}
