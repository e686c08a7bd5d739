/**
 * OAuth 2 helpers for the authorization code flow with PKCE (api-v2.md "Authentication",
 * DECISIONS.md "OAuth 2", docs/api.md "OAuth 2"): the authorization URL with `state` and an S256
 * challenge, reading the redirect back, the code exchange and the revocation (RFC 7009).
 *
 * Nothing is stored here: `authorizationUrl` hands back the `state` and the `codeVerifier`, which
 * the application keeps (in its session, for instance) until the user comes back to its
 * redirect URI, and the token it gets from `exchangeCode` is the application's to keep.
 *
 * Uses the Web Crypto API (`globalThis.crypto`: Node 20+, every browser) and `btoa`.
 */
import type { Client } from 'openapi-fetch';
import type { components, paths } from './openapi.ts';
import { errorFromResponse, TipjarError } from './errors.ts';

/** The scopes of api-v2.md "Authentication" 7. */
export type Scope = 'tip' | 'thing' | 'extendedread';

/** The token response (api-v2.md "Authentication" 5; `scope` per DECISIONS.md "OAuth 2"). */
export type OAuthToken = components['schemas']['OAuthToken'];
/** Authorization server metadata (RFC 8414), `GET /.well-known/oauth-authorization-server`. */
export type OAuthMetadata = components['schemas']['OAuthMetadata'];

/** A registered client application's credentials (api-v2.md "Authentication" 2). */
export interface ClientCredentials {
  /** the application's client id */
  clientId: string;
  /** the application's client secret: keep it on a server, never in a browser */
  clientSecret: string;
}

/** What `authorizationUrl` needs. */
export interface AuthorizationRequest {
  clientId: string;
  /** where the user comes back; in the application's callback domain (api-v2.md "Authentication" 2) */
  redirectUri?: string;
  /** the scopes asked for: an array, or a space-separated string; none by default */
  scope?: readonly Scope[] | string;
  /** the `state` to send; a random one (128 bits, base64url) by default */
  state?: string;
}

/** The authorization URL and what the application must keep until the user comes back. */
export interface Authorization {
  /** send the user's browser here (`{auth_url}/oauth/authorize?…`) */
  url: string;
  /** the `state` sent: compare it with the one on the redirect (`callbackCode` does) */
  state: string;
  /** the PKCE code verifier (RFC 7636): give it to `exchangeCode` */
  codeVerifier: string;
}

