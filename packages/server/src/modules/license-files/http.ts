import type { FastifyReply } from 'fastify';
import { formatJsonFile, formatLicenseFile, type LicenseFileFormat, type LicenseFileJson } from '@lm/contract/license-file';

/** Answers a license file as a download; a Buffer, so that no JSON serializer touches it. */
export function sendLicenseFile(reply: FastifyReply, file: LicenseFileJson, fileName: string, format: LicenseFileFormat): FastifyReply {
  return reply
    .header('content-type', format === 'json' ? 'application/json; charset=utf-8' : 'application/octet-stream')
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .header('cache-control', 'no-store')
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
