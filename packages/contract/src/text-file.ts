import { z } from 'zod';

/**
 * A downloadable text file as JSON: what the file downloads (a `.lic` license file, the CSV export, a
 * PEM public key) answer a caller whose `Accept` header prefers `application/json` to the file's own
 * media type. Without such a header (browsers, curl, `Accept: *\/*`) they answer the file itself.
 */
export const textFile = z.object({
  /** The name the file itself is downloaded as (its Content-Disposition). */
  fileName: z.string().describe('The name the file itself is downloaded as (its Content-Disposition filename)'),
  /** The media type the file itself is served as, without parameters. */
  mediaType: z.string().describe('The Content-Type the file itself is served as, without parameters (text/csv, application/octet-stream, application/x-pem-file)'),
  /** The whole file as text, without the byte-order mark a CSV download starts with. */
  content: z.string().describe('The whole file as text (without the byte-order mark the CSV download starts with)'),
});
export type TextFile = z.output<typeof textFile>;
