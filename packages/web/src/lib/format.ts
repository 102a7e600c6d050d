/**
 * Every number, date and date-time the interface shows, through Intl in the interface language (set
 * by i18n when the language changes). Calendar dates (`YYYY-MM-DD`) are days, not instants: they
 * are shown as written, whatever the reader's time zone.
 */
import { DEFAULT_LOCALE, type Locale } from '@lm/contract';

let locale: Locale = DEFAULT_LOCALE;

export function setFormatLocale(next: Locale): void {
  locale = next;
}

const CALENDAR_DAY = /^\d{4}-\d{2}-\d{2}$/;
const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function formatter<T extends Intl.NumberFormat | Intl.DateTimeFormat>(kind: 'number' | 'date' | 'dateTime' | 'preciseDateTime' | 'short', language: Locale, make: () => T): T {
  const key = `${kind}:${language}`;
  let found = cache.get(key) as T | undefined;
  if (!found) cache.set(key, (found = make()));
  return found;
}

const numbers = (language: Locale) => formatter('number', language, () => new Intl.NumberFormat(language));
const dates = (language: Locale) => formatter('date', language, () => new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }));
const dateTimes = (language: Locale) => formatter('dateTime', language, () => new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }));
const preciseDateTimes = (language: Locale) => formatter('preciseDateTime', language, () => new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'medium' }));
const shortDates = (language: Locale) => formatter('short', language, () => new Intl.DateTimeFormat(language, { dateStyle: 'short', timeZone: 'UTC' }));

/** A number grouped as the language writes it: 5,056 · 5.056 · 5 056. */
export function formatNumber(value: number, language: Locale = locale): string {
  return numbers(language).format(value);
}

function asDay(value: Date | string): Date {
  if (value instanceof Date) return value;
  return new Date(CALENDAR_DAY.test(value) ? `${value}T00:00:00Z` : value);
}

/**
 * A calendar day (`2025-12-01`) or the day of an instant, as the date pickers show it too:
 * Dec 1, 2025 · 01.12.2025 · 1 déc. 2025. An instant's day is the reader's local day.
 */
export function formatDate(value: Date | string | null | undefined, language: Locale = locale): string {
  if (!value) return '';
  if (value instanceof Date || !CALENDAR_DAY.test(value)) {
    const instant = asDay(value);
    if (Number.isNaN(instant.getTime())) return String(value);
    const local = `${instant.getFullYear()}-${String(instant.getMonth() + 1).padStart(2, '0')}-${String(instant.getDate()).padStart(2, '0')}`;
    return dates(language).format(asDay(local));
  }
  return dates(language).format(asDay(value));
}

/** An instant with its local time: Dec 1, 2025, 2:05 PM · 01.12.2025, 14:05. */
export function formatDateTime(value: Date | string | null | undefined, language: Locale = locale): string {
  if (!value) return '';
  const date = asDay(value);
  return Number.isNaN(date.getTime()) ? String(value) : dateTimes(language).format(date);
}

/** A date and time to the second, written like formatDateTime: for logs, where seconds tell attempts apart. */
export function formatDateTimeToSecond(value: Date | string, language: Locale = locale): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : preciseDateTimes(language).format(date);
}

/** What a message placeholder shows for a value: numbers grouped, dates as date-times. */
export function formatValue(value: unknown, language: Locale = locale): unknown {
  if (typeof value === 'number') return formatNumber(value, language);
  if (value instanceof Date) return formatDateTime(value, language);
  return value;
}

/**
 * A typed date back to `YYYY-MM-DD`: the ISO form, the language's short numeric form with any
 * separator (01.12.2025, 12/1/2025, 1/12/25), or the form the date fields show, with the month's
 * name or its abbreviation (Dec 1, 2025 · 1 déc. 2025 · 1. Dezember 2025; English names in any
 * language). Null when it is no real day.
 */
