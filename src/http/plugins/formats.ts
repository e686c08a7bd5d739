/**
 * Formats on every API route (api-v2.md conventions 2–4, DECISIONS.md "Formats and protocol"):
 * suffix/Accept negotiation (src/formats/negotiation.ts: media-type parameters and q-values per
 * RFC 9110 §12.5.1; `application/javascript` when `jsonp` is given; 406 `not_acceptable`, always as
 * JSON, naming the formats offered), and the renderers chosen per request:
 * - JSON: the route's own serializer (no renderer);
 * - XML: the representation rendered as XML (src/formats/xml.ts), `application/xml` or `text/xml`
 *   as asked, errors included;
 * - JSONP (`?jsonp=callback` → `application/javascript`, `/**\/cb(<json>);`, real status kept,
 *   `X-Content-Type-Options: nosniff`; a callback not matching the safe pattern → 400
 *   `invalid_parameters`): the JSON text wrapped;
 * - Activity Streams (`as`): sent as `application/stream+json` exactly, JSONP-wrapped when asked.
 * Renderers are installed with `reply.serializer()`, so they replace the route's serializer for
 * that request only. Routes declare `config.formats` (default JSON and XML) and, for arrays,
 * `config.xmlRoot`; both are read once per route (`routeFormats`). Feed formats (`as`, `atom`) are
 * rendered by the route itself.
 */
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, InvalidParametersError } from '../../domain/errors.ts';
import {
  CONTENT_TYPE,
  describeFormats,
  negotiate,
  RESOURCE_FORMATS,
  JSONP_TYPE,
  splitSuffix,
  TEXT_XML_TYPE,
  type Format,
} from '../../formats/negotiation.ts';
import { isJsonpCallback, wrapJsonp } from '../../formats/jsonp.ts';
import { toXml } from '../../formats/xml.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** formats this route answers in, default first (default: json, xml) */
    formats?: readonly Format[];
    /** XML root element for array bodies, e.g. `things` */
    xmlRoot?: string;
  }
  interface FastifyRequest {
    /** the negotiated response format */
    format: Format;
    /** the JSONP callback, when `jsonp` was given */
    jsonp: string | undefined;
  }
}

const suffixes = new WeakMap<object, string>();

/**
 * Fastify `rewriteUrl`: strips a format suffix from API paths before routing and remembers it.
 */
export function rewriteFormatSuffix(prefix: string) {
  return (req: { url?: string }): string => {
    const url = req.url ?? '/';
    if (!url.startsWith(prefix)) return url;
    const { url: stripped, suffix } = splitSuffix(url);
    if (suffix !== undefined) suffixes.set(req, suffix);
    return stripped;
  };
}

/** The outcome of negotiating a route's formats: the format and whether XML goes as text/xml; null: 406. */
type Negotiated = { format: Format; textXml?: boolean | undefined } | null;

/** Most Accept headers whose outcome a route keeps (the cache starts again when full). */
const NEGOTIATED_CACHE_SIZE = 64;

/** A route's formats, resolved once: what it offers, its XML root, and the outcomes of Accept headers seen. */
export interface RouteFormats {
  formats: readonly Format[];
  xmlRoot: string | undefined;
  /** the default: the first format, no suffix, no Accept */
  fallback: { format: Format };
  /** Accept header → outcome, without and with JSONP */
  byAccept: Map<string, Negotiated>;
  byAcceptJsonp: Map<string, Negotiated>;
}

/** The formats of a route from its config (`formats`, `xmlRoot`). */
export function routeFormats(config: FastifyContextConfig): RouteFormats {
  const formats = config.formats ?? RESOURCE_FORMATS;
  return {
    formats,
    xmlRoot: config.xmlRoot,
    fallback: { format: formats[0]! },
    byAccept: new Map(),
    byAcceptJsonp: new Map(),
  };
}

