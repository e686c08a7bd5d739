/**
 * Redirection URIs (RFC 6749 §3.1.2, RFC 9700 §2.1 and §4.1.3, DECISIONS.md "OAuth 2"): a client
 * may only be sent back to an address inside the callback domain it registered and, when it
 * registered exact redirect URIs, only to one of those.
 */
import type { ClientRecord } from '../../db/repositories/oauth.ts';

/** Hosts that may use plain `http` (a client running on the developer's own machine). */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1'];

/** Longest accepted redirect_uri, in characters. */
export const REDIRECT_URI_MAX = 2000;

/** Most exact redirect URIs one client may register. */
export const REDIRECT_URIS_MAX = 10;

/**
 * Parameters the authorization response adds to a redirect URI (RFC 6749 §4.1.2, §4.1.2.1, §4.2.2,
 * §4.2.2.1; RFC 9207 `iss`). A redirect URI whose query already carries one is refused: the client
 * would read two values, and a value planted in the URI could pass for the server's.
 */
export const RESERVED_RESPONSE_PARAMETERS: readonly string[] = [
  'code',
  'state',
  'error',
  'error_description',
  'error_uri',
  'access_token',
  'token_type',
  'expires_in',
  'scope',
  'iss',
];

export type RedirectCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Checks a `redirect_uri` against a client's callback domain: an absolute `https` URL (plain `http`
 * only for `localhost` and `127.0.0.1`), no user info, no fragment (not even an empty `#`), no
 * RESERVED_RESPONSE_PARAMETERS in its query (names compared after percent-decoding), at most 2000
 * characters, and a host equal to the callback domain or a subdomain of it (`a.example.com` for
 * `example.com`; not `badexample.com`). Ports and paths are free. The same rules apply to the exact
 * redirect URIs a client registers.
 * @returns `{ok: true, url}` or `{ok: false, reason}` (a sentence for the error page).
 */
export function checkRedirectUri(client: Pick<ClientRecord, 'callbackDomain'>, uri: string): RedirectCheck {
  if (typeof uri !== 'string' || uri === '') return { ok: false, reason: 'redirect_uri is empty' };
  if (uri.length > REDIRECT_URI_MAX)
    return { ok: false, reason: `redirect_uri is longer than ${REDIRECT_URI_MAX} characters` };
  if (uri.includes('#')) return { ok: false, reason: 'redirect_uri must not contain a fragment (#)' };
  if (/[\s\\]/.test(uri) || /[\u0000-\u001f\u007f]/.test(uri))
    return { ok: false, reason: 'redirect_uri must not contain spaces, backslashes or control characters' };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { ok: false, reason: 'redirect_uri is not an absolute URL' };
  }
  if (!/^https?:\/\//i.test(uri)) return { ok: false, reason: 'redirect_uri must start with https://' };
  if (url.username || url.password) return { ok: false, reason: 'redirect_uri must not contain user information' };
  const host = url.hostname;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.includes(host)) {
    return { ok: false, reason: 'redirect_uri must use https (plain http only for localhost and 127.0.0.1)' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, reason: 'redirect_uri must use https' };
  const domain = client.callbackDomain;
  if (host !== domain && !host.endsWith(`.${domain}`)) {
    return { ok: false, reason: `redirect_uri must lie in the application's callback domain ${domain}` };
  }
  const reserved = [...url.searchParams.keys()].find((name) => RESERVED_RESPONSE_PARAMETERS.includes(name));
  if (reserved !== undefined) {
    return {
      ok: false,
      reason: `redirect_uri must not carry "${reserved}" in its query: the authorization response adds its own`,
    };
  }
  return { ok: true, url };
}

/** `http://localhost` or `http://127.0.0.1` with its port, at the start of a URI. */
const LOOPBACK_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?(?=[/?]|$)/;

/** `uri` without the port of a loopback `http` origin, or undefined when it has no such origin. */
function withoutLoopbackPort(uri: string): string | undefined {
  const m = LOOPBACK_ORIGIN.exec(uri);
  return m ? `http://${m[1]}${uri.slice(m[0].length)}` : undefined;
}

/**
 * True when `uri` is one of the client's registered redirect URIs: simple string comparison
 * (RFC 3986 §6.2.1, RFC 9700 §4.1.3), except that a loopback `http` URI (`localhost`,
 * `127.0.0.1`) matches with any port, as native apps listen on a port of the moment (RFC 8252 §7.3).
 */
export function isRegisteredRedirectUri(registered: readonly string[], uri: string): boolean {
  if (registered.includes(uri)) return true;
  const bare = withoutLoopbackPort(uri);
  return bare !== undefined && registered.some((r) => withoutLoopbackPort(r) === bare);
}

export type RedirectChoice = { ok: true; redirectUri: string; given: boolean } | { ok: false; reason: string };

/**
 * The redirect URI of an authorization request (RFC 6749 §3.1.2.2–§3.1.2.3, RFC 9700 §4.1.3).
 * A given `redirect_uri` must pass checkRedirectUri and, when the client registered redirect URIs,
 * be one of them (isRegisteredRedirectUri). Without one: the client's only registered URI; none
 * registered → defaultRedirectUri; several → refused (the request must choose).
 * @returns `{ok: true, redirectUri, given}` or `{ok: false, reason}` (a sentence for the error page).
 */
export function chooseRedirectUri(
  client: Pick<ClientRecord, 'callbackDomain' | 'redirectUris'>,
  given: string | undefined,
): RedirectChoice {
  const registered = client.redirectUris;
  if (given === undefined) {
    if (registered.length > 1)
      return { ok: false, reason: 'redirect_uri is required: the application registered several redirect URIs' };
    return { ok: true, redirectUri: registered[0] ?? defaultRedirectUri(client), given: false };
  }
  const check = checkRedirectUri(client, given);
  if (!check.ok) return check;
  if (registered.length > 0 && !isRegisteredRedirectUri(registered, given)) {
    return {
      ok: false,
      reason: 'redirect_uri is not one of the redirect URIs the application registered (they must match exactly)',
    };
  }
  return { ok: true, redirectUri: given, given: true };
}

/**
 * The redirect URI used when an authorization request carries none: the root of the callback
 * domain, `https://<domain>/` (`http://` for localhost and 127.0.0.1).
 */
export function defaultRedirectUri(client: Pick<ClientRecord, 'callbackDomain'>): string {
  const scheme = LOOPBACK_HOSTS.includes(client.callbackDomain) ? 'http' : 'https';
  return `${scheme}://${client.callbackDomain}/`;
}
