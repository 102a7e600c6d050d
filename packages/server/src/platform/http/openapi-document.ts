import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { z } from 'zod';
import { errorBody } from '@lm/contract';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { OPERATION_IDS, OPTIONALLY_SIGNED_IN_OPERATIONS, operationKey, PUBLIC_OPERATIONS } from './openapi-operations.ts';
import { nameContractSchemas, nameSchema, newSchemaNames, parameterJsonSchema, type SchemaNames } from './openapi-schemas.ts';
import { describeParameters } from './openapi-parameters.ts';

/** The base path of every documented operation: the document's `servers` entry, left out of its paths. */
export const API_BASE_PATH = '/api';

type Transform = NonNullable<FastifyDynamicSwaggerOptions['transform']>;
type TransformObject = NonNullable<FastifyDynamicSwaggerOptions['transformObject']>;
type Json = Record<string, unknown>;
type SecurityRequirement = Record<string, string[]>;

const SIGNED_IN: SecurityRequirement[] = [{ bearerAuth: [] }, { sessionCookie: [] }];

/** `/api/licenses/:id` → `/licenses/{id}`, as the document writes a path below its server. */
export const documentPath = (url: string) => url.slice(API_BASE_PATH.length).replace(/:(\w+)/g, '{$1}');

/** The two steps of @fastify/swagger that make one app's document, sharing the app's schema names. */
export function documentTransforms(): { transform: Transform; transformObject: TransformObject } {
  const names = newSchemaNames();
  const zodTransform = createJsonSchemaTransform({ schemaRegistry: names });
  const zodTransformObject = createJsonSchemaTransformObject({ schemaRegistry: names });
  return {
    transform: (document) => transformRoute(document, names, zodTransform),
    transformObject: (document) => transformDocument(document, names, zodTransformObject),
  };
}

/**
 * The per-route step: only `/api` routes are documented; each gets its operationId, its security
 * requirement and named body and answer schemas; query and path parameters show integers and
 * booleans where the contract reads them from text (openapi-schemas.ts).
 */
function transformRoute(document: Parameters<Transform>[0], names: SchemaNames, zodTransform: Transform): ReturnType<Transform> {
  const { url, route } = document;
  const schema = document.schema as (Json & { hide?: boolean; operationId?: string; body?: z.ZodType; response?: Record<string, unknown> }) | undefined;
  if (!url.startsWith(`${API_BASE_PATH}/`) || !schema || schema.hide) return { schema: { hide: true }, url };
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const operationId = schema.operationId ?? OPERATION_IDS[operationKey(methods[0]!, documentPath(url))];
  const baseName = operationId ? operationId.charAt(0).toUpperCase() + operationId.slice(1) : 'Anonymous';
  if (schema.body) nameSchema(names, schema.body, `${baseName}Request`);
  for (const [status, answer] of Object.entries(schema.response ?? {})) {
    if (isZodSchema(answer)) nameSchema(names, answer, status.startsWith('2') ? `${baseName}Response` : `${baseName}Error${status}`);
    for (const media of Object.values(fileAnswerOf(answer)?.content ?? {})) if (isZodSchema(media.schema)) nameContractSchemas(names, media.schema);
  }
  const { querystring, params, ...rest } = schema;
  // Any operation may answer 400 (a malformed request, an undeclared query parameter) even when its route lists no error.
  const response = Object.keys(schema.response ?? {}).some((status) => status.startsWith('4')) ? schema.response : { ...schema.response, 400: errorBody };
  const transformed = zodTransform({ ...document, schema: { ...rest, response } } as Parameters<Transform>[0]) as { schema: Json; url: string };
  // The zod step keeps a file answer's media types but drops its headers (Content-Disposition): @fastify/swagger reads them from here.
  const transformedResponses = transformed.schema.response as Record<string, Json> | undefined;
  for (const [status, answer] of Object.entries(schema.response ?? {})) {
    const headers = fileAnswerOf(answer)?.headers;
    if (headers && transformedResponses?.[status]) transformedResponses[status].headers = headers;
  }
  if ((route.config as { etag?: boolean } | undefined)?.etag) declareEtag(transformedResponses);
  if (isZodSchema(querystring)) transformed.schema.querystring = parameterJsonSchema(querystring);
  if (isZodSchema(params)) transformed.schema.params = parameterJsonSchema(params);
  // Header parameters (If-Match) keep their descriptions, as query and path parameters do.
  if (isZodSchema(schema.headers)) transformed.schema.headers = parameterJsonSchema(schema.headers);
  if (operationId) transformed.schema.operationId = operationId;
  transformed.schema.security = securityOf(operationId, (route.config as { sessionOnly?: boolean } | undefined)?.sessionOnly === true);
  return transformed;
}