function negotiated(
  route: RouteFormats,
  suffix: string | undefined,
  accept: string | undefined,
  jsonp: boolean,
): Negotiated {
  if (suffix !== undefined) return negotiate(route.formats, suffix, undefined, jsonp) ?? null;
  if (accept === undefined) return route.fallback;
  const cache = jsonp ? route.byAcceptJsonp : route.byAccept;
  let chosen = cache.get(accept);
  if (chosen === undefined) {
    chosen = negotiate(route.formats, undefined, accept, jsonp) ?? null;
    if (cache.size >= NEGOTIATED_CACHE_SIZE) cache.clear();
    cache.set(accept, chosen);
  }
  return chosen;
}

/**
 * Checks the JSONP callback and negotiates the request's format on `route` (undefined: an unknown
 * path, only the callback is checked), setting `request.jsonp`, `request.format` and the reply's
 * renderer.
 * @throws InvalidParametersError (400) for a bad callback, DomainError `not_acceptable` (406).
 */
export function chooseFormat(request: FastifyRequest, reply: FastifyReply, route: RouteFormats | undefined): void {
  let callback = (request.query as Record<string, unknown>).jsonp;
  if (callback !== undefined) {
    if (Array.isArray(callback)) callback = callback[0];
    if (typeof callback !== 'string' || !isJsonpCallback(callback)) {
      throw new InvalidParametersError('jsonp must be a JavaScript identifier path such as "handle" or "app.cb"');
    }
    request.jsonp = callback;
    reply.serializer(jsonpRenderer(reply, callback));
  }
  if (route === undefined) return;
  const chosen = negotiated(route, suffixes.get(request.raw), request.headers.accept, callback !== undefined);
  if (chosen === null) {
    throw new DomainError(
      'not_acceptable',
      `No format of this resource matches the request; it is available as ${describeFormats(route.formats)}`,
    );
  }
  const format = chosen.format;
  request.format = format;
  if (format === 'xml') reply.serializer(xmlRenderer(reply, route.xmlRoot, chosen.textXml === true));
  else if (format === 'as' && callback === undefined) reply.serializer(activityStreamRenderer);
}

/** JSON-compatible content types, which JSONP wraps (a body sent as another type goes out as it is). */
const isJsonType = (t: string) => t.startsWith('application/json') || t.startsWith('application/stream+json');

/**
 * The JSON text of `payload` as the route would send it: its compiled serializer for the reply's
 * status when it has one, else JSON.stringify.
 */
function jsonText(reply: FastifyReply, payload: unknown): string {
  const status = String(reply.statusCode);
  const byStatus = reply.getSerializationFunction(status) as unknown;
  const serialize =
    typeof byStatus === 'function'
      ? byStatus
      : (reply.getSerializationFunction(status, CONTENT_TYPE.json) ??
        reply.getSerializationFunction(status, 'application/json'));
  return typeof serialize === 'function' ? (serialize as (v: unknown) => string)(payload) : JSON.stringify(payload);
}

/** JSONP: the JSON body (a value, or JSON text the route sent) wrapped in a call of `callback`. */
function jsonpRenderer(reply: FastifyReply, callback: string) {
  return (payload: unknown): string => {
    if (typeof payload === 'string') {
      const type = reply.getHeader('content-type');
      if (typeof type === 'string' && !isJsonType(type)) return payload;
    }
    reply.header('content-type', JSONP_TYPE);
    reply.header('x-content-type-options', 'nosniff');
    return wrapJsonp(callback, typeof payload === 'string' ? payload : jsonText(reply, payload));
  };
}

/** XML: the representation (a value, or JSON text the route sent) as an XML document. */
function xmlRenderer(reply: FastifyReply, xmlRoot: string | undefined, textXml: boolean) {
  return (payload: unknown): string => {
    reply.header('content-type', textXml ? TEXT_XML_TYPE : CONTENT_TYPE.xml);
    return toXml(typeof payload === 'string' ? JSON.parse(payload) : payload, xmlRoot);
  };
}

/**
 * Activity Streams: the feed text as the route rendered it, sent as `application/stream+json`
 * exactly (a renderer keeps Fastify from appending a charset); an error value as JSON.
 */
function activityStreamRenderer(payload: unknown): string {
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}

/** Decorates requests with `format` (default json) and `jsonp`. */
export function registerFormats(app: { decorateRequest(name: string, value: unknown): unknown }): void {
  app.decorateRequest('format', 'json');
  app.decorateRequest('jsonp', undefined);
}
