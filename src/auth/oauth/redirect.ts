/**
 * Redirection URIs (RFC 6749 §3.1.2, DECISIONS.md "OAuth 2"): a client may only be sent back to an
 * address inside the callback domain it registered.
 */
import type { ClientRecord } from '../../db/repositories/oauth.ts';

/** Hosts that may use plain `http` (a client running on the developer's own machine). */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1'];

/** Longest accepted redirect_uri, in characters. */
export const REDIRECT_URI_MAX = 2000;

export type RedirectCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Checks a `redirect_uri` against a client's callback domain: an absolute `https` URL (plain `http`
 * only for `localhost` and `127.0.0.1`), no user info, no fragment (not even an empty `#`), at most
 * 2000 characters, and a host equal to the callback domain or a subdomain of it (`a.example.com`
 * for `example.com`; not `badexample.com`). Ports and paths are free.
 * @returns `{ok: true, url}` or `{ok: false, reason}` (a sentence for the error page).
 */
export function checkRedirectUri(client: Pick<ClientRecord, 'callbackDomain'>, uri: string): RedirectCheck {
  if (typeof uri !== 'string' || uri === '') return { ok: false, reason: 'redirect_uri is empty' };
  if (uri.length > REDIRECT_URI_MAX) return { ok: false, reason: `redirect_uri is longer than ${REDIRECT_URI_MAX} characters` };
  if (uri.includes('#')) return { ok: false, reason: 'redirect_uri must not contain a fragment (#)' };
  if (/[\s\\]/.test(uri) || /[\u0000-\u001f\u007f]/.test(uri)) return { ok: false, reason: 'redirect_uri must not contain spaces, backslashes or control characters' };
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
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'redirect_uri must use https' };
  const domain = client.callbackDomain;
  if (host !== domain && !host.endsWith(`.${domain}`)) {
    return { ok: false, reason: `redirect_uri must lie in the application's callback domain ${domain}` };
  }
  return { ok: true, url };
}

/**
 * The redirect URI used when an authorization request carries none: the root of the callback
 * domain, `https://<domain>/` (`http://` for localhost and 127.0.0.1).
 */
export function defaultRedirectUri(client: Pick<ClientRecord, 'callbackDomain'>): string {
  const scheme = LOOPBACK_HOSTS.includes(client.callbackDomain) ? 'http' : 'https';
  return `${scheme}://${client.callbackDomain}/`;
}
