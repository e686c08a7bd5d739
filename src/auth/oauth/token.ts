/**
 * The token endpoint's domain half, `POST {auth_url}/oauth/token` (api-v2.md "Authentication" 4–5,
 * DECISIONS.md "OAuth 2", RFC 6749 §2.3.1, §4.1.3, §5.1–5.2, RFC 7636 §4.5–4.6), and token
 * revocation, `POST {auth_url}/oauth/revoke` (RFC 7009). Written over the RFCs rather than with
 * @node-oauth/oauth2-server: see docs/adr/0009-oauth-server.md.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { hashSecret, newSecret } from '../secrets.ts';
import {
  claimCode,
  findCodeByHash,
  findLiveTokenByHash,
  isClientLive,
  revokeCodeTokens,
  revokeTokenById,
  type ClientRecord,
} from '../../db/repositories/oauth.ts';
import { insertAccessToken } from '../../db/repositories/tokens.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Services } from '../../domain/services.ts';
import type { FailureLimits } from '../../ratelimit/failures.ts';
import { authenticateClient } from './clients.ts';
import { hasControlCharacters } from '../../domain/input.ts';
import { clientIdKey } from './client-auth-limits.ts';
import { OAuthError } from './errors.ts';

/** The challenge sent with a 401 `invalid_client` (RFC 6749 §5.2). */
export const BASIC_CHALLENGE = 'Basic realm="tipjar", charset="UTF-8"';

/** The grant types the token endpoint accepts. */
export const GRANT_TYPES = ['authorization_code'] as const;

/** The successful token response body (RFC 6749 §5.1; DECISIONS.md adds `scope`). */
export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  /** the granted scopes, space-separated (may be empty) */
  scope: string;
}

/** What the endpoints receive from HTTP: the Authorization header, the parsed body, the client IP. */
export interface EndpointInput {
  authorization: string | undefined;
  /** JSON object or form fields (repeated form fields as arrays); anything else is refused */
  body: unknown;
  /** the client's address as the server sees it (TRUST_PROXY): failed authentications count per IP */
  ip: string;
}

type Params = Record<string, string | undefined>;

/**
 * Reads the named parameters from a request body. RFC 6749 §3.2: a parameter may appear once;
 * empty values count as absent. @throws OAuthError `invalid_request` (not an object, repeated or
 * non-string parameter).
 */
function readParams(body: unknown, names: readonly string[]): Params {
  if (body === undefined) body = {};
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new OAuthError('invalid_request', 'The request body must be a JSON object or form fields');
  const b = body as Record<string, unknown>;
  const out: Params = {};
  for (const name of names) {
    const v = b[name];
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) throw new OAuthError('invalid_request', `${name} was given more than once`);
    if (typeof v !== 'string') throw new OAuthError('invalid_request', `${name} must be a string`);
    out[name] = v;
  }
  return out;
}

/** Decodes one `application/x-www-form-urlencoded` component (RFC 6749 §2.3.1). */
function formDecode(s: string): string {
  return decodeURIComponent(s.replace(/\+/g, ' '));
}

/**
 * Parses `Authorization: Basic base64(urlencode(client_id) ":" urlencode(client_secret))`
 * (RFC 6749 §2.3.1, RFC 7617).
 * @returns the credentials, or undefined when the header is absent.
 * @throws OAuthError `invalid_client` 401 (another scheme, bad base64, no colon, bad encoding),
 *   `invalid_request` 400 (a control character or malformed text in the decoded credentials).
 */
export function parseBasicCredentials(
  header: string | undefined,
): { clientId: string; clientSecret: string } | undefined {
  if (header === undefined) return undefined;
  const fail = (why: string) => new OAuthError('invalid_client', why, 401, BASIC_CHALLENGE);
  const m = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!m) throw fail('Client authentication must use HTTP Basic: "Basic base64(client_id:client_secret)"');
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw fail('The Basic credentials must be client_id:client_secret');
  let credentials: { clientId: string; clientSecret: string };
  try {
    credentials = { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw fail('The Basic credentials are not correctly URL-encoded');
  }
  if (hasControlCharacters(credentials.clientId) || hasControlCharacters(credentials.clientSecret)) {
    throw new OAuthError('invalid_request', 'The Basic credentials hold a control character or malformed text');
  }
  return credentials;
}

/**
 * Checks a presented client secret within the limits on failed client authentications
 * (client-auth-limits.ts): the attempt is counted before the check, a right secret starts the
 * (client_id, IP) count again, a wrong one (or an unknown client_id) stays counted.
 * @returns the live client, or undefined when the client_id or secret is wrong.
 * @throws OAuthError 429 `invalid_request` with `retryAfter` (seconds) when the (client_id, IP)
 *   or the IP is over its limit: the secret is not checked.
 */
