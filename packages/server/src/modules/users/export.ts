import { Readable } from 'node:stream';
import type { AppContext } from '../../platform/context.ts';
import { consentingUsersAfter } from './repo.ts';

export type CsvSeparator = ',' | ';';

/** Rows fetched per query while streaming; memory stays flat however many accounts there are. */
export const EXPORT_BATCH_SIZE = 1000;

export const CONSENT_CSV_HEADER = ['email', 'firstName', 'lastName', 'company', 'country', 'language', 'registeredAt'];

/**
 * One CSV field (RFC 4180): quoted when it holds the separator, a quote or a line break, quotes
 * doubled. A value a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading
 * apostrophe and quotes, so that opening the file never executes anything (OWASP CSV injection).
 */
export function csvField(value: string | number | null | undefined, separator: CsvSeparator): string {
  let text = value === null || value === undefined ? '' : String(value);
  const formula = /^[=+\-@\t\r]/.test(text);
  if (formula) text = `'${text}`;
  return formula || /["\r\n]/.test(text) || text.includes(separator) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: (string | number | null | undefined)[], separator: CsvSeparator): string {
  return `${values.map((value) => csvField(value, separator)).join(separator)}\r\n`;
}

/**
 * The e-mail-consent export: confirmed open accounts that agreed to e-mails (a confirmed address is
 * the double opt-in). UTF-8 with a byte-order mark, which spreadsheets need to read accents right,
 * and CRLF line ends. Streamed a batch at a time as the client reads.
 */
export function consentCsv(ctx: AppContext, separator: CsvSeparator): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield `\uFEFF${csvLine(CONSENT_CSV_HEADER, separator)}`;
    let afterId = 0;
    for (;;) {
      const rows = await consentingUsersAfter(ctx.db, afterId, EXPORT_BATCH_SIZE);
      if (rows.length === 0) return;
      yield rows
        .map((row) => csvLine([row.email, row.first_name, row.last_name, row.company, row.country, row.locale, row.created_at], separator))
        .join('');
      afterId = rows[rows.length - 1].id;
    }
  }
  return Readable.from(lines(), { objectMode: false, highWaterMark: 64 * 1024 });
}
