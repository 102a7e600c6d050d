import { z } from 'zod';
import { isoDateTime, listQuery, listResponse, MAX_RECORD_ID, wholeNumberText } from './list.ts';

/** Every token starts with this, so that people, secret scanners and the server can tell it apart. */
export const API_TOKEN_PREFIX = 'lmat_';
/** How many tokens one account may hold at once. */
export const API_TOKENS_PER_ACCOUNT = 100;

/** `POST /api/api-tokens`: a name to recognise the token by, and an optional expiry in the future. */
export const apiTokenCreate = z.object({
  name: z.string().trim().min(1).max(100),
  expiresAt: isoDateTime.nullable().optional(),
});
export type ApiTokenCreate = z.output<typeof apiTokenCreate>;

export const apiToken = z.object({
  id: z.number().int(),
  name: z.string(),
  ownerId: z.number().int(),
  ownerName: z.string(),
  ownerEmail: z.string(),
  createdAt: isoDateTime,
  expiresAt: isoDateTime.nullable(),
  lastUsedAt: isoDateTime.nullable(),
});
export type ApiToken = z.output<typeof apiToken>;

/** The answer of the creation: the only time the token itself is shown. */
export const apiTokenCreated = apiToken.extend({ token: z.string() });
export type ApiTokenCreated = z.output<typeof apiTokenCreated>;

/** `GET /api/api-tokens`: the caller's tokens; an administrator's are everyone's, or one account's with `ownerId`. */
export const apiTokenListQuery = listQuery(['name', 'createdAt', 'lastUsedAt', 'expiresAt']).extend({
  ownerId: wholeNumberText(1, MAX_RECORD_ID).optional(),
});
export type ApiTokenListQuery = z.output<typeof apiTokenListQuery>;

export const apiTokenList = listResponse(apiToken);
