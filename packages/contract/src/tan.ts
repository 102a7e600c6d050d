/**
 * TANs (DESIGN.md section 6): codes, tags and the shapes of the TAN calls. Pure: runs in Node and in
 * browsers (the code generator takes Web Crypto's random source, present in both).
 */
import { z } from 'zod';
import { TAN_ATTENTION_STATES } from './dashboard.ts';
import { entitlementList, grantsView, metadataMap } from './entitlement.ts';
import { isoDate, isoDateTime, listQuery, listResponse, MAX_RECORD_ID, organizationFilter, organizationRef, recordId, updateOf, wholeNumberText } from './list.ts';

/** 31 characters without look-alikes: no 0/o, no 1/l/i. */
export const TAN_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const TAN_CODE_LENGTH = 12;
/** The most TANs one create call makes (bulk creation is one transaction). */
export const TAN_MAX_BULK_COUNT = 10000;
/** Counts offered by the "many" TAN creation dropdown. */
export const TAN_BULK_COUNTS = [2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000] as const;

const CODE_PATTERN = new RegExp(`^[${TAN_ALPHABET}]{${TAN_CODE_LENGTH}}$`);

/** Input normalization of codes, also in list filters: trimmed, lowercased, dashes removed. */
export function normalizeTanCode(input: string): string {
  return input.trim().toLowerCase().replace(/-/g, '');
}

/** Whether a normalized string is a well-formed code (it may still not exist). */
export function isTanCode(code: string): boolean {
  return CODE_PATTERN.test(code);
}

/** A stored code shown as groups of 4: `abcd-efgh-jkmn`. */
export function formatTanCode(code: string): string {
  return code.match(/.{1,4}/g)?.join('-') ?? code;
}

type RandomBytes = (length: number) => Uint8Array;
const webCryptoBytes: RandomBytes = (length) => globalThis.crypto.getRandomValues(new Uint8Array(length));

/**
 * A fresh code from a cryptographic random source. Bytes of 248 and above are discarded, so that
 * each character is equally likely (248 = 8 × 31; a plain modulo would favour the first characters).
 */
export function generateTanCode(randomBytes: RandomBytes = webCryptoBytes): string {
  return randomCode(TAN_CODE_LENGTH, randomBytes);
}

/** `length` characters of the TAN alphabet, each equally likely (also the recovery codes of two-factor sign-in). */
export function randomCode(length: number, randomBytes: RandomBytes = webCryptoBytes): string {
  const limit = Math.floor(256 / TAN_ALPHABET.length) * TAN_ALPHABET.length;
  let code = '';
  while (code.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= limit) continue;
      code += TAN_ALPHABET[byte % TAN_ALPHABET.length];
      if (code.length === length) break;
    }
  }
  return code;
}

/** A TAN code as the forms and the activation call take it: normalized, then checked. */
export const tanCode = z
  .string()
  .max(100)
  .transform(normalizeTanCode)
  .pipe(z.string().min(1).regex(CODE_PATTERN, 'validation.tanCode'));

// ---------------------------------------------------------------------------------------------
// Tags: letters, digits, accented Latin letters, colon, slash, underscore and dash (spec section 5).

export const TAN_TAG_MAX_LENGTH = 50;
export const TAN_MAX_TAGS = 20;
const TAG_PATTERN = /^[A-Za-z0-9\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u1E00-\u1EFF:/_-]+$/;

export function isTanTag(tag: string): boolean {
  return tag.length <= TAN_TAG_MAX_LENGTH && TAG_PATTERN.test(tag);
}

/** Splits tag input at commas, semicolons and whitespace; empty parts and repeats are dropped. */
export function parseTanTags(input: string): string[] {
  return [...new Set(input.split(/[,;\s]+/).filter(Boolean))];
}

export const tanTag = z.string().max(TAN_TAG_MAX_LENGTH).regex(TAG_PATTERN, 'validation.tanTag');
const tagList = z
  .array(tanTag)
  .max(TAN_MAX_TAGS)
  .transform((tags) => [...new Set(tags)]);

// ---------------------------------------------------------------------------------------------
// Calls

const optionalId = recordId.nullish().transform((value) => value ?? null);
const notes = z.string().max(10000).nullish().transform((value) => (value?.trim() ? value : null));