async function checkClientSecret(
  s: Services,
  clientId: string,
  secret: string,
  ip: string,
  limits: FailureLimits,
): Promise<ClientRecord | undefined> {
  const account = clientIdKey(clientId);
  const wait = await limits.attempt(account, ip);
  if (wait > 0) {
    throw new OAuthError(
      'invalid_request',
      `Too many failed client authentications from this address; try again in ${wait} seconds`,
      429,
      undefined,
      wait,
    );
  }
  let client: ClientRecord | undefined;
  try {
    client = await authenticateClient(s, clientId, secret);
  } catch (err) {
    await limits.undecided(account, ip);
    throw err;
  }
  if (client) await limits.succeeded(account, ip);
  return client;
}

/**
 * Authenticates the client of a token or revocation request: HTTP Basic, or `client_id` and
 * `client_secret` in the body, never both (RFC 6749 §2.3: one method per request). The secret is
 * checked within the limits on failed client authentications (checkClientSecret).
 * @returns the live client.
 * @throws OAuthError `invalid_request` (Basic and a body `client_secret`, or a body `client_id`
 *   differing from the Basic one; 429 when over the failure limits); `invalid_client` — 401 with
 *   `WWW-Authenticate: Basic` when Basic was used or no credentials were sent at all, 400 when
 *   body credentials are wrong.
 */
export async function authenticateRequestClient(
  s: Services,
  authorization: string | undefined,
  params: Params,
  ip: string,
  limits: FailureLimits,
): Promise<ClientRecord> {
  const basic = parseBasicCredentials(authorization);
  if (basic) {
    if (params.client_secret !== undefined)
      throw new OAuthError(
        'invalid_request',
        'Use one client authentication method: HTTP Basic or client_secret in the body, not both',
      );
    if (params.client_id !== undefined && params.client_id !== basic.clientId)
      throw new OAuthError('invalid_request', 'client_id in the body differs from the HTTP Basic one');
    const client = await checkClientSecret(s, basic.clientId, basic.clientSecret, ip, limits);
    if (!client)
      throw new OAuthError(
        'invalid_client',
        'Client authentication failed: unknown client or wrong secret',
        401,
        BASIC_CHALLENGE,
      );
    return client;
  }
  if (params.client_id === undefined && params.client_secret === undefined) {
    throw new OAuthError(
      'invalid_client',
      'Client authentication is required: HTTP Basic, or client_id and client_secret in the body',
      401,
      BASIC_CHALLENGE,
    );
  }
  if (params.client_id === undefined || params.client_secret === undefined) {
    throw new OAuthError('invalid_client', 'Both client_id and client_secret are required in the body');
  }
  const client = await checkClientSecret(s, params.client_id, params.client_secret, ip, limits);
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed: unknown client or wrong secret');
  return client;
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** base64url(SHA-256(verifier)) compared in constant time with the stored challenge (RFC 7636 §4.6). */
function verifierMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const stored = Buffer.from(challenge);
  return computed.length === stored.length && timingSafeEqual(computed, stored);
}

/**
 * Exchanges an authorization code for an access token (RFC 6749 §4.1.3), in one transaction.
 * The code must exist and belong to `client`; a code seen before is refused and every token issued
 * from it is revoked (§4.1.2, `access_tokens.code_id`); otherwise the code is consumed by this
 * attempt whatever follows (so a failed PKCE or redirect_uri check cannot be retried). Then: not
 * expired (10 minutes, `clock.now()` < `expires_at`); `redirect_uri` present when the
 * authorization request carried one, and identical to it whenever given; PKCE `code_verifier`
 * (43–128 unreserved characters) matching the S256 challenge, and absent when there was none.
 * @returns the token in clear (stored as a hash; no expiry; `client_id` and `code_id` set).
 * @throws OAuthError `invalid_client` (the client was deleted meanwhile), `invalid_request`
 *   (missing code, redirect_uri or code_verifier; malformed code_verifier), `invalid_grant` (unknown, other client's, reused or expired code; different
 *   redirect_uri; verifier mismatch or unexpected verifier).
 */
