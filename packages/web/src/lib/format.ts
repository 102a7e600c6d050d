import i18n from './i18n.ts';

/** A date or timestamp in the interface language; dates as 'YYYY-MM-DD' are shown as calendar days. */
export function formatDate(value: Date | string | null | undefined): string {
  if (!value) return '';
  const date = typeof value === 'string' ? new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00` : value) : value;
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleDateString(i18n.language);
}
