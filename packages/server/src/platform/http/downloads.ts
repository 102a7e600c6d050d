/**
 * Text file downloads (a `.lic` license file, the CSV export, a PEM public key) and their JSON form.
 *
 * A browser's link, curl, and every client written so far ask for `*\/*` or name no type at all and
 * get the file itself, with its own Content-Type and a Content-Disposition. A caller that prefers
 * `application/json` to the file's type (a generated client reading every answer as JSON:
 * openapi-fetch created with `Accept: application/json`) gets the `TextFile` object
 * `{ fileName, mediaType, content }` instead, so that no call needs a parser of its own. When the
 * caller accepts neither, the Accept header is disregarded and the file is sent, as RFC 9110 allows
 * (a 406 would break callers that send `Accept: text/plain` for a PEM file and got it so far).
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

const JSON_TYPE = 'application/json';

interface MediaRange {
  type: string;
  subtype: string;
  quality: number;
}

function mediaRanges(accept: string): MediaRange[] {
  return accept.split(',').flatMap((part) => {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const [type, subtype] = range.toLowerCase().split('/');
    if (!type || !subtype) return [];
    const q = parameters.find((parameter) => /^q\s*=/i.test(parameter));
    const quality = q === undefined ? 1 : Number(q.slice(q.indexOf('=') + 1).trim());
    return [{ type, subtype, quality: Number.isFinite(quality) ? Math.min(Math.max(quality, 0), 1) : 0 }];
  });
}

/** The quality an Accept header gives a media type: that of the most specific range naming it (type/subtype, then type/*, then *\/*), 0 when none does. */
export function acceptQuality(accept: string, mediaType: string): number {
  const [type, subtype] = mediaType.toLowerCase().split('/');
  let best: { specificity: number; quality: number } = { specificity: -1, quality: 0 };
  for (const range of mediaRanges(accept)) {
    const specificity = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' && range.subtype === '*' ? 0 : -1;
    if (specificity > best.specificity) best = { specificity, quality: range.quality };
  }
  return best.quality;
}

/**
 * Whether a request gets a file of `mediaType` as JSON: only when its Accept header rates
 * `application/json` above the file's own type. No header, `*\/*`, a browser's list and
 * `application/json, text/plain, *\/*` (which accepts both alike) get the file.
 */
export function prefersJsonTo(accept: string | undefined, mediaType: string): boolean {
  if (!accept) return false;
  return acceptQuality(accept, JSON_TYPE) > acceptQuality(accept, mediaType);
}

export interface TextFileDownload {
  /** The name it is saved as: Content-Disposition, or `fileName` in JSON. */
  fileName: string;
  /** The file's media type without parameters (`text/csv`). */
  mediaType: string;
  /** The Content-Type header of the file itself, when it has parameters (`text/csv; charset=utf-8`). */
  contentType?: string;
  /** The text, whole or as a stream (sent as it comes, in either form). */
  content: string | Readable;
}

/**
 * Sends a text file as negotiated: the file itself as an attachment, or the `TextFile` JSON object
 * (streamed, the content escaped piece by piece, so that a large export stays out of memory). Either
 * way `Vary: Accept`, since the same URL has two forms. Other headers (Cache-Control) are the caller's.
 */
export function sendTextFile(request: FastifyRequest, reply: FastifyReply, file: TextFileDownload): FastifyReply {
  reply.header('vary', 'accept');
  if (prefersJsonTo(request.headers.accept, file.mediaType)) {
    return reply.header('content-type', `${JSON_TYPE}; charset=utf-8`).send(Readable.from(textFileJson(file), { objectMode: false }));
  }
  return reply
    .header('content-type', file.contentType ?? file.mediaType)
    .header('content-disposition', `attachment; filename="${file.fileName}"`)
    .send(typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content);
}

/** `{"fileName":…,"mediaType":…,"content":"…"}`, the content JSON-escaped as it is read; a leading byte-order mark is an encoding's mark, not text, and is left out. */
async function* textFileJson(file: TextFileDownload): AsyncGenerator<string> {
  yield `{"fileName":${JSON.stringify(file.fileName)},"mediaType":${JSON.stringify(file.mediaType)},"content":"`;
  const pieces = typeof file.content === 'string' ? [file.content] : file.content.setEncoding('utf8');
  let first = true;
  for await (const piece of pieces as AsyncIterable<string> | Iterable<string>) {
    const text = first ? piece.replace(/^\uFEFF/, '') : piece;
    first = false;
    yield JSON.stringify(text).slice(1, -1);
  }
  yield '"}';
}
