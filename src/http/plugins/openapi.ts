/**
 * The API's OpenAPI 3.1 document and its docs page (docs/adr/0013-openapi.md, docs/api.md
 * "OpenAPI"):
 * - `GET /openapi.json` — the document, generated at start-up by @fastify/swagger (dynamic mode)
 *   from the route schemas (src/http/routes/<resource>/schemas.ts, representations in
 *   src/http/schemas/); only routes with `tags` appear (the API under /rest/v2 and the OAuth
 *   endpoints), the website and operations routes do not;
 * - `GET /docs` — Swagger UI (@fastify/swagger-ui), its assets served from node_modules, no CDN,
 *   with a Content-Security-Policy that allows this origin only. The UI is loaded on the first
 *   request under /docs, into an app of its own that `/docs` and `/docs/*` forward to, so that a
 *   start does not load it (docs/adr/0041). `/docs/api` (docs/api.md, where every `error_uri`
 *   points) is a route of its own (src/web/api-docs.ts) and stays.
 * Register before the routes: @fastify/swagger collects them with an onRoute hook.
 */
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import { REPRESENTATIONS } from '../schemas/representations.ts';
import { MEDIA, OPTIONAL_BODY } from '../schemas/common.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { sourceFile } from '../../paths.ts';

export interface OpenApiOptions {
  /** PUBLIC_URL: the server of the document (API paths carry /rest/v2) */
  publicUrl: string;
  /** AUTH_URL: where /oauth/authorize and /oauth/token live */
  authUrl: string;
  /** the API's path prefix, `/rest/v2`: every route under it must be documented */
  apiPrefix: string;
}

/** A route that belongs in the document: under the API prefix, or an OAuth machine endpoint. */
export interface ApiRoute {
  method: string;
  /** Fastify's path, e.g. `/rest/v2/things/:ids` */
  url: string;
  /** has a schema with `tags` (so it appears in /openapi.json) */
  documented: boolean;
}

const OAUTH_PATHS = new Set(['/oauth/token', '/oauth/revoke', '/.well-known/oauth-authorization-server']);
const routesOf = new WeakMap<FastifyInstance, ApiRoute[]>();

/**
 * The API and OAuth routes registered after `registerOpenApi` (HEAD and OPTIONS left out), with
 * whether each is documented. An undocumented one is also logged at start-up as a warning.
 */
export function apiRoutesOf(app: FastifyInstance): readonly ApiRoute[] {
  return routesOf.get(app) ?? [];
}

/** The application's version, from package.json. */
const VERSION = (JSON.parse(readFileSync(sourceFile('../package.json'), 'utf8')) as { version: string }).version;

const SCOPE_TEXT: Record<string, string> = {
  tip: 'tip things, subscribe',
  thing: 'create, update and delete things',
  extendedread: 'adds `email`, `email_verified`, `registered_at` and the budget to the own User',
};

/** The /docs page's Content-Security-Policy: nothing is loaded from another origin. */
export const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; frame-ancestors 'self'; img-src 'self' data:; " +
  "object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'";

