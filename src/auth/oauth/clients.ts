/**
 * Client applications of the OAuth 2 authorization server (api-v2.md "Authentication" 2,
 * DECISIONS.md "OAuth 2"): registration with a name, a callback domain and optionally exact
 * redirect URIs (RFC 9700 §2.1), a secret shown once and stored hashed, rotation, changing the
 * redirect URIs, soft deletion, and what a user has authorized.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { hashSecret, newSecret } from '../secrets.ts';
import { inTransaction } from '../../db/transaction.ts';
import {
  expireUnusedCodes,
  findAuthorizedClients,
  findLiveClient,
  findLiveClientsByOwner,
  insertClient,
  markClientDeleted,
  revokeClientTokens,
  updateClientRedirectUris,
  updateClientSecret,
  type ClientRecord,
} from '../../db/repositories/oauth.ts';
import { checkRedirectUri, REDIRECT_URIS_MAX } from './redirect.ts';
import { findUserById } from '../../db/repositories/users.ts';
import { NotFoundError, ValidationError } from '../../domain/errors.ts';
import { hasForbiddenCharacters } from '../../domain/input.ts';
import type { Services } from '../../domain/services.ts';

export type { ClientRecord };

/** Longest client name, in characters. */
export const CLIENT_NAME_MAX = 100;

/** What a user has granted to one client: the union of its live tokens' scopes, Unix seconds. */
export interface AuthorizedApp {
  client: ClientRecord;
  scopes: string[];
  firstAuthorizedAt: number;
  lastAuthorizedAt: number;
  /** live tokens of this user for this client */
  tokens: number;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * Normalises a callback domain: a host name (letters, digits, hyphens in dot-separated labels;
 * international names are converted to their `xn--` form), `localhost`, or an IPv4 address; no
 * scheme, port, path, user info or trailing dot. Returned lower-case.
 * @throws ValidationError
 */
export function normalizeCallbackDomain(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '')
    throw new ValidationError('callback_domain is required', 'authentication');
  const value = raw.trim();
  if (/[/:@?#\\\s]/.test(value)) {
    throw new ValidationError(
      'callback_domain must be a host name such as "app.example.com", without scheme, port or path',
      'authentication',
    );
  }
  const lower = value.toLowerCase();
  const ascii = domainToASCII(lower);
  // An ASCII name must come back unchanged: the WHATWG parser would turn "1.2.3" or "0x7f.1" into
  // dotted-quad addresses, which are not what the developer typed.
  if (!ascii || ascii.length > 253 || (/^[\x00-\x7f]*$/.test(lower) && ascii !== lower))
    throw new ValidationError(`callback_domain "${value}" is not a valid host name`, 'authentication');
  if (IPV4.test(ascii)) return ascii;
  const labels = ascii.split('.');
  if (!labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1]!)) {
    throw new ValidationError(`callback_domain "${value}" is not a valid host name`, 'authentication');
  }
  return ascii;
}

/** A client name: 1–100 characters after trimming, no control characters. @throws ValidationError */
export function normalizeClientName(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new ValidationError('name is required', 'authentication');
  const name = raw.trim();
  if ([...name].length > CLIENT_NAME_MAX)
    throw new ValidationError(`name must be at most ${CLIENT_NAME_MAX} characters`, 'authentication');
  if (hasForbiddenCharacters(name) || /[\u0000-\u001f\u007f]/.test(name))
    throw new ValidationError('name must not contain control characters', 'authentication');
  return name;
}

/**
 * The exact redirect URIs a client registers (RFC 9700 §2.1): an array of strings, or one string
 * holding them separated by white space or new lines (a form's text area). Each is trimmed and must
 * pass checkRedirectUri for `callbackDomain` (https in the domain, no fragment, no reserved
 * response parameter, …); empty entries and repeats are dropped; at most REDIRECT_URIS_MAX remain.
 * Absent (undefined, null) → none.
 * @returns the URIs, exactly as given otherwise, in order.
 * @throws ValidationError naming the first URI refused and why, or the count.
 */
