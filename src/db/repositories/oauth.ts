/**
 * OAuth clients, authorization codes and the OAuth side of access tokens. Secrets and
 * codes are stored as SHA-256 hashes only (docs/adr/0003-secrets.md).
 */
import type { Selectable } from 'kysely';
import type { Executor } from '../transaction.ts';
import type { OauthClientsTable, OauthCodesTable } from '../schema.ts';

/** A registered client application as the domain sees it (secretHash never leaves the server). */
export interface ClientRecord {
  /** oauth_clients.id (internal; access_tokens.client_id and tips.client_id point here) */
  id: number;
  /** the public client identifier (`client_id` on the wire) */
  clientId: string;
  /** SHA-256 hex of the client secret */
  secretHash: string;
  name: string;
  /** host name, lower-case, no scheme, port or path */
  callbackDomain: string;
  /** the exact redirect URIs registered, in order; empty when only the callback-domain rule applies */
  redirectUris: string[];
  ownerUserId: number | null;
  /** Unix seconds */
  createdAt: number;
  /** Unix seconds of the latest change (secret rotation), 0 when never changed */
  updatedAt: number;
}

export interface CodeRecord {
  id: number;
  clientId: number;
  userId: number;
  redirectUri: string;
  redirectUriGiven: boolean;
  scope: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

function toClientRecord(r: Selectable<OauthClientsTable>): ClientRecord {
  return {
    id: Number(r.id),
    clientId: r.client_id,
    secretHash: r.secret_hash,
    name: r.name,
    callbackDomain: r.callback_domain,
    redirectUris: JSON.parse(r.redirect_uris) as string[],
    ownerUserId: r.owner_user_id === null ? null : Number(r.owner_user_id),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function toCodeRecord(r: Selectable<OauthCodesTable>): CodeRecord {
  return {
    id: Number(r.id),
    clientId: Number(r.client_id),
    userId: Number(r.user_id),
    redirectUri: r.redirect_uri,
    redirectUriGiven: Number(r.redirect_uri_given) === 1,
    scope: r.scope,
    codeChallenge: r.code_challenge,
    codeChallengeMethod: r.code_challenge_method,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    usedAt: r.used_at === null ? null : Number(r.used_at),
  };
}

export async function insertClient(
  ex: Executor,
  c: {
    clientId: string;
    secretHash: string;
    name: string;
    callbackDomain: string;
    redirectUris?: string[];
    ownerUserId: number | null;
    now: number;
  },
): Promise<ClientRecord> {
  const r = await ex
    .insertInto('oauth_clients')
    .values({
      client_id: c.clientId,
      secret_hash: c.secretHash,
      name: c.name,
      callback_domain: c.callbackDomain,
      redirect_uris: JSON.stringify(c.redirectUris ?? []),
      owner_user_id: c.ownerUserId,
      created_at: c.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toClientRecord(r);
}

/** The live (not deleted) client with this public id. */
export async function findLiveClient(ex: Executor, clientId: string): Promise<ClientRecord | undefined> {
  const r = await ex
    .selectFrom('oauth_clients')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return r ? toClientRecord(r) : undefined;
}

/**
 * True when the client row is live. With `share` (PostgreSQL), the row is locked FOR SHARE until
 * the transaction ends: a concurrent deletion (an UPDATE of the row) waits for it, so its token
 * revocation sees the tokens this transaction issues; a grant after a deletion sees it deleted.
 * SQLite needs no lock (BEGIN IMMEDIATE serialises writers) and has no FOR SHARE.
 */
export async function isClientLive(ex: Executor, id: number, share: boolean): Promise<boolean> {
  let q = ex.selectFrom('oauth_clients').select('id').where('id', '=', id).where('deleted_at', 'is', null);
  if (share) q = q.forShare();
  return (await q.executeTakeFirst()) !== undefined;
}

/** Live clients owned by a user, oldest first. */
export async function findLiveClientsByOwner(ex: Executor, ownerUserId: number): Promise<ClientRecord[]> {
  const rows = await ex
    .selectFrom('oauth_clients')
    .selectAll()
    .where('owner_user_id', '=', ownerUserId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toClientRecord);
}

export async function updateClientSecret(ex: Executor, id: number, secretHash: string, now: number): Promise<void> {
  await ex
    .updateTable('oauth_clients')
    .set({ secret_hash: secretHash, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Replaces a live client's registered redirect URIs (`[]`: none) and records the time; true when it was live. */
export async function updateClientRedirectUris(
  ex: Executor,
  id: number,
  redirectUris: string[],
  now: number,
): Promise<boolean> {
  const r = await ex
    .updateTable('oauth_clients')
    .set({ redirect_uris: JSON.stringify(redirectUris), updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Marks a client deleted; true when it was live. */
export async function markClientDeleted(ex: Executor, id: number, now: number): Promise<boolean> {
  const r = await ex
    .updateTable('oauth_clients')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Revokes every live token of a client (optionally of one user only); returns how many. */
export async function revokeClientTokens(
  ex: Executor,
  clientRowId: number,
  now: number,
  userId?: number,
): Promise<number> {
  let q = ex
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('client_id', '=', clientRowId)
    .where('revoked_at', 'is', null);
  if (userId !== undefined) q = q.where('user_id', '=', userId);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Revokes every live token issued from one authorization code; returns how many. */
export async function revokeCodeTokens(ex: Executor, codeId: number, now: number): Promise<number> {
  const r = await ex
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('code_id', '=', codeId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Live access tokens of a user, grouped by live client: what the user has authorized. */
export async function findAuthorizedClients(
  ex: Executor,
  userId: number,
): Promise<
  { client: ClientRecord; scopes: string[]; firstAuthorizedAt: number; lastAuthorizedAt: number; tokens: number }[]
> {
  const rows = await ex
    .selectFrom('access_tokens')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'access_tokens.client_id')
    .selectAll('oauth_clients')
    .select(['access_tokens.scope as token_scope', 'access_tokens.created_at as token_created_at'])
    .where('access_tokens.user_id', '=', userId)
    .where('access_tokens.revoked_at', 'is', null)
    .where('oauth_clients.deleted_at', 'is', null)
    .orderBy('access_tokens.created_at')
    .orderBy('access_tokens.id')
    .execute();
  const byClient = new Map<
    number,
    { client: ClientRecord; scopes: Set<string>; first: number; last: number; tokens: number }
  >();
  for (const r of rows) {
    const id = Number(r.id);
    const created = Number(r.token_created_at);
    let e = byClient.get(id);
    if (!e) {
      e = { client: toClientRecord(r), scopes: new Set(), first: created, last: created, tokens: 0 };
      byClient.set(id, e);
    }
    for (const sc of r.token_scope.split(' ').filter(Boolean)) e.scopes.add(sc);
    e.first = Math.min(e.first, created);
    e.last = Math.max(e.last, created);
    e.tokens += 1;
  }
  return [...byClient.values()].map((e) => ({
    client: e.client,
    scopes: [...e.scopes],
    firstAuthorizedAt: e.first,
    lastAuthorizedAt: e.last,
    tokens: e.tokens,
  }));
}

export async function insertCode(
  ex: Executor,
  c: {
    codeHash: string;
    clientId: number;
    userId: number;
    redirectUri: string;
    redirectUriGiven: boolean;
    scope: string;
    codeChallenge: string | null;
    codeChallengeMethod: string | null;
    now: number;
    expiresAt: number;
  },
): Promise<number> {
  const r = await ex
    .insertInto('oauth_codes')
    .values({
      code_hash: c.codeHash,
      client_id: c.clientId,
      user_id: c.userId,
      redirect_uri: c.redirectUri,
      redirect_uri_given: c.redirectUriGiven ? 1 : 0,
      scope: c.scope,
      code_challenge: c.codeChallenge,
      code_challenge_method: c.codeChallengeMethod,
      created_at: c.now,
      expires_at: c.expiresAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(r.id);
}

/**
 * Deletes authorization codes that were never exchanged and expired before `before` (Unix
 * seconds). Used codes stay: their tokens point at them (a code's reuse revokes its tokens).
 * @returns how many were deleted.
 */
export async function deleteUnusedExpiredCodes(ex: Executor, before: number): Promise<number> {
  const r = await ex
    .deleteFrom('oauth_codes')
    .where('used_at', 'is', null)
    .where('expires_at', '<', before)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function findCodeByHash(ex: Executor, codeHash: string): Promise<CodeRecord | undefined> {
  const r = await ex.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  return r ? toCodeRecord(r) : undefined;
}

/**
 * Marks a code used, only if it is unused: its current expiry for the one caller that wins,
 * undefined otherwise. On PostgreSQL the row lock makes a concurrent second exchange (or a
 * concurrent revokeAuthorization) wait for the first to commit; RETURNING then gives the row as
 * committed, not as read before the wait.
 */
export async function claimCode(ex: Executor, codeId: number, now: number): Promise<{ expiresAt: number } | undefined> {
  const r = await ex
    .updateTable('oauth_codes')
    .set({ used_at: now })
    .where('id', '=', codeId)
    .where('used_at', 'is', null)
    .returning('expires_at')
    .executeTakeFirst();
  return r ? { expiresAt: Number(r.expires_at) } : undefined;
}

/** Expires the unused, unexpired codes one user granted to one client (revocation); returns how many. */
export async function expireUnusedCodes(
  ex: Executor,
  clientRowId: number,
  userId: number,
  now: number,
): Promise<number> {
  const r = await ex
    .updateTable('oauth_codes')
    .set({ expires_at: now })
    .where('client_id', '=', clientRowId)
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** The live token with this hash: its id and client (oauth_clients.id, null for operator tokens). */
export async function findLiveTokenByHash(
  ex: Executor,
  tokenHash: string,
): Promise<{ id: number; clientId: number | null } | undefined> {
  const r = await ex
    .selectFrom('access_tokens')
    .select(['id', 'client_id'])
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return r ? { id: Number(r.id), clientId: r.client_id === null ? null : Number(r.client_id) } : undefined;
}

export async function revokeTokenById(ex: Executor, id: number, now: number): Promise<void> {
  await ex
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Whether `userId` ever authorized the client (row id): an authorization code or an access token of
 * the pair is on record, used, expired or revoked alike (unexchanged codes are purged a day after
 * they expire).
 */
export async function hasAuthorizedClient(ex: Executor, clientRowId: number, userId: number): Promise<boolean> {
  const token = await ex
    .selectFrom('access_tokens')
    .select('id')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientRowId)
    .limit(1)
    .executeTakeFirst();
  if (token) return true;
  const code = await ex
    .selectFrom('oauth_codes')
    .select('id')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientRowId)
    .limit(1)
    .executeTakeFirst();
  return code !== undefined;
}
