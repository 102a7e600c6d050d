/** CSV as the server's exports and the web app's downloads write it: one rule, so every file is as safe. */
export type CsvSeparator = ',' | ';';

/**
 * One CSV field (RFC 4180): quoted when it holds a comma or semicolon (either separator: a spreadsheet
 * may split at the one its language uses, whichever the file was written with), a quote or a line
 * break, quotes doubled. A value a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets
 * a leading apostrophe and quotes, so that opening the file never executes anything (OWASP CSV injection).
 */
export function csvField(value: string | number | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  const formula = /^[=+\-@\t\r]/.test(text);
  if (formula) text = `'${text}`;
  return formula || /["\r\n,;]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of fields, ended by CRLF. Numbers are written as they are: only text can be a formula. */
export function csvLine(values: readonly (string | number | null | undefined)[], separator: CsvSeparator = ','): string {
  return `${values.map((value) => (typeof value === 'number' ? String(value) : csvField(value))).join(separator)}\r\n`;
}
