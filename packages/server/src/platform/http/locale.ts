import type { FastifyRequest } from 'fastify';
// The request's cookies (the type comes with the cookie plugin, registered in app.ts).
import type {} from '@fastify/cookie';
import { LOCALE_COOKIE, preferredLocale, type Locale } from '@lm/contract';

/**
 * The languages of an Accept-Language header, most wanted first: by quality, then in the order
 * written; those with q=0 are refused.
 */
export function acceptedLanguages(acceptLanguage: string | undefined): string[] {
  if (!acceptLanguage) return [];
  return acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag, ...parameters] = part.trim().split(';');
      const quality = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim(), quality: quality ? Number(quality.slice(2)) || 0 : 1, index };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
    .map((entry) => entry.tag);
}

/**
 * The first language of an Accept-Language header that we speak (the web app sends its current
 * locale there, other clients the browser's list); `de-CH` counts as `de`. Defaults to English.
 */
export function localeOf(acceptLanguage: string | undefined): Locale {
  return preferredLocale(acceptedLanguages(acceptLanguage));
}

/**
 * The language of a request, the web app's order: the language cookie a person chose (or the web
 * app remembered), then the Accept-Language list, then English. Error texts and mails follow it.
 */
export function requestLocale(request: FastifyRequest): Locale {
  const cookie = request.cookies?.[LOCALE_COOKIE];
  return preferredLocale([cookie, ...acceptedLanguages(request.headers['accept-language'])]);
}
