/**
 * Response format negotiation (api-v2.md conventions 2–3, DECISIONS.md "Formats and protocol" and
 * "Wire format"): a file-format suffix on the path (`.json`, `.xml`, `.as`, `.atom`) wins over the
 * Accept header; no suffix and no Accept (or `*\/*`) gives the route's default; an Accept that no
 * offered media type matches is 406.
 *
 * Accept is matched per RFC 9110 §12.5.1 (by the `negotiator` package): the offered media types
 * carry the parameters of the representation actually sent (`charset=utf-8`), so a range with
 * parameters (`application/json;charset=utf-8`, `charset=UTF-8`, quoted or not) matches; `q`
 * weights the ranges; the most specific range that matches a type decides its weight. A range
 * whose parameters differ from what is sent (`charset=iso-8859-1`) does not match.
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

/** Content-Type of XML asked for as `text/xml`, and of JSONP. */
export const TEXT_XML_TYPE = 'text/xml;charset=utf-8';
export const JSONP_TYPE = 'application/javascript;charset=utf-8';

/**
 * Media types offered to Accept, per format, with the parameters of what is sent. Activity
 * Streams is JSON, always UTF-8 (RFC 8259 §8.1): it is offered with `charset=utf-8` though the
 * Content-Type is sent without it, as the spec writes it.
 */
const OFFERED: Record<Format, readonly string[]> = {
  json: [CONTENT_TYPE.json],
  xml: [CONTENT_TYPE.xml, TEXT_XML_TYPE],
  as: ['application/stream+json;charset=utf-8'],
  atom: [CONTENT_TYPE.atom],
};

const SUFFIXES = new Set<string>(['json', 'xml', 'as', 'atom']);

/** Formats of plain resources; list routes that are also feeds add `as` and `atom`. */
export const RESOURCE_FORMATS: readonly Format[] = ['json', 'xml'];
export const FEED_LIST_FORMATS: readonly Format[] = ['json', 'xml', 'as', 'atom'];
export const ACTIVITY_FORMATS: readonly Format[] = ['as', 'atom'];

/** The formats that JSONP (`?jsonp=`) wraps. */
const JSONP_FORMATS: ReadonlySet<Format> = new Set(['json', 'as']);

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
 * @param suffix the path's format suffix (lower-cased), if any.
 * @param accept the Accept header, if any.
 * @param jsonp whether the request carries a JSONP callback: then the JSON format (`json`, else
 *   `as`) is also offered as `application/javascript;charset=utf-8`, the type JSONP is sent as.
 * @returns the format, the text/xml flavour wanted for XML, or undefined when none is acceptable (406).
 */
export function negotiate(
  available: readonly Format[],
  suffix: string | undefined,
  accept: string | undefined,
  jsonp = false,
): { format: Format; textXml?: boolean } | undefined {
  if (suffix !== undefined) {
    if (!SUFFIXES.has(suffix)) return undefined;
    const f = suffix as Format;
    return available.includes(f) ? { format: f } : undefined;
  }
  if (accept === undefined || accept.trim() === '') return { format: available[0]! };
  const offered = new Map<string, Format>();
  for (const f of available) for (const type of OFFERED[f]) offered.set(type, f);
  const wrapped = jsonp ? available.find((f) => JSONP_FORMATS.has(f)) : undefined;
  if (wrapped) offered.set(JSONP_TYPE, wrapped);
  const chosen = new Negotiator({ headers: { accept } }).mediaType([...offered.keys()]);
  if (chosen === undefined) return undefined;
  return { format: offered.get(chosen)!, textXml: chosen === TEXT_XML_TYPE };
}

/**
 * The formats a route answers in, for a 406's description: suffixes, then the media types for
 * Accept, e.g. `.json, .xml (Accept: application/json, application/xml, text/xml; JSONP:
 * application/javascript with ?jsonp=<callback>)`.
 * @param available the route's formats, default first.
 */
export function describeFormats(available: readonly Format[]): string {
  const types = available.flatMap((f) => OFFERED[f].map((t) => t.split(';')[0]!));
  const jsonp = available.some((f) => JSONP_FORMATS.has(f))
    ? '; JSONP: application/javascript with ?jsonp=<callback>'
    : '';
  return `${available.map((f) => `.${f}`).join(', ')} (Accept: ${types.join(', ')}${jsonp})`;
}
