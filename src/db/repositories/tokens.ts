/** Access tokens, stored as SHA-256 hashes only. */
import { sql } from 'kysely';
import type { Executor } from '../transaction.ts';
import { precompiled } from '../precompiled.ts';
import { batchedReads } from '../batched.ts';
import type { Principal } from '../../domain/records.ts';

export async function insertAccessToken(
  ex: Executor,
  t: { tokenHash: string; userId: number; clientId: number | null; codeId: number | null; scope: string; now: number },
): Promise<number> {
  const r = await ex
    .insertInto('access_tokens')
    .values({
      token_hash: t.tokenHash,
      user_id: t.userId,
      client_id: t.clientId,
      code_id: t.codeId,
      scope: t.scope,
      created_at: t.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** Unrevoked tokens with their user's name. */
const selectPrincipal = (ex: Executor) =>
  ex
    .selectFrom('access_tokens')
    .innerJoin('users', 'users.id', 'access_tokens.user_id')
    .select([
      'access_tokens.id',
      'access_tokens.token_hash',
      'access_tokens.user_id',
      'access_tokens.client_id',
      'access_tokens.scope',
      'users.username',
    ])
    .where('access_tokens.revoked_at', 'is', null);
const principalByTokenHash = precompiled((ex: Executor, tokenHash: string) =>
  selectPrincipal(ex).where('access_tokens.token_hash', '=', tokenHash),
);

const principalsByTokenHashes = precompiled((ex: Executor, tokenHashes: string[]) =>
  selectPrincipal(ex).where(sql<boolean>`access_tokens.token_hash = any(${tokenHashes}::text[])`),
);
const principalByTokenHashBatched = batchedReads(principalByTokenHash, principalsByTokenHashes, (r) => r.token_hash);

/**
 * The principal of a live (not revoked) token with this hash; undefined otherwise. On PostgreSQL's
 * own handle read together with the other requests' of the same moment (db/batched.ts).
 */
export async function findPrincipalByTokenHash(ex: Executor, tokenHash: string): Promise<Principal | undefined> {
  const r = await principalByTokenHashBatched(ex, tokenHash);
  if (!r) return undefined;
  return {
    userId: r.user_id,
    username: r.username,
    scopes: new Set(r.scope.split(' ').filter(Boolean)),
    clientId: r.client_id,
    tokenId: r.id,
  };
}
