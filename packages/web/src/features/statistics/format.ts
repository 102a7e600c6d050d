import { RATE_METRICS, type StatisticsResult } from '@lm/contract/statistics';
import { currentLocale } from '../../lib/i18n.ts';
import { formatNumber } from '../../lib/format.ts';

/** "2025-03" as the reader's short month and year, e.g. "Mar 2025" or "März 2025". */
export function monthLabel(month: string): string {
  const date = new Date(`${month}-01T00:00:00Z`);
  return new Intl.DateTimeFormat(currentLocale(), { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(date);
}

export function formatMetric(metric: string, value: number): string {
  if (RATE_METRICS.includes(metric)) return new Intl.NumberFormat(currentLocale(), { style: 'percent', maximumFractionDigits: 1 }).format(value);
  return formatNumber(value);
}

/** One row per month for the charts: the label and every metric (rates in percent). */
export function chartRows(result: StatisticsResult): Record<string, string | number>[] {
  return result.months.map(({ month, values }) => ({
    month: monthLabel(month),
    ...Object.fromEntries(Object.entries(values).map(([metric, value]) => [metric, RATE_METRICS.includes(metric) ? Math.round(value * 1000) / 10 : value])),
  }));
}