export function normalizeRedirectUris(raw: unknown, callbackDomain: string): string[] {
  if (raw === undefined || raw === null) return [];
  let parts: unknown[];
  if (typeof raw === 'string') parts = raw.split(/\s+/);
  else if (Array.isArray(raw)) parts = raw;
  else throw new ValidationError('redirect_uris must be a list of URIs', 'authentication');
  const out: string[] = [];
  for (const p of parts) {
    if (typeof p !== 'string') throw new ValidationError('redirect_uris must be a list of URIs', 'authentication');
    const uri = p.trim();
    if (uri === '' || out.includes(uri)) continue;
    const check = checkRedirectUri({ callbackDomain }, uri);
    if (!check.ok)
      throw new ValidationError(`Redirect URI ${JSON.stringify(uri)} refused: ${check.reason}`, 'authentication');
    out.push(uri);
  }
  if (out.length > REDIRECT_URIS_MAX)
    throw new ValidationError(`At most ${REDIRECT_URIS_MAX} redirect URIs`, 'authentication');
  return out;
}

/** A new public client identifier: 20 random bytes as 40 lower-case hex characters. */
function newClientId(): string {
  return randomBytes(20).toString('hex');
}

/**
 * Registers a client application.
 * @param input.redirectUris optional exact redirect URIs (see normalizeRedirectUris); when any are
 *   registered, only they are accepted as `redirect_uri` (RFC 9700 §4.1.3).
 * @param input.ownerUserId the user who registers it on the website, or null (operator command).
 * @returns the client, its public `clientId`, and `clientSecret` in clear: shown once, stored as a
 *   SHA-256 hash only.
 * @throws ValidationError (name, callback domain, redirect URIs), NotFoundError (owner).
 */
export async function createClient(
  s: Services,
  input: { name: unknown; callbackDomain: unknown; redirectUris?: unknown; ownerUserId: number | null },
): Promise<{ client: ClientRecord; clientId: string; clientSecret: string }> {
  const name = normalizeClientName(input.name);
  const callbackDomain = normalizeCallbackDomain(input.callbackDomain);
  const redirectUris = normalizeRedirectUris(input.redirectUris, callbackDomain);
  if (input.ownerUserId !== null && !(await findUserById(s.database.db, input.ownerUserId)))
    throw new NotFoundError('No such user');
  const clientSecret = newSecret();
  const client = await insertClient(s.database.db, {
    clientId: newClientId(),
    secretHash: hashSecret(clientSecret),
    name,
    callbackDomain,
    redirectUris,
    ownerUserId: input.ownerUserId,
    now: s.clock.now(),
  });
  return { client, clientId: client.clientId, clientSecret };
}

/** The live (not deleted) client with this public client id, or undefined. */
export async function findClientByClientId(s: Services, clientId: string): Promise<ClientRecord | undefined> {
  if (typeof clientId !== 'string' || clientId === '' || clientId.length > 200) return undefined;
  return findLiveClient(s.database.db, clientId);
}

/** The live client, checking ownership when `ownerUserId` is given. @throws NotFoundError */
async function ownedClient(s: Services, clientId: string, ownerUserId: number | undefined): Promise<ClientRecord> {
  const client = await findClientByClientId(s, clientId);
  if (!client || (ownerUserId !== undefined && client.ownerUserId !== ownerUserId))
    throw new NotFoundError('No such application', 'authentication');
  return client;
}

/**
 * Replaces a client's secret; the old one stops working at once (tokens already issued stay valid).
 * @param ownerUserId when given, the client must belong to this user (website); omitted → operator.
 * @returns the new secret in clear, shown once.
 * @throws NotFoundError (unknown, deleted or not owned).
 */
export async function rotateClientSecret(
  s: Services,
  clientId: string,
  ownerUserId?: number,
): Promise<{ clientId: string; clientSecret: string }> {
  const client = await ownedClient(s, clientId, ownerUserId);
  const clientSecret = newSecret();
  await updateClientSecret(s.database.db, client.id, hashSecret(clientSecret), s.clock.now());
  return { clientId: client.clientId, clientSecret };
}

