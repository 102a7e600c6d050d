import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import type { ErrorBody, ErrorCode, ErrorDetail } from '@lm/contract';

/** A refusal the client caused: answered with its status and stable code, never logged as a fault. */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  readonly params?: Record<string, string | number>;

  constructor(status: number, code: ErrorCode, message: string, extra: { details?: ErrorDetail[]; params?: Record<string, string | number> } = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = extra.details;
    this.params = extra.params;
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, details: this.details, params: this.params };
  }
}

export const notFound = (what = 'Record') => new AppError(404, 'ERR_NOT_FOUND', `${what} not found`);
export const forbidden = () => new AppError(403, 'ERR_FORBIDDEN', 'You are not allowed to do this');
export const unauthenticated = () => new AppError(401, 'ERR_UNAUTHENTICATED', 'Please log in');
export const validationError = (path: string, message: string) =>
  new AppError(400, 'ERR_VALIDATION', `${path}: ${message}`, { details: [{ path, message }] });

const FASTIFY_CODES: Record<string, [number, ErrorCode]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'ERR_UNSUPPORTED_MEDIA_TYPE'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'ERR_BAD_REQUEST'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'ERR_PAYLOAD_TOO_LARGE'],
  FST_REQ_FILE_TOO_LARGE: [413, 'ERR_PAYLOAD_TOO_LARGE'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'ERR_BAD_REQUEST'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'ERR_BAD_REQUEST'],
};

/**
 * PostgreSQL refuses some input that passes validation and that SQLite stores (a NUL character in a
 * text, a number beyond a column's range): the request's fault, never a server error.
 */
const POSTGRES_INPUT_ERRORS = new Set(['22021', '22P05', '22003', '22P02', '22007', '22008']);

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) return reply.status(error.status).send(error.toBody());
    if (hasZodFastifySchemaValidationErrors(error)) {
      const details = error.validation.map((issue) => ({
        path: issue.instancePath.split('/').filter(Boolean).join('.') || String(error.validationContext ?? ''),
        message: issue.message ?? 'is not an allowed value',
        code: issue.keyword,
      }));
      return reply.status(400).send({ error: 'ERR_VALIDATION', message: 'The request is not valid', details } satisfies ErrorBody);
    }
    if (error.statusCode === 429) {
      return reply.status(429).send({ error: 'ERR_RATE_LIMITED', message: 'Too many requests, please try again later' } satisfies ErrorBody);
    }
    if (typeof error.code === 'string' && POSTGRES_INPUT_ERRORS.has(error.code)) {
      return reply.status(400).send({ error: 'ERR_BAD_REQUEST', message: 'The request contains a value the database cannot store' } satisfies ErrorBody);
    }
    const known = error.code ? FASTIFY_CODES[error.code] : undefined;
    if (known) return reply.status(known[0]).send({ error: known[1], message: error.message } satisfies ErrorBody);
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500 && !isResponseSerializationError(error)) {
      return reply.status(error.statusCode).send({ error: 'ERR_BAD_REQUEST', message: error.message } satisfies ErrorBody);
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: 'ERR_INTERNAL', message: 'Internal server error' } satisfies ErrorBody);
  });
}