export function parseDate(text: string, language: Locale = locale): string | null {
  const trimmed = text.trim();
  if (CALENDAR_DAY.test(trimmed)) return isRealDay(trimmed) ? trimmed : null;
  if (/\p{L}/u.test(trimmed)) return parseNamedMonthDate(trimmed, language);
  const parts = trimmed.split(/[^\d]+/).filter(Boolean).map(Number);
  if (parts.length !== 3) return null;
  const order = shortDates(language)
    .formatToParts(new Date(Date.UTC(2025, 11, 31)))
    .filter((part) => part.type === 'day' || part.type === 'month' || part.type === 'year')
    .map((part) => part.type);
  const value = Object.fromEntries(order.map((type, index) => [type, parts[index]])) as Record<'day' | 'month' | 'year', number>;
  return calendarDay(value.year, value.month, value.day);
}

/** Lower case without accents or dots: "Déc." and "dec" are the same word. */
const plainWord = (word: string) => word.normalize('NFD').replace(/\p{M}/gu, '').replace(/\./g, '').toLowerCase();

/** The month (1–12) a word names in the language or in English: its full name or an abbreviation of three letters or more. */
function monthNamed(word: string, language: Locale): number | null {
  const typed = plainWord(word);
  if (typed.length < 3) return null;
  for (const names of [language, 'en'] as const) {
    for (let month = 0; month < 12; month++) {
      const day = new Date(Date.UTC(2025, month, 15));
      const spelled = (['long', 'short'] as const).map((style) => plainWord(new Intl.DateTimeFormat(names, { month: style, timeZone: 'UTC' }).format(day)));
      if (spelled.some((name) => name === typed || (name.startsWith(typed) && typed.length >= 3) || typed.startsWith(name))) return month + 1;
    }
  }
  return null;
}

function parseNamedMonthDate(text: string, language: Locale): string | null {
  const words = text.split(/[^\p{L}\p{M}\d]+/u).filter(Boolean);
  const names = words.filter((word) => /\p{L}/u.test(word));
  const numbers = words.filter((word) => /^\d+$/.test(word));
  if (names.length !== 1 || numbers.length !== 2 || words.length !== 3) return null;
  const month = monthNamed(names[0], language);
  if (!month) return null;
  // The year is the number of four digits (Dec 1, 2026 · 1 déc. 2026), whichever side it is on.
  const yearFirst = numbers[0].length === 4;
  const [day, year] = yearFirst ? [Number(numbers[1]), Number(numbers[0])] : [Number(numbers[0]), Number(numbers[1])];
  return calendarDay(year, month, day);
}

function calendarDay(fullOrShortYear: number, month: number, dayOfMonth: number): string | null {
  const year = fullOrShortYear < 100 ? 2000 + fullOrShortYear : fullOrShortYear;
  const day = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(dayOfMonth).padStart(2, '0')}`;
  return isRealDay(day) ? day : null;
}

function isRealDay(day: string): boolean {
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day;
}

/** Why a date typed into a field was not taken: unreadable, or outside the days the field allows. */
export type TypedDateProblem = { kind: 'unreadable' } | { kind: 'tooLate'; latest: string } | { kind: 'tooEarly'; earliest: string };

/**
 * What a date field says when it is left: nothing for an empty field or a day it accepts; otherwise
 * why the typed text was not taken, instead of the field quietly going back to the day before.
 * `earliest` and `latest` are days (`YYYY-MM-DD`) or instants, as the date fields take them.
 */
export function typedDateProblem(text: string, limits: { earliest?: string | Date | null; latest?: string | Date | null }, language: Locale = locale): TypedDateProblem | null {
  if (!text.trim()) return null;
  const day = parseDate(text, language);
  if (!day) return { kind: 'unreadable' };
  const asLimit = (limit: string | Date | null | undefined) => (limit ? (limit instanceof Date ? isoDayOf(limit) : limit.slice(0, 10)) : null);
  const earliest = asLimit(limits.earliest);
  const latest = asLimit(limits.latest);
  if (latest && day > latest) return { kind: 'tooLate', latest };
  if (earliest && day < earliest) return { kind: 'tooEarly', earliest };
  return null;
}

/** The reader's local day of an instant, as `YYYY-MM-DD`. */
function isoDayOf(instant: Date): string {
  return `${instant.getFullYear()}-${String(instant.getMonth() + 1).padStart(2, '0')}-${String(instant.getDate()).padStart(2, '0')}`;
}
