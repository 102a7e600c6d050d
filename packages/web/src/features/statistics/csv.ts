import type { StatisticsResult } from '@lm/contract/statistics';

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
