/**
 * The authorization endpoint's domain half, `GET {auth_url}/oauth/authorize` (api-v2.md
 * "Authentication" 3, DECISIONS.md "OAuth 2", RFC 6749 §4.1.1–§4.1.2.1 and §4.2, RFC 7636).
 * The website renders the log-in and consent pages around these three calls:
 *   1. `validateAuthorizationRequest(s, query)` → an `AuthorizationRequest`, or throws an
 *      `AuthorizationRequestError` that says whether it may be redirected to the client;
 *   2. `approveAuthorization(s, request, userId)` → the URL to send the browser to (code or token);
 *   3. `denyAuthorization(request)` → the URL carrying `error=access_denied`.
 */
import { hashSecret, newSecret } from '../secrets.ts';
import {
  deleteUnusedExpiredCodes,
  hasAuthorizedClient,
  insertCode,
  isClientLive,
  type ClientRecord,
} from '../../db/repositories/oauth.ts';
import { findUserById } from '../../db/repositories/users.ts';
import { queueNotice } from '../../domain/mail.ts';
import { insertAccessToken } from '../../db/repositories/tokens.ts';
import { inTransaction } from '../../db/transaction.ts';
import { isScope, parseScopes, type Scope } from '../../domain/scopes.ts';
import type { Services } from '../../domain/services.ts';
import { findClientByClientId } from './clients.ts';
import { OAuthError, type OAuthErrorCode } from './errors.ts';
import { chooseRedirectUri } from './redirect.ts';

/** Lifetime of an authorization code, in seconds (10 minutes; DECISIONS.md "OAuth 2"). */
export const AUTHORIZATION_CODE_TTL = 600;

/** The one PKCE method honoured (RFC 7636 §4.2); `plain` is refused. */
export const CODE_CHALLENGE_METHODS = ['S256'] as const;

/** Each scope in plain words, for the consent page. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  tip: 'Tip things and manage your subscriptions for you (tips spend your monthly budget)',
  thing: 'Register, change and delete things in your name',
  extendedread: 'See your e-mail address and registration date',
};

/** A validated authorization request: everything the consent page and the approval need. */
export interface AuthorizationRequest {
  client: ClientRecord;
  /** where the answer goes: the given redirect_uri, or without one the client's only registered redirect URI or else the callback domain's root */
  redirectUri: string;
  /** true when the request carried redirect_uri (the token request must then repeat it, RFC 6749 §4.1.3) */
  redirectUriGiven: boolean;
  responseType: 'code' | 'token';
  /** requested scopes, de-duplicated, in the order given; may be empty */
  scopes: Scope[];
  /** returned to the client unchanged */
  state: string | undefined;
  /** PKCE challenge (base64url SHA-256 of the verifier, 43 characters) or null */
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | null;
}

/**
 * A refused authorization request (RFC 6749 §4.1.2.1). When `redirectUrl` is set, the browser must
 * be redirected there (the error, `error_description` and `state` ride in the query, or in the
 * fragment for `response_type=token`); when it is undefined (unknown client, bad redirect_uri),
 * the error must be shown on an error page and never redirected.
 */
export class AuthorizationRequestError extends OAuthError {
  constructor(
    error: OAuthErrorCode,
    description: string,
    /** the URL to redirect to; undefined → show an error page (status 400) */
    readonly redirectUrl: string | undefined,
  ) {
    super(error, description, 400);
  }

  /** True when the error must be shown to the user instead of redirected to the client. */
  get redirectable(): boolean {
    return this.redirectUrl !== undefined;
  }
}

type Param = { value: string | undefined; duplicated: boolean };

/** One parameter: arrays mean it was repeated; empty values count as absent (RFC 6749 §3.1). */
function param(query: Record<string, unknown>, name: string): Param {
  const v = query[name];
  if (Array.isArray(v)) {
    const given = v.filter((x) => x !== '');
    if (given.length > 1) return { value: undefined, duplicated: true };
    return { value: typeof given[0] === 'string' ? given[0] : undefined, duplicated: false };
  }
  if (typeof v !== 'string' || v === '') return { value: undefined, duplicated: false };
  return { value: v, duplicated: false };
}

