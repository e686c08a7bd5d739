/**
 * Building blocks of the route schemas (docs/adr/0013-openapi.md, 0022): media types as they are
 * served, response objects with their headers, the error responses every API route shares, request
 * bodies in JSON and form encoding, security requirements, and `documented()`, which registers a
 * route's schema for three uses:
 * - input: properties marked `x-wire` are parsed by the route's compiled validator
 *   (src/http/schemas/wire.ts) into typed values, with the API's own error codes and messages;
 * - output: each response is serialized by its schema (fast-json-stringify), exactly the
 *   representation's properties in its order;
 * - the OpenAPI document, which shows the schema as written.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { CONTENT_TYPE, JSONP_TYPE, TEXT_XML_TYPE, type Format } from '../../formats/negotiation.ts';
import { ref } from './representations.ts';
import { STATUS as ERROR_STATUS } from '../plugins/errors.ts';
import { wireValidatorCompiler } from './wire.ts';
import { WIRE } from '../params.ts';

/** Response media types exactly as the API sends them (src/formats/negotiation.ts, plugins/formats.ts). */
export const MEDIA = {
  json: CONTENT_TYPE.json,
  xml: CONTENT_TYPE.xml,
  textXml: TEXT_XML_TYPE,
  jsonp: JSONP_TYPE,
  as: CONTENT_TYPE.as,
  atom: CONTENT_TYPE.atom,
} as const;

/** Request body media types (api-v2.md conventions 5). */
export const REQUEST_MEDIA = ['application/json', 'application/x-www-form-urlencoded'] as const;

/** The route config `documented()` adds: @fastify/swagger's per-route transform (see below). */
export interface DocumentedConfig {
  swaggerTransform: (arg: { schema: FastifySchema; url: string }) => { schema: FastifySchema; url: string };
}

/** The options to spread into a route registration: its schema, the input compiler and the config. */
export interface DocumentedRoute {
  schema: FastifySchema;
  validatorCompiler: FastifySchemaCompiler<unknown>;
  /** input errors wait in `request.validationError` until the handler calls `parsed(request)` */
  attachValidation: true;
  config: DocumentedConfig;
}

/**
 * The schema Fastify compiles: `schema` with every response `content` entry whose media type
 * carries parameters (`application/json;charset=utf-8`) also under the bare media type
 * (`application/json`), the key Fastify looks a reply's serializer up by. The compiled serializer
 * (fast-json-stringify, Fastify's default serializerCompiler) writes exactly the schema's
 * properties in the schema's order; optional ones when present.
 */
function serializable(schema: FastifySchema): FastifySchema {
  const responses = schema.response as Record<string, { content?: Record<string, unknown> }> | undefined;
  if (!responses) return schema;
  const response: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(responses)) {
    if (!r.content) {
      response[status] = r;
      continue;
    }
    const content: Record<string, unknown> = { ...r.content };
    for (const [media, entry] of Object.entries(r.content)) {
      const bare = media.split(';', 1)[0]!;
      if (!(bare in content)) content[bare] = entry;
    }
    response[status] = { ...r, content };
  }
  return { ...schema, response };
}

/**
 * Route options for `schema`: responses are serialized by their schema (see serializable); the
 * OpenAPI document shows `schema` as written (the route's `swaggerTransform`).
 */
export function documented(schema: FastifySchema): DocumentedRoute {
  return {
    schema: serializable(schema),
    validatorCompiler: wireValidatorCompiler,
    attachValidation: true,
    config: { swaggerTransform: ({ url }) => ({ schema, url }) },
  };
}

/** A response header, as @fastify/swagger reads it (`description` becomes the header's). */
const header = (description: string, schema: TSchema = Type.Integer()) => ({ ...schema, description });

/** X-RateLimit-* on every rate-limited response (api-v2.md "Limits" 1). */
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': header('requests allowed in the hourly window'),
  'X-RateLimit-Remaining': header('requests left in the window'),
  'X-RateLimit-Current': header('requests made in the window, this one included'),
  'X-RateLimit-Reset': header('Unix seconds at which the window ends'),
};