/** The ETag header of a versioned record's answers (versioned.ts): its successes and its 412. */
function declareEtag(responses: Record<string, Json> | undefined): void {
  for (const [status, answer] of Object.entries(responses ?? {})) {
    if (!status.startsWith('2') && status !== '412') continue;
    if (status === '204') continue;
    answer.headers = {
      ...(answer.headers as Json | undefined),
      ETag: {
        type: 'string',
        description:
          status === '412'
            ? 'The ETag of the current record (the answer\'s `current`): send it as If-Match to apply the change to it'
            : 'The ETag of the record as answered: send it as If-Match with a change so that it is made only to this version',
      },
    };
  }
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** An answer declared with its media types (openapi.ts fileAnswer), else undefined. */
function fileAnswerOf(answer: unknown): { content: Record<string, { schema: unknown }>; headers?: Json } | undefined {
  return typeof answer === 'object' && answer !== null && 'content' in answer && !isZodSchema(answer) ? (answer as { content: Record<string, { schema: unknown }>; headers?: Json }) : undefined;
}

function securityOf(operationId: string | undefined, sessionOnly: boolean): SecurityRequirement[] {
  if (sessionOnly) return [{ sessionCookie: [] }];
  if (operationId && PUBLIC_OPERATIONS.has(operationId)) return [];
  if (operationId && OPTIONALLY_SIGNED_IN_OPERATIONS.has(operationId)) return [{}, ...SIGNED_IN];
  return SIGNED_IN;
}

const STATUS_TEXTS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  304: 'Not modified: the copy named by If-None-Match is current',
  400: 'The request is malformed or a value is refused (ERR_VALIDATION names each field)',
  401: 'Not signed in, or the token or session is not valid',
  403: 'Signed in, but not allowed',
  404: 'No such record, or not one the caller may see',
  409: 'The request conflicts with the stored state',
  412: 'ERR_EDIT_CONFLICT: the record changed since the ETag named by If-Match; `current` is the record as it is now',
  422: 'The request is understood but cannot be carried out',
  429: 'Too many requests: try again after the Retry-After seconds',
  503: 'The database cannot be reached',
};

/**
 * The whole document, last: the named schemas become `components.schemas`, each under one name
 * (the input and output forms of a schema are one component when they agree), those no operation
 * uses left out; answers get descriptions of what their status means.
 */
function transformDocument(document: Parameters<TransformObject>[0], names: SchemaNames, zodTransformObject: TransformObject): ReturnType<TransformObject> {
  const openapi = zodTransformObject(document) as Json & { paths: Json; components: Json & { schemas?: Record<string, Json> } };
  const schemas = openapi.components.schemas ?? {};
  for (const id of names._idmap.keys()) if (schemas[id]) openAnswerShapes(schemas[id]);
  for (const operations of Object.values(openapi.paths) as Record<string, { responses?: Json }>[]) {
    for (const operation of Object.values(operations)) openAnswerShapes(operation.responses);
  }
  mergeInputForms(openapi, schemas);
  openapi.components.schemas = Object.fromEntries(
    Object.entries(schemas)
      .filter(([name]) => referencedSchemas(openapi, schemas).has(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  describeResponses(openapi.paths);
  describeParameters(openapi.paths as Parameters<typeof describeParameters>[0]);
  return openapi as ReturnType<TransformObject>;
}

/**
 * An answer's objects without `additionalProperties: false`: a later version may add fields to an
 * answer, and clients generated now (some refuse what their schema does not name) must keep reading
 * it. Request bodies keep theirs: there an unknown field is refused.
 */
function openAnswerShapes(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(openAnswerShapes);
  if (typeof value !== 'object' || value === null) return;
  const record = value as Json;
  if (record.additionalProperties === false) delete record.additionalProperties;
  Object.values(record).forEach(openAnswerShapes);
}

/** `LicenseInput` and `License`: one component when the two are the same JSON, else the input form keeps its suffix; an input form alone drops it. */
function mergeInputForms(openapi: Json, schemas: Record<string, Json>): void {
  const used = referencedSchemas(openapi, schemas);
  const renames = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    if (!name.endsWith('Input')) continue;
    const base = name.slice(0, -'Input'.length);
    const same = base in schemas && JSON.stringify(schemas[base]) === JSON.stringify(withoutInputSuffixes(schemas[name]));
    if (same || !used.has(base)) renames.set(name, base);
  }
  if (renames.size === 0) return;
  for (const [from, to] of renames) {
    if (!used.has(to) || !(to in schemas)) schemas[to] = schemas[from]!;
    delete schemas[from];
  }
  renameRefs(openapi, renames);
}

const refName = (ref: string) => ref.slice('#/components/schemas/'.length);

/** An input form as it would read with the output names: to tell whether the two forms agree. */
function withoutInputSuffixes(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, inner: unknown) => (key === '$ref' && typeof inner === 'string' && inner.endsWith('Input') ? inner.slice(0, -'Input'.length) : inner));
}

function renameRefs(value: unknown, renames: Map<string, string>): void {
  if (Array.isArray(value)) return value.forEach((item) => renameRefs(item, renames));
  if (typeof value !== 'object' || value === null) return;
  const record = value as Json;
  for (const [key, inner] of Object.entries(record)) {
    if (key === '$ref' && typeof inner === 'string' && renames.has(refName(inner))) record[key] = `#/components/schemas/${renames.get(refName(inner))}`;
    else renameRefs(inner, renames);
  }
}

/** The component names the paths reach, directly or through other components. */
function referencedSchemas(openapi: Json, schemas: Record<string, Json>): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')) {
        const name = refName(inner);
        if (!found.has(name)) {
          found.add(name);
          visit(schemas[name]);
        }
      } else visit(inner);
    }
  };
  visit(openapi.paths);
  return found;
}

function describeResponses(paths: Json): void {
  for (const operations of Object.values(paths) as Record<string, { responses?: Record<string, { description?: string }> }>[]) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (response.description === 'Default Response') response.description = STATUS_TEXTS[status] ?? `HTTP ${status}`;
      }
    }
  }
}
