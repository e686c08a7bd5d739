/**
 * Formats on every API route (api-v2.md conventions 2–4, DECISIONS.md "Formats and protocol"):
 * suffix/Accept negotiation (src/formats/negotiation.ts: media-type parameters and q-values per
 * RFC 9110 §12.5.1; `application/javascript` when `jsonp` is given; 406 `not_acceptable`, always as
 * JSON, naming the formats offered), the XML rendering of JSON bodies, and JSONP
 * (`?jsonp=callback` → `application/javascript`, `/**\/cb(<json>);`, real status kept,
 * `X-Content-Type-Options: nosniff`; a callback not matching the safe pattern → 400
 * `invalid_parameters`). Routes declare `config.formats` (default JSON and XML) and, for arrays,
 * `config.xmlRoot`. Feed formats (`as`, `atom`) are rendered by the route itself.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
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
import { toXml } from '../../formats/xml.ts';
import { single } from '../../domain/input.ts';

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
const JSONP_CALLBACK = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

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

/** The JSON-compatible content types that JSONP may wrap. */
const isJsonType = (t: string) => t.startsWith('application/json') || t.startsWith('application/stream+json');

export function registerFormats(app: FastifyInstance): void {
  app.decorateRequest('format', 'json');
  app.decorateRequest('jsonp', undefined);

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const callback = single((request.query as Record<string, unknown>).jsonp);
    if (callback !== undefined) {
      if (typeof callback !== 'string' || callback.length > 128 || !JSONP_CALLBACK.test(callback)) {
        throw new InvalidParametersError('jsonp must be a JavaScript identifier path such as "handle" or "app.cb"');
      }
      request.jsonp = callback;
    }
    if (request.is404) return;
    const available = request.routeOptions.config.formats ?? RESOURCE_FORMATS;
    const chosen = negotiate(available, suffixes.get(request.raw), request.headers.accept, request.jsonp !== undefined);
    if (!chosen) {
      throw new DomainError(
        'not_acceptable',
        `No format of this resource matches the request; it is available as ${describeFormats(available)}`,
      );
    }
    request.format = chosen.format;
    if (chosen.textXml) (request as FastifyRequest & { textXml?: boolean }).textXml = true;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    let type = String(reply.getHeader('content-type') ?? '');
    if (typeof payload !== 'string' || !type) return payload;
    // Fastify appends `; charset=utf-8` to every *json type; activity streams are sent as the spec writes it.
    if (type.startsWith(CONTENT_TYPE.as) && type !== CONTENT_TYPE.as)
      reply.header('content-type', (type = CONTENT_TYPE.as));
    // 406 and other errors raised before negotiation stay JSON.
    if (request.format === 'xml' && type.startsWith('application/json') && reply.statusCode !== 406) {
      const textXml = (request as FastifyRequest & { textXml?: boolean }).textXml;
      reply.header('content-type', textXml ? TEXT_XML_TYPE : CONTENT_TYPE.xml);
      return toXml(JSON.parse(payload), request.routeOptions.config.xmlRoot);
    }
    if (request.jsonp !== undefined && isJsonType(type)) {
      reply.header('content-type', JSONP_TYPE);
      reply.header('x-content-type-options', 'nosniff');
      // U+2028/2029 are valid in JSON but not in older JavaScript string literals.
      return `/**/${request.jsonp}(${payload.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')});`;
    }
    return payload;
  });
}