/** What a create or edit form sends; the server checks licenseCount against the configured max. */
export const tanFields = z.object({
  productId: recordId,
  licensePolicyId: optionalId,
  licenseCount: z.number().int().min(1),
  distributorId: optionalId,
  freeUpdatesUntil: isoDate.nullish().transform((value) => value ?? null),
  /** A subscription's paid period plus grace: the TAN's licenses are valid until the end of this day (DESIGN.md section 6). */
  validUntil: isoDate.nullish().transform((value) => value ?? null),
  tags: tagList.default([]),
  /** Features added and values set for its licenses (DESIGN.md section 6g). */
  entitlements: entitlementList.default([]),
  /** Key–value pairs its licenses carry; `_` keys stay on the server. */
  metadata: metadataMap.optional().transform((value) => value ?? {}),
  notes,
});
export type TanFields = z.output<typeof tanFields>;
export type TanFieldsInput = z.input<typeof tanFields>;

export const tanCreate = tanFields;
export const tanCreateQuery = z.object({ count: wholeNumberText(1, TAN_MAX_BULK_COUNT).default(1) });

/** A TAN as an edit leaves it: the create fields, revoked and suspended. */
export const tanEdit = tanFields.extend({ revoked: z.boolean(), suspended: z.boolean() });
/**
 * The body of `PUT /tans/{id}`: a field left out keeps its value. `revokeLicenses` with a revocation
 * revokes the TAN's licenses in the same transaction (a leaked or refunded TAN).
 */
export const tanUpdate = updateOf(tanEdit).extend({ revokeLicenses: z.boolean().optional() });
export type TanUpdate = z.output<typeof tanUpdate>;

export const tan = z.object({
  id: z.number().int(),
  /** Stored form: lowercase, no dashes. */
  code: z.string(),
  productId: z.number().int(),
  productName: z.string(),
  licensePolicyId: z.number().int().nullable(),
  licensePolicyName: z.string().nullable(),
  /** Activations in all; for a FLOATING TAN the number of seats in use at once. */
  licenseCount: z.number().int(),
  /** Licenses (machines) activated from it; a floating TAN's are bounded by its policy's machine window, not licenseCount. */
  activatedCount: z.number().int(),
  distributorId: z.number().int().nullable(),
  distributorName: z.string().nullable(),
  /** The organization that claimed it (DESIGN.md section 6f). */
  organization: organizationRef.nullable(),
  revoked: z.boolean(),
  /** Reversible, unlike revoked: the licenses get no file while it is set (an unpaid subscription). */
  suspended: z.boolean(),
  validUntil: isoDate.nullable(),
  /** The type of the policy its licenses get (the TAN's, else the product's default): FLOATING counts seats, not machines. */
  policyType: z.enum(['INDEFINITE', 'PERPETUAL', 'FLOATING']),
  freeUpdatesUntil: isoDate.nullable(),
  tags: z.array(z.string()),
  entitlements: grantsView,
  metadata: z.record(z.string(), z.string()),
  notes: z.string().nullable(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type Tan = z.output<typeof tan>;

export const TAN_SORT_FIELDS = ['id', 'code', 'createdAt', 'licenseCount', 'activatedCount', 'freeUpdatesUntil'] as const;

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const tanListQuery = listQuery(TAN_SORT_FIELDS).extend({
  tag: tanTag.optional(),
  revoked: booleanQuery.optional(),
  productId: wholeNumberText(1, MAX_RECORD_ID).optional(),
  organizationId: organizationFilter,
  state: z
    .enum(TAN_ATTENTION_STATES)
    .optional()
    .describe('Only the TANs that need someone (the staff home links here): `suspended`, `ending` (a valid-until day within 14 days), `nearCount` (4 in 5 of more than one license activated); revoked TANs never'),
});
export type TanListQuery = z.output<typeof tanListQuery>;

export const tanList = listResponse(tan);
export const tanTags = z.object({ items: z.array(z.string()) });
export const tanLimits = z.object({ maxLicenseCount: z.number().int() });
export type TanLimits = z.output<typeof tanLimits>;

/**
 * The first string after every string that starts with `prefix`, in the order of any collation for
 * the code alphabet (digits before letters): the prefix with its last character stepped up, carrying
 * past the alphabet's end. Null when the prefix is all last characters ('zzz': no upper bound).
 */
export function prefixUpperBound(prefix: string): string | null {
  const ordered = [...TAN_ALPHABET].sort().join('');
  for (let i = prefix.length - 1; i >= 0; i--) {
    const next = ordered[ordered.indexOf(prefix[i]) + 1];
    if (next) return prefix.slice(0, i) + next;
  }
  return null;
}