const JSONP_SCHEMA = Type.String({ description: 'JSONP (query `jsonp=<callback>`): `/**/<callback>(<JSON body>);`' });
const xmlSchema = (root?: string) =>
  Type.String({
    description: `the JSON body rendered as XML${root ? ` (arrays under <${root}>)` : ''}; text/xml when asked for in Accept`,
  });
const ATOM_SCHEMA = Type.String({ description: 'Atom 1.0 feed (RFC 4287)' });

/**
 * The `content` map of a response in the route's formats: JSON (and JSONP), XML (application/xml
 * and text/xml), Activity Streams (and JSONP), Atom.
 * @param schema the JSON body (for `as`: ignored, the ActivityStream is used)
 */
export function content(
  schema: TSchema | undefined,
  formats: readonly Format[] = ['json', 'xml'],
  xmlRoot?: string,
  jsonp = true,
): Record<string, { schema: unknown }> {
  const out: Record<string, { schema: unknown }> = {};
  for (const f of formats) {
    if (f === 'json' && schema) out[MEDIA.json] = { schema };
    if (f === 'xml') {
      out[MEDIA.xml] = { schema: xmlSchema(xmlRoot) };
      out[MEDIA.textXml] = { schema: xmlSchema(xmlRoot) };
    }
    if (f === 'as') out[MEDIA.as] = { schema: ref('ActivityStream') };
    if (f === 'atom') out[MEDIA.atom] = { schema: ATOM_SCHEMA };
  }
  if (jsonp && (formats.includes('json') || formats.includes('as'))) out[MEDIA.jsonp] = { schema: JSONP_SCHEMA };
  return out;
}

/** A response object: description, headers (rate-limit headers unless `rateLimited: false`), content. */
export function response(
  description: string,
  schema: TSchema | undefined,
  opts: {
    formats?: readonly Format[];
    xmlRoot?: string;
    headers?: Record<string, unknown>;
    rateLimited?: boolean;
    jsonp?: boolean;
  } = {},
): Record<string, unknown> {
  const headers = { ...(opts.rateLimited === false ? {} : RATE_LIMIT_HEADERS), ...opts.headers };
  const out: Record<string, unknown> = { description };
  if (Object.keys(headers).length > 0) out.headers = headers;
  if (schema || (opts.formats && opts.formats.some((f) => f !== 'json')))
    out.content = content(schema, opts.formats, opts.xmlRoot, opts.jsonp);
  return out;
}

/** 204 No Content (or another answer with an empty body), with the rate-limit headers unless `rateLimited: false`. */
export function noContent(
  description: string,
  opts: { rateLimited?: boolean; headers?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    description,
    headers: { ...(opts.rateLimited === false ? {} : RATE_LIMIT_HEADERS), ...opts.headers },
    type: 'null',
  };
}

/** Status of each API error code: the one table in src/http/plugins/errors.ts. */
const STATUS: Record<string, number> = ERROR_STATUS;

/** Codes any API route may answer: a bad `jsonp`, an invalid token, the limit, a format, a failure. */
const ALWAYS = ['invalid_parameters', 'unauthorized', 'rate_limit_exceeded', 'not_acceptable', 'server_error'];

/**
 * The error responses of an API route, grouped by status; each lists its codes. 401 carries
 * `WWW-Authenticate`, 403 `WWW-Authenticate` (insufficient_scope) and `Retry-After` (rate_limit_exceeded); all carry the rate-limit headers
 * (except on /rate_limit). 406 is always JSON; other errors follow the negotiated format: JSON or
 * XML (`formats`, default both; feeds answer errors in JSON), and JSONP.
 */
