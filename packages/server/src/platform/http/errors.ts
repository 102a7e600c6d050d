import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { issueMessage, renderMessage, type ErrorBody, type ErrorCode, type ErrorDetail, type IssueLike, type Locale } from '@lm/contract';
import { MESSAGE_CATALOGS } from '@lm/contract/messages/index';
import { isDatabaseUnavailable, isPoolExhausted, storageFault } from '../db/dialect.ts';
import { requestLocale } from './locale.ts';

/** A refusal the client caused: answered with its status and stable code, never logged as a fault. */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  readonly params?: Record<string, string | number>;
  /** ERR_EDIT_CONFLICT's current record (versioned.ts). */
  readonly current?: unknown;
  /** The ETag of `current`, sent as the answer's ETag header. */
  readonly etag?: string;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    extra: { details?: ErrorDetail[]; params?: Record<string, string | number>; current?: unknown; etag?: string } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = extra.details;
    this.params = extra.params;
    this.current = extra.current;
    this.etag = extra.etag;
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, details: this.details, params: this.params, ...(this.current === undefined ? {} : { current: this.current }) };
  }
}

/** Seconds a client is asked to wait before trying again while the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Every database connection busy (the database healthy): a moment later there will be one. */
export const databaseBusy = () => new AppError(503, 'ERR_DATABASE_BUSY', 'The database is busy: every connection is in use; please try again in a moment');

export const databaseUnavailable = () => new AppError(503, 'ERR_DATABASE_UNAVAILABLE', 'The database cannot be reached right now; please try again in a moment');

export const notFound = (what = 'Record') => new AppError(404, 'ERR_NOT_FOUND', `${what} not found`);
export const forbidden = () => new AppError(403, 'ERR_FORBIDDEN', 'You are not allowed to do this');
export const unauthenticated = () => new AppError(401, 'ERR_UNAUTHENTICATED', 'Please log in');
/**
 * A refused field: `code` is a message key of the shared vocabulary (`validation.<code>`), which
 * the answer renders in the request's language with `params`.
 */
export const validationError = (path: string, code: string, params: Record<string, string | number> = {}) =>
  new AppError(400, 'ERR_VALIDATION', `${path}: ${code}`, { details: [{ path, message: code, code, params }] });

/** A detail's message in the request's language, when its code is a key of the vocabulary. */
function localizedDetail(detail: ErrorDetail, locale: Locale): ErrorDetail {
  if (!detail.code || !(detail.code in MESSAGE_CATALOGS.en.validation || `${detail.code}_other` in MESSAGE_CATALOGS.en.validation)) return detail;
  return { ...detail, message: renderMessage(MESSAGE_CATALOGS[locale], locale, 'validation', detail.code, detail.params), params: detail.params ?? {} };
}

/** A validation answer: each field's problem and a summary, in the request's language. */
function validationBody(details: ErrorDetail[], locale: Locale): ErrorBody {
  const localized = details.map((detail) => localizedDetail(detail, locale));
  const summary = renderMessage(MESSAGE_CATALOGS[locale], locale, 'errors', 'ERR_VALIDATION');
  return { error: 'ERR_VALIDATION', message: `${summary} ${localized.map((detail) => `${detail.path}: ${detail.message}`).join('; ')}`, details: localized };
}

/** The raw value a path points at (the request's own, before validation), to tell missing from wrong. */
function valueAt(source: unknown, path: string[]): unknown {
  let value = source;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** Fastify's own errors: status, code and, where Fastify's message repeats the request's path, one of ours. */
const FASTIFY_CODES: Record<string, [number, ErrorCode, string?]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'ERR_UNSUPPORTED_MEDIA_TYPE'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'ERR_BAD_REQUEST'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'ERR_PAYLOAD_TOO_LARGE'],
  FST_REQ_FILE_TOO_LARGE: [413, 'ERR_PAYLOAD_TOO_LARGE'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'ERR_BAD_REQUEST'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'ERR_BAD_REQUEST'],
  FST_ERR_BAD_URL: [400, 'ERR_BAD_REQUEST', 'The address is not valid'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'ERR_BAD_REQUEST', 'The address is too long'],
};

/** A path as an error message repeats it: long enough to recognize, never a page of what a caller sent. */
export function shownPath(url: string): string {
  const path = url.split('?')[0];
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

/**
 * PostgreSQL refuses some input that passes validation and that SQLite stores (a NUL character in a
 * text, a number beyond a column's range): the request's fault, never a server error.
 */
const POSTGRES_INPUT_ERRORS = new Set(['22021', '22P05', '22003', '22P02', '22007', '22008']);

const answeredCodes = new WeakMap<FastifyReply, ErrorCode>();

/** The error code a reply answered with, for metrics; undefined for a success. */
export function errorCodeOf(reply: FastifyReply): ErrorCode | undefined {
  return answeredCodes.get(reply);
}

/** Answers an error as `{ error, message }`: the error handler, and Fastify's routing errors (`frameworkErrors`). */
export function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const [status, body] = errorAnswer(error, request);
  answeredCodes.set(reply, body.error);
  if (error instanceof AppError && error.etag) reply.header('etag', error.etag);
  if (status === 503) reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
  if (status === 429 && body.params?.retryAfter !== undefined) reply.header('retry-after', String(body.params.retryAfter));
  return reply.status(status).send(body);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request did not arrive in time'],
};

