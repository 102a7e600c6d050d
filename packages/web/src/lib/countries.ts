import { COUNTRY_CODES } from '@lm/contract';

const cache = new Map<string, { value: string; label: string }[]>();

/** Countries for a select, named and sorted in the interface language (spec: "selected by localized name"). */
export function countryOptions(locale: string): { value: string; label: string }[] {
  const cached = cache.get(locale);
  if (cached) return cached;
  const names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' });
  const options = COUNTRY_CODES.map((code) => ({ value: code, label: names.of(code) ?? code })).sort((a, b) => a.label.localeCompare(b.label, locale));
  cache.set(locale, options);
  return options;
}

export function countryName(code: string | null | undefined, locale: string): string {
  if (!code) return '';
  return new Intl.DisplayNames([locale], { type: 'region', fallback: 'code' }).of(code) ?? code;
}
