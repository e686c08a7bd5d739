/**
 * Response format negotiation (api-v2.md conventions 2–3, DECISIONS.md "Formats and protocol"):
 * a file-format suffix on the path (`.json`, `.xml`, `.as`, `.atom`) wins over the Accept header;
 * no suffix and no Accept (or `*\/*`) gives the route's default; anything else is 406.
 */
import Negotiator from 'negotiator';

export type Format = 'json' | 'xml' | 'as' | 'atom';

/** Content-Type sent for each format. */
export const CONTENT_TYPE: Record<Format, string> = {
  json: 'application/json;charset=utf-8',
  xml: 'application/xml;charset=utf-8',
  as: 'application/stream+json',
  atom: 'application/atom+xml;charset=utf-8',
};

/** Media types a client may ask for in Accept, per format. */
const ACCEPTED: Record<Format, string[]> = {
  json: ['application/json'],
  xml: ['application/xml', 'text/xml'],
  as: ['application/stream+json'],
  atom: ['application/atom+xml'],
};

const SUFFIXES = new Set<string>(['json', 'xml', 'as', 'atom']);

/** Formats of plain resources; list routes that are also feeds add `as` and `atom`. */
export const RESOURCE_FORMATS: readonly Format[] = ['json', 'xml'];
export const FEED_LIST_FORMATS: readonly Format[] = ['json', 'xml', 'as', 'atom'];
export const ACTIVITY_FORMATS: readonly Format[] = ['as', 'atom'];

/**
 * Splits a format suffix off the last path segment of `url` (path + query).
 * Ids and usernames never contain dots, so any `.ext` there is a format request.
 * @returns the URL without the suffix, and the suffix (lower-cased) or undefined.
 */
export function splitSuffix(url: string): { url: string; suffix?: string } {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const m = /^(.*\/[^/.]+)\.([A-Za-z0-9+]+)(\/?)$/.exec(path);
  if (!m) return { url };
  return { url: m[1]! + m[3]! + (q === -1 ? '' : url.slice(q)), suffix: m[2]!.toLowerCase() };
}

/**
 * Chooses the response format.
 * @param available the route's formats, default first.
 * @returns the format, the text/xml flavour wanted for XML, or undefined when none is acceptable (406).
 */
export function negotiate(
  available: readonly Format[],
  suffix: string | undefined,
  accept: string | undefined,
): { format: Format; textXml?: boolean } | undefined {
  if (suffix !== undefined) {
    if (!SUFFIXES.has(suffix)) return undefined;
    const f = suffix as Format;
    return available.includes(f) ? { format: f } : undefined;
  }
  if (accept === undefined || accept.trim() === '') return { format: available[0]! };
  const types = available.flatMap((f) => ACCEPTED[f]);
  const chosen = new Negotiator({ headers: { accept } }).mediaType(types);
  if (!chosen) return undefined;
  const format = available.find((f) => ACCEPTED[f].includes(chosen))!;
  return { format, textXml: chosen === 'text/xml' };
}