export async function exchangeAuthorizationCode(
  s: Services,
  client: ClientRecord,
  input: { code: string | undefined; redirectUri: string | undefined; codeVerifier: string | undefined },
): Promise<TokenResponse> {
  if (input.code === undefined) throw new OAuthError('invalid_request', 'code is required');
  const codeHash = hashSecret(input.code);
  const now = s.clock.now();
  const token = newSecret();
  const outcome = await inTransaction(s.database, async (trx): Promise<OAuthError | TokenResponse> => {
    // Re-checked (and, on PostgreSQL, share-locked) inside the transaction: a client deleted since
    // it authenticated gets no token, and a deletion running now waits and then revokes ours.
    if (!(await isClientLive(trx, client.id, s.database.engine === 'postgres')))
      return new OAuthError('invalid_client', 'The application has been deleted');
    const code = await findCodeByHash(trx, codeHash);
    if (!code || code.clientId !== client.id)
      return new OAuthError('invalid_grant', 'The authorization code is invalid');
    const claimed = code.usedAt === null ? await claimCode(trx, code.id, now) : undefined;
    if (!claimed) {
      await revokeCodeTokens(trx, code.id, now);
      return new OAuthError(
        'invalid_grant',
        'The authorization code has already been used; the tokens issued from it are revoked',
      );
    }
    if (now >= claimed.expiresAt)
      return new OAuthError('invalid_grant', 'The authorization code has expired (codes are valid for 10 minutes)');
    if (input.redirectUri === undefined && code.redirectUriGiven) {
      return new OAuthError('invalid_request', 'redirect_uri is required: the authorization request carried one');
    }
    if (input.redirectUri !== undefined && input.redirectUri !== code.redirectUri) {
      return new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request');
    }
    if (code.codeChallenge !== null) {
      if (input.codeVerifier === undefined)
        return new OAuthError(
          'invalid_request',
          'code_verifier is required: the authorization request carried a code_challenge',
        );
      if (!VERIFIER.test(input.codeVerifier))
        return new OAuthError('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~');
      if (!verifierMatches(input.codeVerifier, code.codeChallenge))
        return new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    } else if (input.codeVerifier !== undefined) {
      return new OAuthError(
        'invalid_grant',
        'code_verifier was sent but the authorization request carried no code_challenge',
      );
    }
    await insertAccessToken(trx, {
      tokenHash: hashSecret(token),
      userId: code.userId,
      clientId: client.id,
      codeId: code.id,
      scope: code.scope,
      now,
    });
    return { access_token: token, token_type: 'bearer', scope: code.scope };
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

/**
 * Handles a token request end to end: parameters (`grant_type`, `code`, `redirect_uri`,
 * `code_verifier`, `client_id`, `client_secret`), client authentication (within `limits`), then
 * the grant.
 * @returns `{access_token, token_type: "bearer", scope}`.
 * @throws OAuthError: `invalid_request` (malformed or repeated parameters, missing `grant_type`;
 *   429 over the failure limits), `invalid_client`, `unsupported_grant_type` (anything but
 *   `authorization_code`), and the errors of `exchangeAuthorizationCode`.
 */
export async function tokenRequest(s: Services, input: EndpointInput, limits: FailureLimits): Promise<TokenResponse> {
  const params = readParams(input.body, [
    'grant_type',
    'code',
    'redirect_uri',
    'code_verifier',
    'client_id',
    'client_secret',
  ]);
  const client = await authenticateRequestClient(s, input.authorization, params, input.ip, limits);
  if (params.grant_type === undefined)
    throw new OAuthError('invalid_request', 'grant_type is required (authorization_code)');
  if (params.grant_type !== 'authorization_code')
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code');
  return exchangeAuthorizationCode(s, client, {
    code: params.code,
    redirectUri: params.redirect_uri,
    codeVerifier: params.code_verifier,
  });
}

/**
 * Token revocation (RFC 7009 §2.1): an authenticated client revokes one of its own access tokens.
 * `token_type_hint` is optional and, with one token type, ignored. An unknown, already revoked, or
 * other client's token is answered like a success (§2.2) and changes nothing.
 * The client authenticates as at the token endpoint, within the same `limits`.
 * @throws OAuthError `invalid_request` (missing `token`, repeated parameters; 429 over the
 *   failure limits), `invalid_client`.
 */
export async function revokeRequest(s: Services, input: EndpointInput, limits: FailureLimits): Promise<void> {
  const params = readParams(input.body, ['token', 'token_type_hint', 'client_id', 'client_secret']);
  const client = await authenticateRequestClient(s, input.authorization, params, input.ip, limits);
  if (params.token === undefined) throw new OAuthError('invalid_request', 'token is required');
  const tokenHash = hashSecret(params.token);
  const found = await findLiveTokenByHash(s.database.db, tokenHash);
  if (found && found.clientId === client.id) await revokeTokenById(s.database.db, found.id, s.clock.now());
}