/** Appends parameters to a redirect URI, in its query (code flow) or fragment (token flow). */
function withParams(
  redirectUri: string,
  params: Record<string, string | undefined>,
  mode: 'query' | 'fragment',
): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) p.append(k, v);
  if (mode === 'fragment') return `${redirectUri}#${p.toString()}`;
  return `${redirectUri}${redirectUri.includes('?') ? (/[?&]$/.test(redirectUri) ? '' : '&') : '?'}${p.toString()}`;
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Validates an authorization request's query (Fastify's parsed query: repeated keys as arrays).
 * Order of checks (RFC 6749 §4.1.2.1): `client_id` (missing, repeated → `invalid_request`;
 * unknown or deleted → `invalid_client`) and `redirect_uri` (repeated, not in the callback domain,
 * not https, with a fragment or a reserved response parameter in its query, not one of the
 * client's registered redirect URIs, or missing while it registered several → `invalid_request`;
 * see chooseRedirectUri) fail on an error page; then, redirected to the
 * client with `state`: `response_type` missing or repeated → `invalid_request`, other than
 * `code`/`token` → `unsupported_response_type`; repeated `state`/`scope` → `invalid_request`; an
 * unknown scope (space- or comma-separated) → `invalid_scope`; PKCE: `code_challenge_method` other
 * than `S256` (including `plain` and a challenge without a method), a challenge that is not 43
 * base64url characters, or PKCE with `response_type=token` → `invalid_request`.
 * @returns the validated request. Reads only; changes nothing.
 * @throws AuthorizationRequestError
 */
export async function validateAuthorizationRequest(
  s: Services,
  query: Record<string, unknown>,
): Promise<AuthorizationRequest> {
  const page = (error: OAuthErrorCode, description: string) =>
    new AuthorizationRequestError(error, description, undefined);

  const clientId = param(query, 'client_id');
  if (clientId.duplicated) throw page('invalid_request', 'client_id was given more than once');
  if (clientId.value === undefined) throw page('invalid_request', 'client_id is required');
  const client = await findClientByClientId(s, clientId.value);
  if (!client) throw page('invalid_client', 'No application has this client_id (it may have been deleted)');

  const redirect = param(query, 'redirect_uri');
  if (redirect.duplicated) throw page('invalid_request', 'redirect_uri was given more than once');
  const chosen = chooseRedirectUri(client, redirect.value);
  if (!chosen.ok) throw page('invalid_request', chosen.reason);
  const redirectUri = chosen.redirectUri;

  // From here on, errors go back to the client (RFC 6749 §4.1.2.1, §4.2.2.1).
  const responseType = param(query, 'response_type');
  const state = param(query, 'state');
  const stateValue = state.duplicated ? undefined : state.value;
  const mode = responseType.value === 'token' && !responseType.duplicated ? 'fragment' : 'query';
  const back = (error: OAuthErrorCode, description: string) =>
    new AuthorizationRequestError(
      error,
      description,
      withParams(redirectUri, { error, error_description: description, state: stateValue }, mode),
    );

  if (responseType.duplicated) throw back('invalid_request', 'response_type was given more than once');
  if (responseType.value === undefined) throw back('invalid_request', 'response_type is required (code or token)');
  if (responseType.value !== 'code' && responseType.value !== 'token') {
    throw back('unsupported_response_type', 'response_type must be code or token');
  }
  if (state.duplicated) throw back('invalid_request', 'state was given more than once');

  const scope = param(query, 'scope');
  if (scope.duplicated) throw back('invalid_request', 'scope was given more than once');
  const requested = parseScopes(scope.value ?? '');
  const unknown = requested.filter((sc) => !isScope(sc));
  if (unknown.length)
    throw back('invalid_scope', `Unknown scope "${unknown[0]}" (scopes are tip, thing and extendedread)`);

  const challenge = param(query, 'code_challenge');
  const method = param(query, 'code_challenge_method');
  if (challenge.duplicated) throw back('invalid_request', 'code_challenge was given more than once');
  if (method.duplicated) throw back('invalid_request', 'code_challenge_method was given more than once');
  if (challenge.value !== undefined || method.value !== undefined) {
    if (responseType.value === 'token')
      throw back('invalid_request', 'PKCE (code_challenge) applies to response_type=code only');
    if (challenge.value === undefined)
      throw back('invalid_request', 'code_challenge is required with code_challenge_method');
    if (method.value !== 'S256') {
      throw back('invalid_request', 'code_challenge_method must be S256 (plain is not supported)');
    }
    if (!S256_CHALLENGE.test(challenge.value)) {
      throw back(
        'invalid_request',
        'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)',
      );
    }
  }

  return {
    client,
    redirectUri,
    redirectUriGiven: chosen.given,
    responseType: responseType.value,
    scopes: requested as Scope[],
    state: stateValue,
    codeChallenge: challenge.value ?? null,
    codeChallengeMethod: challenge.value !== undefined ? 'S256' : null,
  };
}

