import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from './errors.ts';

/**
 * Optimistic concurrency for the records that people and integrations edit (issue 47): a record's
 * `ETag` is a hash of the record as the caller reads it (the body of its `GET`), sent with that
 * `GET` and with each answer that changes it. A `PUT`, `PATCH` or `DELETE` with `If-Match` is carried
 * out only while the record is still the one the caller read: the check runs inside the write's
 * transaction, with the record's row locked (PostgreSQL) or the database's write lock held (SQLite),
 * so that of many writers with the same `If-Match` exactly one succeeds. A stale one is answered
 * `412 ERR_EDIT_CONFLICT` with the current record in `current`, and nothing is written.
 *
 * Without `If-Match` a write behaves as before: integrations, shops and the license protocol do not
 * send it and so never lose to a dialog that was opened before them.
 */

/** The `If-Match` request header as the OpenAPI document describes it (a route's `schema.headers`). */
export const ifMatchHeaders = z.looseObject({
  'if-match': z
    .string()
    .max(1000)
    .optional()
    .describe(
      'The ETag of the record as the caller last read it (from its GET or from the answer of its last change): the change is made only if the record is still that one, else 412 ERR_EDIT_CONFLICT with the current record. `*` matches any existing record. Without it the change is made whatever changed meanwhile.',
    ),
});

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers a versioned record with its ETag (the document declares the header). */
    etag?: boolean;
  }
}

/** A route's `config` that makes the document declare the `ETag` header on its answers (openapi-document.ts). */
export const ETAG_CONFIG = { etag: true } as const;

/** JSON with keys in a fixed order, so that the same record always hashes alike. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const record = item as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, record[key]]),
    );
  });
}

/** The strong ETag of a record as the caller reads it. */
export function etagOf(record: unknown): string {
  return `"${createHash('sha256').update(canonicalJson(record)).digest('base64url').slice(0, 27)}"`;
}

/** What a write must find to go ahead: the tags of `If-Match` (`*`: any) and how the caller reads the record. */
export interface Precondition {
  tags: string[] | '*';
  /** The record as the caller's GET shows it (fields it may not see left out). */
  view: (record: never) => unknown;
}

/** The tags of an `If-Match` header; weak tags (`W/`) compare by their value. */
function parseTags(header: string): string[] | '*' {
  if (header.trim() === '*') return '*';
  return [...header.matchAll(/(?:W\/)?("[^"]*")/g)].map((match) => match[1]!);
}

/**
 * The request's precondition, or undefined without `If-Match`. `view` turns the stored record into
 * what the caller's GET shows (default: as it is).
 */
export function preconditionOf<Record>(request: FastifyRequest, view: (record: Record) => unknown = (record) => record): Precondition | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  const tags = parseTags(Array.isArray(header) ? header.join(',') : header);
  return { tags, view: view as (record: never) => unknown };
}

/** 412: the record changed since the caller read it; `current` is the record as it reads it now. */
export function editConflict(current: unknown): AppError {
  return new AppError(412, 'ERR_EDIT_CONFLICT', 'This record was changed by someone else since you opened it. Nothing was saved.', { current, etag: etagOf(current) });
}

/**
 * Checks a write's precondition against the record as it is now (read inside the write's
 * transaction, row locked): throws 412 with the current record when it was changed meanwhile.
 */
export function checkPrecondition<Record>(precondition: Precondition | undefined, current: Record): void {
  if (!precondition || precondition.tags === '*') return;
  const shown = (precondition.view as (record: Record) => unknown)(current);
  if (!precondition.tags.includes(etagOf(shown))) throw editConflict(shown);
}

/** Answers a record with its ETag. */
export function withEtag<T>(reply: FastifyReply, record: T): T {
  void reply.header('etag', etagOf(record));
  return record;
}
