import type { FastifyRequest } from 'fastify';
import { formatUserName, type ListResult } from '@lm/contract';
import { API_TOKEN_PREFIX, API_TOKENS_PER_ACCOUNT, type ApiToken, type ApiTokenCreate, type ApiTokenCreated, type ApiTokenListQuery } from '@lm/contract/api-token';
import { hashToken, randomToken } from '../../platform/auth/secrets.ts';
import type { AppContext } from '../../platform/context.ts';
import { authorize, authorizeRecord, requireUser } from '../../platform/http/auth.ts';
import { AppError, notFound, validationError } from '../../platform/http/errors.ts';
import { listScope } from '../../platform/http/list-scope.ts';
import { countApiTokensOf, deleteApiToken, findApiToken, insertApiToken, listApiTokens, type ApiTokenRow } from './repo.ts';

function toApiToken(row: ApiTokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    ownerId: row.user_id,
    ownerName: formatUserName({ firstName: row.first_name, lastName: row.last_name, company: row.company, email: row.email }),
    ownerEmail: row.email,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
  };
}

const tokenSubject = (row: { user_id: number }) => ({ ownerId: row.user_id });

/** `GET /api-tokens`: the caller's own tokens; an administrator's view is every account's (or one's, by ownerId). */
export async function listTokens(ctx: AppContext, request: FastifyRequest, query: ApiTokenListQuery): Promise<ListResult<ApiToken>> {
  const user = requireUser(request);
  const everyone = listScope(request.ability, 'view-list', 'ApiToken') === 'all';
  if (!everyone && query.ownerId !== undefined && query.ownerId !== user.id) authorize(request, 'view-list', 'ApiToken', { ownerId: query.ownerId });
  const ownerId = everyone ? query.ownerId : user.id;
  const { rows, totalCount } = await listApiTokens(ctx.db, { ownerId, text: query.filter }, query);
  return { items: rows.map(toApiToken), totalCount };
}

/** `POST /api-tokens`: a new token for the caller, shown in this answer only and stored as its SHA-256. */
export async function createToken(ctx: AppContext, request: FastifyRequest, input: ApiTokenCreate): Promise<ApiTokenCreated> {
  const user = requireUser(request);
  authorize(request, 'create', 'ApiToken', { ownerId: user.id });
  const now = new Date();
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null && Date.parse(expiresAt) <= now.getTime()) throw validationError('expiresAt', 'futureTime');
  if ((await countApiTokensOf(ctx.db, user.id)) >= API_TOKENS_PER_ACCOUNT) {
    throw new AppError(422, 'ERR_LIMIT_EXCEEDED', `An account can hold at most ${API_TOKENS_PER_ACCOUNT} API tokens; revoke one first`, { params: { max: API_TOKENS_PER_ACCOUNT } });
  }
  const token = `${API_TOKEN_PREFIX}${randomToken(32)}`;
  const row = await insertApiToken(ctx.db, { userId: user.id, name: input.name, tokenHash: hashToken(token), expiresAt: expiresAt && new Date(expiresAt).toISOString() }, now.toISOString());
  ctx.log.info({ tokenId: row.id, userId: user.id }, 'API token created');
  return { ...toApiToken(row), token };
}

/** `DELETE /api-tokens/{id}`: revokes a token at once (the owner's own; an administrator's any). */
export async function revokeToken(ctx: AppContext, request: FastifyRequest, id: number): Promise<void> {
  const user = requireUser(request);
  const row = await findApiToken(ctx.db, id);
  if (!row) throw notFound('API token');
  authorizeRecord(request, 'view', 'ApiToken', tokenSubject(row), 'API token');
  authorize(request, 'delete', 'ApiToken', tokenSubject(row));
  await deleteApiToken(ctx.db, id);
  ctx.log.info({ tokenId: id, ownerId: row.user_id, revokedBy: user.id }, 'API token revoked');
}