/**
 * The user approved: issues the grant and returns the URL to redirect the browser to.
 * Code flow (RFC 6749 §4.1.2): a random code, stored hashed in oauth_codes, valid 10 minutes, single
 * use, bound to the client, the redirect URI (and whether it was given) and the PKCE challenge →
 * `redirect_uri?code=…&state=…`. Token flow (§4.2.2): an access token (access_tokens row with the
 * client set, no expiry) → `redirect_uri#access_token=…&token_type=bearer&scope=…&state=…`.
 * The first time a user authorizes a client (no code or token of the pair on record), the
 * `application_authorized` notice (client name, scopes) is queued in the same transaction;
 * re-authorizing the same client queues nothing.
 * @param userId the logged-in user (users.id) who approved.
 * @throws AuthorizationRequestError `invalid_client` (not redirectable) when the client was deleted
 *   after the request was validated.
 */
export async function approveAuthorization(
  s: Services,
  request: AuthorizationRequest,
  userId: number,
): Promise<string> {
  const scope = request.scopes.join(' ');
  const now = s.clock.now();
  const mode = request.responseType === 'token' ? 'fragment' : 'query';
  const secret = newSecret();
  await inTransaction(s.database, async (trx) => {
    if (!(await isClientLive(trx, request.client.id, s.database.engine === 'postgres')))
      throw new AuthorizationRequestError('invalid_client', 'The application has been deleted', undefined);
    if (!(await hasAuthorizedClient(trx, request.client.id, userId))) {
      const user = await findUserById(trx, userId);
      if (user)
        await queueNotice(trx, {
          kind: 'application_authorized',
          user,
          params: { application: request.client.name, scopes: scope },
          now,
          siteUrl: s.siteUrl,
        });
    }
    if (request.responseType === 'code') {
      await insertCode(trx, {
        codeHash: hashSecret(secret),
        clientId: request.client.id,
        userId,
        redirectUri: request.redirectUri,
        redirectUriGiven: request.redirectUriGiven,
        scope,
        codeChallenge: request.codeChallenge,
        codeChallengeMethod: request.codeChallengeMethod,
        now,
        expiresAt: now + AUTHORIZATION_CODE_TTL,
      });
    } else {
      await insertAccessToken(trx, {
        tokenHash: hashSecret(secret),
        userId,
        clientId: request.client.id,
        codeId: null,
        scope,
        now,
      });
    }
  });
  if (request.responseType === 'code')
    return withParams(request.redirectUri, { code: secret, state: request.state }, mode);
  return withParams(
    request.redirectUri,
    { access_token: secret, token_type: 'bearer', scope, state: request.state },
    mode,
  );
}

/**
 * The user denied: the URL that tells the client so (RFC 6749 §4.1.2.1 `access_denied`), with
 * `state`; in the fragment for `response_type=token`. Changes nothing.
 */
export function denyAuthorization(request: AuthorizationRequest): string {
  const error = 'access_denied';
  return withParams(
    request.redirectUri,
    { error, error_description: 'The user denied the request', state: request.state },
    request.responseType === 'token' ? 'fragment' : 'query',
  );
}

/**
 * Deletes the authorization codes never exchanged that expired over `retentionSeconds` ago (by the
 * service clock); used codes stay (their tokens point at them). The scheduler calls it.
 * @returns how many were deleted.
 */
export async function purgeExpiredCodes(s: Services, retentionSeconds: number): Promise<number> {
  return deleteUnusedExpiredCodes(s.database.db, s.clock.now() - retentionSeconds);
}