/** What `exchangeCode` needs. */
export interface CodeExchange extends ClientCredentials {
  /** the `code` from the redirect */
  code: string;
  /** the same `redirect_uri` as in the authorization request, when it carried one */
  redirectUri?: string;
  /** the PKCE code verifier returned by `authorizationUrl` */
  codeVerifier?: string;
}

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A random string of `bytes` random bytes in base64url (32 bytes: 43 characters). */
function randomString(bytes: number): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * A PKCE pair (RFC 7636 §4.1–4.2): a verifier of 43 base64url characters (32 random bytes) and
 * its S256 challenge, `BASE64URL(SHA-256(verifier))`.
 */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomString(32);
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/** `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1). */
function basic({ clientId, clientSecret }: ClientCredentials): string {
  const encode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${btoa(`${encode(clientId)}:${encode(clientSecret)}`)}`;
}

/** The OAuth endpoints of one authorization server (`{auth_url}`). */
export class OAuth {
  readonly #authUrl: string;
  readonly #api: Client<paths, `application/json${string}`>;

  /** @internal made by `Tipjar`: `tipjar.oauth` */
  constructor(authUrl: string, api: Client<paths, `application/json${string}`>) {
    this.#authUrl = authUrl;
    this.#api = api;
  }

  /**
   * The address to send the user to: `{auth_url}/oauth/authorize` with `response_type=code`,
   * `client_id`, `redirect_uri`, `scope`, `state` and a PKCE S256 challenge (api-v2.md
   * "Authentication" 3; DECISIONS.md "OAuth 2"). Keep the returned `state` and `codeVerifier`
   * until the user comes back.
   */
  async authorizationUrl(request: AuthorizationRequest): Promise<Authorization> {
    const state = request.state ?? randomString(16);
    const { verifier, challenge } = await pkcePair();
    const query = new URLSearchParams({ response_type: 'code', client_id: request.clientId });
    if (request.redirectUri !== undefined) query.set('redirect_uri', request.redirectUri);
    const scope = typeof request.scope === 'string' ? request.scope : (request.scope ?? []).join(' ');
    if (scope !== '') query.set('scope', scope);
    query.set('state', state);
    query.set('code_challenge', challenge);
    query.set('code_challenge_method', 'S256');
    return { url: `${this.#authUrl}/oauth/authorize?${query}`, state, codeVerifier: verifier };
  }

  /**
   * The `code` of the redirect the user came back with (api-v2.md "Authentication" 3), after
   * checking that its `state` is the one sent.
   * @param callbackUrl the full URL the user's browser was sent to (with its query)
   * @param state the `state` returned by `authorizationUrl`
   * @throws TipjarError with status 0 and code `state_mismatch` when the state differs; with
   *   the redirect's `error` (`access_denied` when the user denied, `invalid_scope`, …) and
   *   `error_description` when the authorization failed; `invalid_request` when there is no code
   */
  callbackCode(callbackUrl: string | URL, state: string): string {
    const query = new URL(callbackUrl).searchParams;
    if (query.get('state') !== state) {
      throw new TipjarError({
        status: 0,
        code: 'state_mismatch',
        description: 'The state of the redirect is not the one sent with the authorization request',
      });
    }
    const error = query.get('error');
    if (error !== null) {
      throw new TipjarError({
        status: 0,
        code: error,
        description: query.get('error_description') ?? error,
        uri: query.get('error_uri') ?? undefined,
      });
    }
    const code = query.get('code');
    if (code === null || code === '') {
      throw new TipjarError({ status: 0, code: 'invalid_request', description: 'The redirect carries no code' });
    }
    return code;
  }

  /**
   * Exchanges an authorization code for an access token: `POST {auth_url}/oauth/token` with HTTP
   * Basic client authentication and the JSON body `{grant_type: "authorization_code", code,
   * redirect_uri, code_verifier}` (api-v2.md "Authentication" 4–5; RFC 6749 §4.1.3, RFC 7636 §4.5).
   * Run it where the client secret may be (a server).
   * @returns `{access_token, token_type: "bearer", scope}`
   * @throws TipjarError `invalid_grant` (unknown, used or expired code, another redirect_uri,
   *   a wrong verifier), `invalid_client` (401: wrong credentials), `invalid_request`;
   *   RateLimitError (429, `retryAfter`) after too many failed client authentications
   */
  async exchangeCode(exchange: CodeExchange): Promise<OAuthToken> {
    const body: { grant_type: 'authorization_code'; code: string; redirect_uri?: string; code_verifier?: string } = {
      grant_type: 'authorization_code',
      code: exchange.code,
    };
    if (exchange.redirectUri !== undefined) body.redirect_uri = exchange.redirectUri;
    if (exchange.codeVerifier !== undefined) body.code_verifier = exchange.codeVerifier;
    const { data, error, response } = await this.#api.POST('/oauth/token', {
      baseUrl: this.#authUrl,
      headers: { Authorization: basic(exchange) },
      body,
    });
    if (!response.ok || data === undefined) throw errorFromResponse(response, error);
    return data;
  }

  /**
   * Revokes an access token the client was issued: `POST {auth_url}/oauth/revoke` (RFC 7009) with
   * HTTP Basic client authentication. Succeeds too when the token is unknown, already revoked or
   * another client's (left alone), as RFC 7009 §2.2 asks (docs/api.md "OAuth 2").
   * @throws TipjarError `invalid_client` (401), `invalid_request`; RateLimitError (429)
   */
  async revoke(credentials: ClientCredentials & { token: string }): Promise<void> {
    const { error, response } = await this.#api.POST('/oauth/revoke', {
      baseUrl: this.#authUrl,
      headers: { Authorization: basic(credentials) },
      body: { token: credentials.token },
    });
    if (!response.ok) throw errorFromResponse(response, error);
  }

  /**
   * The authorization server's metadata (RFC 8414): its endpoints, scopes, and
   * `code_challenge_methods_supported` (`S256`).
   */
  async metadata(): Promise<OAuthMetadata> {
    const { data, error, response } = await this.#api.GET('/.well-known/oauth-authorization-server', {
      baseUrl: this.#authUrl,
    });
    if (!response.ok || data === undefined) throw errorFromResponse(response, error);
    return data;
  }
}
