/**
 * Where the website sends a visitor after log-in or sign-up (`return_to`). Only a same-site,
 * relative path is accepted — `/oauth/authorize?…`, `/thing/12` — so the log-in page can never be
 * used as an open redirect: absolute URLs, scheme-relative `//host`, backslashes (`/\host`, which
 * browsers read as `//host`), control characters and anything that resolves to another origin
 * fall back to `/`.
 */

/** The largest return path accepted (an authorize URL with PKCE and state fits easily). */
export const MAX_RETURN_PATH = 4096;

/**
 * The safe form of a requested return path, or `/`.
 * @param raw the `return_to` field or query parameter (any type: it is user input)
 * @param siteUrl the website's origin, e.g. `http://localhost:3000`
 * @returns a path starting with a single `/`, with its query, resolved against `siteUrl`.
 */
export function safeReturnPath(raw: unknown, siteUrl: string): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_RETURN_PATH) return '/';
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return '/';
  if (/[\u0000-\u001f\u007f\s]/.test(raw)) return '/';
  let url: URL;
  try {
    url = new URL(raw, siteUrl);
  } catch {
    return '/';
  }
  if (url.origin !== new URL(siteUrl).origin) return '/';
  const path = `${url.pathname}${url.search}`;
  return path.startsWith('//') ? '/' : path;
}
