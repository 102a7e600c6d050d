import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatJsonFile, formatLicenseFile, type LicenseFileFormat, type LicenseFileJson } from '@lm/contract/license-file';
import { sendTextFile } from '../../platform/http/downloads.ts';

/**
 * Answers a license file as a download, never cached. The `.lic` file is a text file like any
 * download (downloads.ts): the file itself, or the TextFile JSON object to a caller that prefers JSON.
 * The `.json` file is JSON already and is sent as it is (a Buffer, so that no serializer touches it).
 */
export function sendLicenseFile(request: FastifyRequest, reply: FastifyReply, file: LicenseFileJson, fileName: string, format: LicenseFileFormat): FastifyReply {
  reply.header('cache-control', 'no-store');
  if (format === 'lic') return sendTextFile(request, reply, { fileName, mediaType: 'application/octet-stream', content: formatLicenseFile(file, format) });
  return reply
    .header('content-type', 'application/json; charset=utf-8')
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .send(Buffer.from(formatLicenseFile(file, format), 'utf8'));
}

/** The desktop protocol's answer: the `.json` license file byte for byte, formatted once rather than re-serialized, with its ETag. */
export function sendJsonLicenseFile(reply: FastifyReply, file: LicenseFileJson, etag: string): FastifyReply {
  return reply
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('etag', etag)
    .send(Buffer.from(formatJsonFile(file), 'utf8'));
}

/** The conditional refresh's answer: the file the machine holds (named by `etag`) is still right. No body, so no serializer. */
export function sendNotModified(reply: FastifyReply, etag: string): FastifyReply {
  return reply.status(304).header('cache-control', 'no-store').header('etag', etag).send();
}
