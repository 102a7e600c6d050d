import type { FastifyRequest } from 'fastify';
import { DEFAULT_LOCALE, isSupportedLocaleTag, resolveLocale, type Locale } from '@lm/contract';

/**
 * The first supported language of an Accept-Language header (the web app sends its current locale
 * there), by quality; `de-CH` counts as `de`. Defaults to English.
 */
export function localeOf(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return DEFAULT_LOCALE;
  const ranked = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag, ...parameters] = part.trim().split(';');
      const quality = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim(), quality: quality ? Number(quality.slice(2)) || 0 : 1, index };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  const match = ranked.find((entry) => isSupportedLocaleTag(entry.tag));
  return match ? resolveLocale(match.tag) : DEFAULT_LOCALE;
}

export function requestLocale(request: FastifyRequest): Locale {
  return localeOf(request.headers['accept-language']);
}