/**
 * A request Node's parser refused before Fastify saw it (headers or address too large, a broken
 * request line): answered in the API's form, then the connection closes, as Node does.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'The request is not valid HTTP'];
  const body = JSON.stringify({ error: 'ERR_BAD_REQUEST', message } satisfies ErrorBody);
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

/**
 * An error of reading the request itself: the client closed the connection mid-body (Node's
 * `aborted`, ECONNRESET) or sent a body HTTP cannot parse (a broken chunked encoding, HPE_*). Its
 * ECONNRESET is the client's, not the database's.
 */
function brokenOffByClient(error: FastifyError, request: FastifyRequest): boolean {
  if (typeof error.code === 'string' && error.code.startsWith('HPE_')) return true;
  // Not request.raw.destroyed: a request is destroyed once its body has been read, so a database
  // connection reset (also ECONNRESET) after that looked like the client's, and answered 400.
  return error.code === 'ECONNRESET' && (error.message === 'aborted' || request.raw.socket?.destroyed === true);
}

/** The status and body that answer an error; validation answers in the request's language. */
function errorAnswer(error: FastifyError, request: FastifyRequest): [number, ErrorBody] {
  if (error instanceof AppError) {
    if (error.code === 'ERR_VALIDATION' && error.details?.some((detail) => detail.code)) {
      return [error.status, { ...validationBody(error.details, requestLocale(request)), params: error.params }];
    }
    return [error.status, error.toBody()];
  }
  if (brokenOffByClient(error, request)) {
    // The client's doing (it went away, or sent a body HTTP cannot read): nothing the server must fix,
    // and its one line at info is the access log's (access-log.ts, onRequestAbort).
    request.log.debug({ reason: error.message, code: error.code }, 'request body broken off or malformed');
    return [400, { error: 'ERR_BAD_REQUEST', message: 'The request body did not arrive whole' }];
  }
  const fault = storageFault(error);
  if (fault === 'disk-full') {
    request.log.error({ err: error }, 'the disk of the database is full: nothing was written; free space or make the disk larger');
    return [507, { error: 'ERR_DISK_FULL', message: 'The server has no disk space left; nothing was saved' }];
  }
  if (fault === 'read-only') {
    request.log.error({ err: error }, 'the database cannot be written: its file or folder is read-only to the server (owner, permissions or a read-only mount)');
    return [503, databaseUnavailable().toBody()];
  }
  if (isPoolExhausted(error)) {
    request.log.warn('database busy: every connection stayed in use while the request waited for one (DATABASE_POOL_SIZE, the load)');
    return [503, databaseBusy().toBody()];
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    return [503, databaseUnavailable().toBody()];
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = String(error.validationContext ?? 'body');
    const source = ({ body: request.body, querystring: request.query, params: request.params, headers: request.headers } as Record<string, unknown>)[context];
    const details = error.validation.map((issue): ErrorDetail => {
      const path = issue.instancePath.split('/').filter(Boolean);
      const { key, params } = issueMessage({ ...(issue.params as object), code: issue.keyword, message: issue.message, input: valueAt(source, path) } as IssueLike);
      // A parameter or field nobody declared has no path of its own: its name is the path.
      const unknownNames = (issue.params as { keys?: unknown }).keys;
      const unknownPath = Array.isArray(unknownNames) ? unknownNames.join(', ') : '';
      return { path: path.join('.') || unknownPath || context, message: key, code: key, params };
    });
    return [400, validationBody(details, requestLocale(request))];
  }
  if (error.statusCode === 429) return [429, { error: 'ERR_RATE_LIMITED', message: 'Too many requests, please try again later' }];
  if (typeof error.code === 'string' && POSTGRES_INPUT_ERRORS.has(error.code)) {
    return [400, { error: 'ERR_BAD_REQUEST', message: 'The request contains a value the database cannot store' }];
  }
  const known = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (known) return [known[0], { error: known[1], message: known[2] ?? error.message }];
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500 && !isResponseSerializationError(error)) {
    return [error.statusCode, { error: 'ERR_BAD_REQUEST', message: error.message }];
  }
  request.log.error({ err: error }, 'unhandled error');
  return [500, { error: 'ERR_INTERNAL', message: 'Internal server error' }];
}
