import { z } from 'zod';
import { errorBody } from '@lm/contract';
import { licenseFileJson } from '@lm/contract/client-protocol';

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

/**
 * An answer that is a file rather than JSON, declared with each media type it is served as, so that a
 * generated client reads it as what it is (the route sets the same Content-Type on the reply).
 */
export function fileAnswer<const Media extends Record<string, z.ZodType>>(description: string, media: Media) {
  const content = Object.fromEntries(Object.entries(media).map(([type, schema]) => [type, { schema }]));
  return { description, content } as { description: string; content: { [Type in keyof Media]: { schema: Media[Type] } } };
}

/** A license file download: `format=json` is served as JSON (the LicenseFileJson schema), `format=lic` as bytes. */
export const licenseFileAnswer = fileAnswer('The license file, as an attachment', {
  'application/json': licenseFileJson,
  'application/octet-stream': z.string().describe('The .lic file: BEGIN LICENSE FILE, the signed JSON in base64, END LICENSE FILE'),
});
