import { Readable } from 'node:stream';
import { csvLine, type CsvSeparator } from '@lm/contract/csv';
import type { AppContext } from '../../platform/context.ts';
import { consentingUsersAfter } from './repo.ts';

/** Rows fetched per query while streaming; memory stays flat however many accounts there are. */
export const EXPORT_BATCH_SIZE = 1000;

export const CONSENT_CSV_HEADER = ['email', 'firstName', 'lastName', 'company', 'country', 'language', 'registeredAt'];

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