/** Registers the document, `/openapi.json` and the `/docs` page on `app` (the root instance). */
export async function registerOpenApi(app: FastifyInstance, opts: OpenApiOptions): Promise<void> {
  for (const schema of REPRESENTATIONS) app.addSchema(schema);
  const routes: ApiRoute[] = [];
  routesOf.set(app, routes);
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(`${opts.apiPrefix}/`) && !OAUTH_PATHS.has(route.url)) return;
    const schema = route.schema as { tags?: readonly string[]; hide?: boolean } | undefined;
    const documented = !!schema?.tags?.length && !schema.hide;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD' && method !== 'OPTIONS') routes.push({ method, url: route.url, documented });
    }
  });
  app.addHook('onReady', async () => {
    const missing = routes.filter((r) => !r.documented).map((r) => `${r.method} ${r.url}`);
    if (missing.length > 0)
      app.log.warn(
        { routes: missing },
        'API routes without an OpenAPI schema (see src/http/routes/<resource>/schemas.ts)',
      );
  });
  await app.register(swagger, {
    mode: 'dynamic',
    hideUntagged: true,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tipjar API v2',
        version: VERSION,
        description:
          'The micro-tipping REST API (api-v2.md) and its OAuth 2 endpoints. Money is in cents, times in Unix seconds. ' +
          `Wire-format decisions: [${opts.publicUrl}/docs/api](${opts.publicUrl}/docs/api). ` +
          'Input is checked against these schemas with the lenient forms the API accepts (flags in any case, a bare `?full`, ' +
          'an empty `count=`, comma-separated tags); a refused value answers in the error shape (`invalid_parameters`, ' +
          '`validation`, `invalid_request`, or `not_found` for a path id). The API is in beta: breaking changes may occur.',
      },
      servers: [{ url: opts.publicUrl }],
      externalDocs: { description: 'Wire format and decisions', url: `${opts.publicUrl}/docs/api` },
      tags: [
        { name: 'things', description: 'Things (api-v2.md "Endpoints / Things")' },
        { name: 'search', description: 'Searching things' },
        { name: 'tips', description: 'Tips' },
        { name: 'subscriptions', description: 'Subscriptions (scope `tip`)' },
        { name: 'users', description: 'Users' },
        { name: 'activities', description: 'Activity feeds (Activity Streams, Atom)' },
        { name: 'reference', description: 'Categories and languages' },
        { name: 'rate limit', description: "The caller's rate-limit window" },
        { name: 'partners', description: 'Partner verification' },
        { name: 'oauth', description: 'OAuth 2 authorization server (RFC 6749, 7009, 8414)' },
      ],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description:
              'Authorization code flow (PKCE supported); the token is then sent as `Authorization: Bearer <token>`.',
            flows: {
              authorizationCode: {
                authorizationUrl: `${opts.authUrl}/oauth/authorize`,
                tokenUrl: `${opts.authUrl}/oauth/token`,
                scopes: Object.fromEntries(SCOPES.map((s) => [s, SCOPE_TEXT[s] ?? s])),
              },
            },
          },
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'An access token from /oauth/token; the scopes listed are required.',
          },
          clientBasic: {
            type: 'http',
            scheme: 'basic',
            description: 'Client authentication: client_id and client_secret (RFC 6749 §2.3.1).',
          },
        },
      },
    },
    // Bodies marked optional (formBody(…, {optional: true})) are not `required`.
    transformObject: (documentObject) => {
      const doc = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
      for (const ops of Object.values<Record<string, Record<string, any>>>((doc as { paths?: any }).paths ?? {})) {
        for (const op of Object.values(ops)) {
          if (op?.[OPTIONAL_BODY] === undefined) continue;
          if (op.requestBody) op.requestBody.required = false;
          delete op[OPTIONAL_BODY];
        }
      }
      return doc;
    },
    // Named representations become components.schemas.<$id> (not def-0, def-1, …).
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  let docsUi: Promise<FastifyInstance> | undefined;
  /**
   * GET /docs, /docs/* — Swagger UI's page, its assets and its copy of the document (`/docs/json`),
   * as @fastify/swagger-ui answers them; errors in the site's shape.
   */
  const docs = async (request: FastifyRequest, reply: FastifyReply) => {
    docsUi ??= swaggerUiApp(app.swagger()).catch((err: unknown) => {
      docsUi = undefined; // tried again by the next request
      throw err;
    });
    // The request's headers go along: conditional and range requests of the assets work as before.
    const { connection: _rc, 'keep-alive': _rk, ...requestHeaders } = request.headers;
    const ui = await docsUi;
    const res = await ui.inject({
      method: request.method as 'GET' | 'HEAD',
      url: request.url,
      headers: requestHeaders,
    });
    // Errors in the site's own shape: a path the UI does not serve is this app's 404, another
    // refusal (a range past the end: 416) this app's error of that status.
    if (res.statusCode === 404) return reply.callNotFound();
    if (res.statusCode >= 400)
      throw Object.assign(new Error(`Swagger UI answered ${res.statusCode} for ${request.url}`), {
        statusCode: res.statusCode,
      });
    const { connection: _c, 'keep-alive': _k, 'transfer-encoding': _t, date: _d, ...headers } = res.headers;
    reply.code(res.statusCode).headers(headers);
    return res.rawPayload.length > 0 ? reply.send(res.rawPayload) : reply.send();
  };
  app.addHook('onClose', async () => {
    await (await docsUi?.catch(() => undefined))?.close();
  });
  app.route({ method: ['GET', 'HEAD'], url: '/docs', schema: { hide: true }, handler: docs });
  app.route({ method: ['GET', 'HEAD'], url: '/docs/*', schema: { hide: true }, handler: docs });

  /** GET /openapi.json — the OpenAPI 3.1 document, `application/json;charset=utf-8`. */
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(MEDIA.json).send(app.swagger()),
  );
}

/**
 * An app serving only Swagger UI (@fastify/swagger-ui, loaded now) under /docs for `document`:
 * its page, its static assets from node_modules and `/docs/json`.
 */
async function swaggerUiApp(document: ReturnType<FastifyInstance['swagger']>): Promise<FastifyInstance> {
  const { default: swaggerUi } = await import('@fastify/swagger-ui');
  const ui = Fastify({ logger: false });
  // The static mode's type names OpenAPI 2 and 3.0 documents only; this one is 3.1, served as it is.
  await ui.register(swagger, { mode: 'static', specification: { document: document as never } });
  await ui.register(swaggerUi, {
    routePrefix: '/docs',
    // Everything from this origin (no CDN, no validator.swagger.io); inline styles for the UI's widgets.
    staticCSP: true,
    transformStaticCSP: () => DOCS_CSP,
    uiConfig: { deepLinking: true, docExpansion: 'list', validatorUrl: null },
  });
  await ui.ready();
  return ui;
}
