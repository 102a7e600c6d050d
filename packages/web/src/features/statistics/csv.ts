import { csvLine } from '@lm/contract/csv';
import type { StatisticsResult } from '@lm/contract/statistics';

/** The numbers as CSV: a header of labels, one line per month (YYYY-MM), then the totals. */
export function statisticsCsv(result: StatisticsResult, metrics: readonly string[], labels: { month: string; total: string; metric: (metric: string) => string }): string {
  const lines: (string | number)[][] = [[labels.month, ...metrics.map(labels.metric)]];
  for (const { month, values } of result.months) lines.push([month, ...metrics.map((metric) => values[metric] ?? 0)]);
  lines.push([labels.total, ...metrics.map((metric) => result.totals[metric] ?? 0)]);
  return lines.map((line) => csvLine(line)).join('');
}
