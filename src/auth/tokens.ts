/** Issuing and resolving bearer tokens (api-v2.md "Authentication"). */
import { hashSecret, newSecret } from './secrets.ts';
import { findPrincipalByTokenHash, insertAccessToken } from '../db/repositories/tokens.ts';
import { InvalidScopeError } from '../domain/errors.ts';
import type { Principal } from '../domain/records.ts';
import { isScope, parseScopes } from '../domain/scopes.ts';
import type { Services } from '../domain/services.ts';
import { getUser } from '../domain/users.ts';

/**
 * Issues an access token for a user, as the operator command does.
 * @param scopes space- or comma-separated; each must be `tip`, `thing` or `extendedread`.
 * @returns the token in clear: shown once, stored only as a hash.
 * @throws NotFoundError (user), InvalidScopeError.
 */
export async function issueToken(
  s: Services,
  username: string,
  scopes: string,
  clientId: number | null = null,
): Promise<string> {
  const list = parseScopes(scopes);
  for (const sc of list) if (!isScope(sc)) throw new InvalidScopeError(sc);
  const user = await getUser(s, username);
  const token = newSecret();
  await insertAccessToken(s.database.db, {
    tokenHash: hashSecret(token),
    userId: user.id,
    clientId,
    codeId: null,
    scope: list.join(' '),
    now: s.clock.now(),
  });
  return token;
}

/** The principal behind a bearer token, or undefined when the token is unknown or revoked. */
export async function resolveToken(s: Services, token: string): Promise<Principal | undefined> {
  return findPrincipalByTokenHash(s.database.db, hashSecret(token));
}