export function errors(
  codes: readonly string[],
  opts: { rateLimited?: boolean; formats?: readonly Format[] } = {},
): Record<string, Record<string, unknown>> {
  const all = [...new Set([...codes, ...ALWAYS])].filter(
    (c) => opts.rateLimited !== false || c !== 'rate_limit_exceeded',
  );
  const byStatus = new Map<number, string[]>();
  for (const c of all) byStatus.set(STATUS[c]!, [...(byStatus.get(STATUS[c]!) ?? []), c]);
  const out: Record<string, Record<string, unknown>> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const headers: Record<string, unknown> = {};
    if (status === 401)
      headers['WWW-Authenticate'] = header(
        '`Bearer realm="tipjar"`, with `error="invalid_token"` for an unknown, revoked or malformed token',
        Type.String(),
      );
    if (status === 403 && list.includes('insufficient_scope')) {
      headers['WWW-Authenticate'] = header(
        '`Bearer realm="tipjar", error="insufficient_scope", scope="<needed>"` (insufficient_scope only)',
        Type.String(),
      );
    }
    if (list.includes('rate_limit_exceeded'))
      headers['Retry-After'] = header('seconds until the rate-limit window ends (rate_limit_exceeded only)');
    out[status] = response(`Error: ${list.map((c) => `\`${c}\``).join(', ')}`, ref('Error'), {
      formats: status === 406 ? ['json'] : (opts.formats ?? ['json', 'xml']),
      headers,
      rateLimited: opts.rateLimited,
    });
  }
  return out;
}

/** Security: no token needed. */
export const PUBLIC: FastifySchema['security'] = [];
/** Security: a token is optional; with one, per-viewer fields appear. */
export const OPTIONAL_TOKEN: FastifySchema['security'] = [{}, { oauth2: [] }, { bearer: [] }];
/** Security: a bearer token, with `scope` when given (api-v2.md "Authentication" 7–8). */
export function token(scope?: 'tip' | 'thing' | 'extendedread'): FastifySchema['security'] {
  const scopes = scope ? [scope] : [];
  return [{ oauth2: scopes }, { bearer: scopes }];
}

/** Query parameter `jsonp` (every API route answering JSON). */
export const JSONP_PARAM = {
  jsonp: Type.Optional(
    Type.String({
      description:
        'JSONP callback name (a JavaScript identifier path such as `app.cb`); the answer becomes `application/javascript`',
    }),
  ),
};

/** Query parameters of paged lists (DECISIONS.md "Pagination and `full`", docs/api.md "Lists"). */
export const LIST_PARAMS = {
  count: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 30,
      description: 'items per page, 1–100 (default 30; empty `count=` too)',
      'x-wire': WIRE.count,
    }),
  ),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: 'page, from 1', 'x-wire': WIRE.page })),
  full: Type.Optional(
    Type.String({
      description:
        'bare flag (`?full`) or `1|true|full` in any case; `0|false` off: owners (and the thing in a Tip) in full',
      default: 'false',
      'x-wire': WIRE.full,
    }),
  ),
};

/** Marks an operation whose request body may be left out (see src/http/plugins/openapi.ts). */
export const OPTIONAL_BODY = 'x-optional-body';

/**
 * The request-body part of a schema: `body` in JSON and form encoding. With `optional`, the
 * document says the body may be left out (@fastify/swagger otherwise marks every body required).
 */
export function formBody(schema: TSchema, opts: { optional?: boolean } = {}): Pick<FastifySchema, 'body' | 'consumes'> {
  return { body: schema, consumes: [...REQUEST_MEDIA], ...(opts.optional ? { [OPTIONAL_BODY]: true } : {}) };
}

/** A path parameter object (every property required, as path parameters are). */
export const params = (props: Record<string, TSchema>) => Type.Object(props);
/** A response header of type string. */
export const stringHeader = (description: string) => header(description, Type.String());
/** Path parameter `username`. */
export const USERNAME = { username: Type.String({ description: 'a username' }) };
/**
 * Path parameter `id` of a thing; one that is not an id → 404 `not_found` "Thing not found", whose
 * `error_uri` points at the docs section of the resource (`wire`: WIRE.thingId, tipThingId, …).
 */
export const thingIdParam = (wire: string = WIRE.thingId) => ({
  id: Type.String({ description: 'a thing id (positive integer)', pattern: '^[0-9]+$', 'x-wire': wire }),
});

/** Note on the format suffix, appended to descriptions of routes with XML or feeds. */
export const SUFFIX_NOTE =
  'Format: `Accept` header or a suffix on the path (`.json`, `.xml`, and `.as`/`.atom` for feeds); any other format → 406 `not_acceptable`.';

/** `route` (from documented()) with more route config (`formats`, `xmlRoot`, …) beside its own. */
export function withConfig<C extends object>(
  route: DocumentedRoute,
  config: C,
): Omit<DocumentedRoute, 'config'> & { config: DocumentedConfig & C } {
  return { ...route, config: { ...route.config, ...config } };
}
