import { z } from 'zod';
import { errorBody } from '@lm/contract';
import { licenseFileJson } from '@lm/contract/client-protocol';
import { textFile } from '@lm/contract/text-file';

/** The error answers every route may give, for the OpenAPI document. */
export const errorResponses = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  409: errorBody,
  422: errorBody,
  429: errorBody,
} as const;

/** The answers of a change that honours If-Match (versioned.ts): also 412 with the current record. */
export const editResponses = { ...errorResponses, 412: errorBody } as const;

/** Response headers as the document declares them (JSON Schema with a description). */
type HeaderSchemas = Record<string, { type: 'string'; description: string }>;

/** The header a downloaded file comes with (downloads.ts sends it with the file, not with its JSON form). */
const ATTACHMENT_HEADERS: HeaderSchemas = {
  'Content-Disposition': { type: 'string', description: 'attachment; filename="…": the name to save the file as (sent with the file itself, not with its JSON form)' },
};

/**
 * An answer that is a file rather than JSON, declared with each media type it is served as, so that a
 * generated client reads it as what it is (the route sets the same Content-Type on the reply), and
 * with the headers it comes with (openapi-document.ts carries them into the document).
 */
export function fileAnswer<const Media extends Record<string, z.ZodType>>(description: string, media: Media, headers?: HeaderSchemas) {
  const content = Object.fromEntries(Object.entries(media).map(([type, schema]) => [type, { schema }]));
  return { description, content, ...(headers ? { headers } : {}) } as { description: string; content: { [Type in keyof Media]: { schema: Media[Type] } }; headers?: HeaderSchemas };
}

const AS_JSON = 'With `Accept: application/json` (preferred to the file’s own type) the same file comes as JSON, the `TextFile` object `{ fileName, mediaType, content }`; without it (a browser, curl, `*/*`) as the file itself.';

/** A text file download (downloads.ts sendTextFile): the file under its own media type, or the TextFile JSON object. */
export function textFileAnswer<const Media extends Record<string, z.ZodType>>(description: string, media: Media) {
  return fileAnswer(`${description}. ${AS_JSON}`, { ...media, 'application/json': textFile }, ATTACHMENT_HEADERS);
}

/**
 * A license file download: `format=lic` is the `.lic` file (`application/octet-stream`), or with
 * `Accept: application/json` the TextFile object; `format=json` is the JSON file itself (the
 * LicenseFileJson schema), whatever the Accept header.
 */
export const licenseFileAnswer = fileAnswer(
  `The license file, as an attachment. \`format=json\` answers the JSON file (\`LicenseFileJson\`). \`format=lic\` answers the .lic file; ${AS_JSON.charAt(0).toLowerCase()}${AS_JSON.slice(1)}`,
  {
    'application/octet-stream': z.string().describe('The .lic file: BEGIN LICENSE FILE, the signed JSON in base64, END LICENSE FILE'),
    'application/json': z.union([licenseFileJson, textFile]),
  },
  ATTACHMENT_HEADERS,
);
