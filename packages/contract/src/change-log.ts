import { z } from 'zod';
import { CHANGE_LOG_MODELS } from './constants.ts';
import { isoDateTime, listQuery, listResponse, MAX_RECORD_ID, wholeNumberText } from './list.ts';

export const changeLogModel = z.enum(CHANGE_LOG_MODELS);
export const CHANGE_OPERATIONS = ['insert', 'update', 'delete'] as const;
export type ChangeOperation = (typeof CHANGE_OPERATIONS)[number];

export const changeLogParams = z.object({ model: changeLogModel });

/** `GET /api/changes/{model}`: newest first unless sorted otherwise; `recordId` narrows to one record. */
export const changeLogQuery = listQuery(['timestamp', 'recordId', 'operation']).extend({
  recordId: wholeNumberText(1, MAX_RECORD_ID).optional(),
  operation: z.enum(CHANGE_OPERATIONS).optional(),
});
export type ChangeLogQuery = z.output<typeof changeLogQuery>;

const values = z.record(z.string(), z.unknown()).nullable();

export const changeLogEntry = z.object({
  id: z.number().int(),
  model: changeLogModel,
  recordId: z.number().int(),
  operation: z.enum(CHANGE_OPERATIONS),
  timestamp: isoDateTime,
  /** Null when the system made the change. */
  userId: z.number().int().nullable(),
  /** The acting user's formatted name; null for the system or a user deleted since. */
  userName: z.string().nullable(),
  /** The API token the change was made with ("token <name>"), null for a session or the system. */
  tokenName: z.string().nullable(),
  oldValues: values,
  newValues: values,
});
export type ChangeLogEntry = z.output<typeof changeLogEntry>;

/** The fields of logged values that hold another record's id, and that record's model. */
export const CHANGE_REFERENCE_FIELDS = {
  productId: 'Product',
  licensePolicyId: 'LicensePolicy',
  defaultLicensePolicyId: 'LicensePolicy',
  distributorId: 'User',
  ownerId: 'User',
  tanId: 'Tan',
} as const;
export type ChangeReferenceModel = (typeof CHANGE_REFERENCE_FIELDS)[keyof typeof CHANGE_REFERENCE_FIELDS];

/** What the page's referenced records are called now, by model and id (a record deleted since is missing). */
export const changeReferences = z.partialRecord(z.enum(['Product', 'LicensePolicy', 'User', 'Tan']), z.record(z.string(), z.string()));
export type ChangeReferences = z.output<typeof changeReferences>;

export const changeLogList = listResponse(changeLogEntry).extend({ references: changeReferences });
export type ChangeLogList = z.output<typeof changeLogList>;

/**
 * Field names that never reach the change log nor its readers (DESIGN.md section 4): password
 * hashes, tokens, secrets and keys, in whatever case or nesting a record carries them.
 */
const SECRET_FIELD = /^pass(word)?(_?hash)?$|token|secret|private_?key/i;

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/** A copy of the values with every secret field left out, at any depth. */
export function withoutSecretFields<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => withoutSecretFields(item)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([key]) => !isSecretField(key))
        .map(([key, item]) => [key, withoutSecretFields(item)]),
    ) as T;
  }
  return value;
}

/** The fields whose value differs between two versions of a record (compared as JSON). */
export function changedFields(oldValues: Record<string, unknown> | null, newValues: Record<string, unknown> | null): Set<string> {
  const keys = new Set([...Object.keys(oldValues ?? {}), ...Object.keys(newValues ?? {})]);
  const changed = new Set<string>();
  for (const key of keys) {
    if (JSON.stringify(oldValues?.[key] ?? null) !== JSON.stringify(newValues?.[key] ?? null)) changed.add(key);
  }
  return changed;
}
