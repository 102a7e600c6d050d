import { RATE_METRICS, shareValue, type StatisticsResult } from '@lm/contract/statistics';
import { currentLocale } from '../../lib/i18n.ts';
import { formatNumber } from '../../lib/format.ts';

/** "2025-03" as the reader's short month and year, e.g. "Mar 2025" or "März 2025". */
export function monthLabel(month: string): string {
  const date = new Date(`${month}-01T00:00:00Z`);
  return new Intl.DateTimeFormat(currentLocale(), { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(date);
}

/** One metric of a month or of the totals, as the reader writes numbers; "–" for a share of nothing. */
export function formatMetric(metric: string, values: Record<string, number>): string {
  if (!(metric in RATE_METRICS)) return formatNumber(values[metric] ?? 0);
  const share = shareValue(metric, values);
  return share === null ? '–' : new Intl.NumberFormat(currentLocale(), { style: 'percent', maximumFractionDigits: 1 }).format(share);
}

/** One row per month for the charts: the label and every metric (shares in percent; none where there is nothing to share: a gap in the line). */
export function chartRows(result: StatisticsResult): Record<string, string | number | null>[] {
  const chartValue = (metric: string, values: Record<string, number>) => {
    if (!(metric in RATE_METRICS)) return values[metric];
    const share = shareValue(metric, values);
    return share === null ? null : Math.round(share * 1000) / 10;
  };
  return result.months.map(({ month, values }) => ({ month: monthLabel(month), ...Object.fromEntries(Object.keys(values).map((metric) => [metric, chartValue(metric, values)])) }));
}
