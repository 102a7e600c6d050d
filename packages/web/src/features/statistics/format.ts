import { RATE_METRICS, type StatisticsResult } from '@lm/contract/statistics';
import { currentLocale } from '../../lib/i18n.ts';

/** "2025-03" as the reader's short month and year, e.g. "Mar 2025" or "März 2025". */
export function monthLabel(month: string): string {
  const date = new Date(`${month}-01T00:00:00Z`);
  return new Intl.DateTimeFormat(currentLocale(), { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(date);
}

export function formatNumber(metric: string, value: number): string {
  const locale = currentLocale();
  if (RATE_METRICS.includes(metric)) return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(value);
  return new Intl.NumberFormat(locale).format(value);
}

/** One row per month for the charts: the label and every metric (rates in percent). */
export function chartRows(result: StatisticsResult): Record<string, string | number>[] {
  return result.months.map(({ month, values }) => ({
    month: monthLabel(month),
    ...Object.fromEntries(Object.entries(values).map(([metric, value]) => [metric, RATE_METRICS.includes(metric) ? Math.round(value * 1000) / 10 : value])),
  }));
}

function csvCell(value: string | number): string {
  const text = String(value);
  return /[",\n\r;]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The numbers as CSV: a header of labels, one line per month (YYYY-MM), then the totals. */
export function statisticsCsv(result: StatisticsResult, metrics: readonly string[], labels: { month: string; total: string; metric: (metric: string) => string }): string {
  const lines = [[labels.month, ...metrics.map(labels.metric)]];
  for (const { month, values } of result.months) lines.push([month, ...metrics.map((metric) => String(values[metric] ?? 0))]);
  lines.push([labels.total, ...metrics.map((metric) => String(result.totals[metric] ?? 0))]);
  return `${lines.map((line) => line.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