/**
 * Replaces a client's exact redirect URIs (see normalizeRedirectUris); an empty list removes them,
 * so the callback-domain rule alone applies again. Codes already issued keep the redirect URI they
 * were bound to.
 * @param ownerUserId when given, the client must belong to this user (website); omitted → operator.
 * @returns the client as changed.
 * @throws ValidationError (a URI refused, too many), NotFoundError (unknown, deleted or not owned).
 */
export async function setClientRedirectUris(
  s: Services,
  clientId: string,
  raw: unknown,
  ownerUserId?: number,
): Promise<ClientRecord> {
  const client = await ownedClient(s, clientId, ownerUserId);
  const redirectUris = normalizeRedirectUris(raw, client.callbackDomain);
  const now = s.clock.now();
  if (!(await updateClientRedirectUris(s.database.db, client.id, redirectUris, now)))
    throw new NotFoundError('No such application', 'authentication');
  return { ...client, redirectUris, updatedAt: now };
}

/**
 * Deletes a client (soft delete) and, in the same transaction, revokes every token issued to it:
 * they stop working on every endpoint; its unused codes can no longer be exchanged (the client
 * cannot authenticate).
 * @param ownerUserId when given, the client must belong to this user.
 * @returns the number of tokens revoked.
 * @throws NotFoundError (unknown, already deleted or not owned).
 */
export async function deleteClient(
  s: Services,
  clientId: string,
  ownerUserId?: number,
): Promise<{ revokedTokens: number }> {
  const client = await ownedClient(s, clientId, ownerUserId);
  const now = s.clock.now();
  return inTransaction(s.database, async (trx) => {
    if (!(await markClientDeleted(trx, client.id, now)))
      throw new NotFoundError('No such application', 'authentication');
    return { revokedTokens: await revokeClientTokens(trx, client.id, now) };
  });
}

/**
 * True when `secret` is the client's current secret. Compares SHA-256 digests with
 * `timingSafeEqual` (constant time).
 */
export function verifyClientSecret(client: Pick<ClientRecord, 'secretHash'>, secret: string): boolean {
  if (typeof secret !== 'string') return false;
  const given = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(client.secretHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * The live client when `clientId` and `secret` match, undefined otherwise. An unknown client costs
 * the same hash and comparison as a known one.
 */
export async function authenticateClient(
  s: Services,
  clientId: string,
  secret: string,
): Promise<ClientRecord | undefined> {
  const client = await findClientByClientId(s, clientId);
  const ok = verifyClientSecret(client ?? { secretHash: '0'.repeat(64) }, secret);
  return client && ok ? client : undefined;
}

/** The live clients a user registered, oldest first (website "Your applications"). */
export async function listClientsOwnedBy(s: Services, userId: number): Promise<ClientRecord[]> {
  return findLiveClientsByOwner(s.database.db, userId);
}

/**
 * The live clients a user has granted live tokens to, with the union of those tokens' scopes and
 * the first/last grant times (Unix seconds), ordered by first grant (website "Authorized
 * applications").
 */
export async function listAuthorizedApps(s: Services, userId: number): Promise<AuthorizedApp[]> {
  return findAuthorizedClients(s.database.db, userId);
}

/**
 * Revokes every live token the user granted to a client (they stop working at once) and, in the
 * same transaction, expires the codes the user approved for it that were not exchanged yet (an
 * exchange after this gets `invalid_grant`).
 * @returns how many tokens were revoked (0 when none were live).
 * @throws NotFoundError when no live client has this id.
 */
export async function revokeAuthorization(
  s: Services,
  userId: number,
  clientId: string,
): Promise<{ revokedTokens: number }> {
  const client = await ownedClient(s, clientId, undefined);
  const now = s.clock.now();
  return inTransaction(s.database, async (trx) => {
    // Codes first: on PostgreSQL this waits for exchanges in flight, whose tokens are then revoked.
    await expireUnusedCodes(trx, client.id, userId, now);
    return { revokedTokens: await revokeClientTokens(trx, client.id, now, userId) };
  });
}
