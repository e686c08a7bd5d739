/**
 * Thing URLs: validation, normalisation (DECISIONS.md "Things") and auto-submit URLs
 * (api-v2.md "Tips", notes §14).
 */
import { ValidationError } from './errors.ts';

export const MAX_URL_LENGTH = 2048;

/** Parses an absolute http(s) URL; null when `raw` is not one. */
export function parseHttpUrl(raw: string): URL | null {
  if (raw.length === 0 || raw.length > MAX_URL_LENGTH || /[\s\u0000]/.test(raw)) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) return null;
  return u;
}

/**
 * The key two URLs are compared by: lower-case scheme and host, default port removed (WHATWG URL
 * serialisation does both); path, query and fragment kept as they are, so they distinguish things.
 */
export function urlKey(u: URL): string {
  return u.href;
}

/**
 * Validates a thing URL (absolute http/https, at most 2048 characters).
 * @returns the trimmed URL as given and its normalised key.
 * @throws ValidationError "Invalid url".
 */
export function checkThingUrl(raw: unknown): { url: string; key: string } {
  if (typeof raw !== 'string') throw new ValidationError('Invalid url: url is required');
  const url = raw.trim();
  const parsed = parseHttpUrl(url);
  if (!parsed)
    throw new ValidationError('Invalid url: an absolute http or https URL of at most 2048 characters is required');
  return { url, key: urlKey(parsed) };
}

/** The parameters of an auto-submit URL (`{site_url}/submit/auto?url=…&user_id=…`), raw strings. */
export interface AutoSubmit {
  url: string;
  user_id?: string;
  owner?: string;
  title?: string;
  description?: string;
  category?: string;
  language?: string;
  tags?: string;
  hidden?: string;
}

/**
 * Recognises an auto-submit URL of this site: same origin as `siteUrl`, path `/submit/auto`.
 * @returns its parameters, or null when `raw` is not an auto-submit URL.
 */
export function parseAutoSubmit(raw: string, siteUrl: string): AutoSubmit | null {
  const u = parseHttpUrl(raw.trim());
  if (!u) return null;
  const site = new URL(siteUrl);
  if (u.origin !== site.origin) return null;
  const base = site.pathname.replace(/\/+$/, '');
  if (u.pathname.replace(/\/+$/, '') !== `${base}/submit/auto`) return null;
  const out: Record<string, string> = {};
  for (const key of ['url', 'user_id', 'owner', 'title', 'description', 'category', 'language', 'tags', 'hidden']) {
    const v = u.searchParams.get(key);
    if (v !== null) out[key] = v;
  }
  return { url: out.url ?? '', ...out } as AutoSubmit;
}
