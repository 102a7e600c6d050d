import { z } from 'zod';
import * as anylic from '@lm/contract/anylic';
import * as apiToken from '@lm/contract/api-token';
import * as changeLog from '@lm/contract/change-log';
import * as clientProtocol from '@lm/contract/client-protocol';
import * as dashboard from '@lm/contract/dashboard';
import * as errors from '@lm/contract/errors';
import * as feature from '@lm/contract/feature';
import * as licenseFile from '@lm/contract/license-file';
import * as licensePolicy from '@lm/contract/license-policy';
import * as license from '@lm/contract/license';
import * as order from '@lm/contract/order';
import * as product from '@lm/contract/product';
import * as release from '@lm/contract/release';
import * as session from '@lm/contract/session';
import * as settings from '@lm/contract/settings';
import * as statistics from '@lm/contract/statistics';
import * as tan from '@lm/contract/tan';
import * as textFile from '@lm/contract/text-file';
import * as twoFactor from '@lm/contract/two-factor';
import * as user from '@lm/contract/user';
import * as webhook from '@lm/contract/webhook';

/**
 * The schemas an OpenAPI document names (`components.schemas`), by id: one registry per app, not
 * zod's global one, so that each app's document names the schemas of its own routes (a test process
 * builds many apps, whose route-local schemas are new objects each time) and ids never collide.
 */
export type SchemaNames = z.core.$ZodRegistry<{ id: string }>;
export const newSchemaNames = (): SchemaNames => z.registry<{ id: string }>();

/** A contract export's name as a component name: `licenseList` → `LicenseList`; the error body is `Error`. */
const RENAMED: Record<string, string> = { errorBody: 'Error' };
const pascalCase = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** Every object schema the contract exports, under the name it exports it by: entities, lists and bodies get those names in the document. */
const contractNames = new Map<z.ZodType, string>();
for (const module of [anylic, apiToken, changeLog, clientProtocol, dashboard, errors, feature, licenseFile, licensePolicy, license, order, product, release, session, settings, statistics, tan, textFile, twoFactor, user, webhook]) {
  for (const [name, value] of Object.entries(module)) {
    if (value instanceof z.ZodObject && !contractNames.has(value)) contractNames.set(value, RENAMED[name] ?? pascalCase(name));
  }
}

function register(names: SchemaNames, schema: z.ZodType, id: string): void {
  if (!names.has(schema) && !names._idmap.has(id)) names.add(schema, { id });
}

/** Answers that are one value, not a shape worth a name. */
const SCALAR_TYPES = new Set(['string', 'number', 'int', 'boolean', 'bigint', 'null', 'undefined', 'void', 'literal', 'enum', 'date', 'any', 'unknown', 'never']);

/**
 * Names a request body or response schema: the contract's name for it (and for every contract
 * object inside it, so that a list's items are `$ref: License`), else `fallbackName` (from the
 * operation) unless it is a single value, so that no body or answer is an anonymous inline shape.
 */
export function nameSchema(names: SchemaNames, schema: z.ZodType, fallbackName: string): void {
  nameContractSchemasIn(names, schema, new Set());
  if (!names.has(schema) && !SCALAR_TYPES.has(schema._zod.def.type)) register(names, schema, uniqueId(names, fallbackName));
}

/** Names the contract's objects inside `schema` (a file answer's media types: `TextFile`, `LicenseFileJson`) and leaves `schema` itself as it is. */
export function nameContractSchemas(names: SchemaNames, schema: z.ZodType): void {
  nameContractSchemasIn(names, schema, new Set());
}

function uniqueId(names: SchemaNames, id: string): string {
  let candidate = id;
  for (let n = 2; names._idmap.has(candidate); n++) candidate = `${id}${n}`;
  return candidate;
}

/** Registers every contract object schema reachable from `schema`. */
function nameContractSchemasIn(names: SchemaNames, schema: z.ZodType, seen: Set<z.ZodType>): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const name = contractNames.get(schema);
  if (name) register(names, schema, name);
  for (const child of childrenOf(schema)) nameContractSchemasIn(names, child, seen);
}

function childrenOf(schema: z.ZodType): z.ZodType[] {
  const def = schema._zod.def as unknown as Record<string, unknown>;
  const children: unknown[] = [];
  if (schema instanceof z.ZodObject) children.push(...Object.values(schema.shape));
  for (const key of ['element', 'innerType', 'in', 'out', 'valueType', 'keyType', 'left', 'right']) children.push(def[key]);
  if (Array.isArray(def.options)) children.push(...(def.options as unknown[]));
  if (Array.isArray(def.items)) children.push(...(def.items as unknown[]));
  return children.filter((child): child is z.ZodType => child instanceof z.ZodType);
}

type JsonSchema = Record<string, unknown>;

/**
 * Query and path parameters as the document shows them: what they mean, not how they travel. A
 * query value is always text, and the contract reads ids, counts and offsets from decimal digits
 * (`wholeNumberText`) and flags from `true`/`false`; the document calls them integers and booleans,
 * which is what a generated client then takes and writes into the URL as the same text.
 */
export function parameterJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any', override: documentParameter }) as JsonSchema;
  delete json.$schema;
  return json;
}

const FLAG_TEXTS = new Set(['true', 'false', '1', '0']);

function documentParameter(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const schema = ctx.zodSchema as z.ZodType;
  // The value a parameter left out stands for (`limit` 50, `format` lic), as the handler sees it.
  if (schema instanceof z.ZodDefault) ctx.jsonSchema.default = schema._zod.def.defaultValue;
  if (!(schema instanceof z.ZodPipe)) return;
  const { in: input, out: output } = schema._zod.def;
  if (output instanceof z.ZodNumber) return replace(ctx.jsonSchema, z.toJSONSchema(output, { target: 'draft-2020-12' }) as JsonSchema);
  if (input instanceof z.ZodEnum && output instanceof z.ZodTransform) {
    const values = input.options as unknown[];
    if (values.includes('true') && values.includes('false') && values.every((value) => FLAG_TEXTS.has(String(value)))) replace(ctx.jsonSchema, { type: 'boolean' });
  }
}

function replace(target: JsonSchema, source: JsonSchema): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, source);
  delete target.$schema;
}
