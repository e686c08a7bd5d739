/**
 * buildApp: registers plugins, then the route table. Never listens (main.ts does), so tests drive
 * it with `inject`.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config/index.ts';
import { pingDatabase, type Database } from './db/connect.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import type { Services } from './domain/services.ts';
import { registerErrorHandling, sendDomainError } from './http/plugins/errors.ts';
import { DomainError } from './domain/errors.ts';
import { registerBodyParsers } from './http/plugins/body.ts';
import { registerControlCharacterGuard } from './http/plugins/control-characters.ts';
import { apiRoutes } from './http/routes/index.ts';
import { ID_LIST_MAX_LENGTH, overlongIdListError } from './http/routes/things/index.ts';
import { oauthRoutes } from './http/routes/oauth/index.ts';
import type { RouteContext } from './http/context.ts';
import cors from '@fastify/cors';
import { registerMetrics } from './http/plugins/metrics.ts';
import { serverOptions } from './http/server-options.ts';
import { lazySerializerFactory } from './http/serializers.ts';
import { offerToPlainThingRead, plainThingRead, type PlainThingRead } from './http/plain-thing-read.ts';
import { rewriteFormatSuffix } from './http/plugins/formats.ts';
import { sendBareErrorPage, webPlugin } from './web/index.ts';
import { registerApiPipeline } from './http/plugins/api-pipeline.ts';
import { RateLimiter } from './ratelimit/limiter.ts';
import { CounterStore } from './ratelimit/store.ts';
import { createClientAuthLimits } from './auth/oauth/client-auth-limits.ts';
import { PasswordHasher } from './auth/passwords.ts';
import { createWebLimits } from './web/limits.ts';
import { createDiscovery } from './discovery/index.ts';
import { discoveryCacheOver } from './discovery/cache.ts';
import { registerOpenApi } from './http/plugins/openapi.ts';
import { Search } from './domain/search/index.ts';
import { sharedSearchResultsOver } from './cluster/search-results.ts';
import { registerWarmup } from './warmup.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  clock?: Clock;
  /**
   * Keep the search cache's popular results across restarts (`tipjar serve`; docs/adr/0033): put
   * the results a closed server kept into the cache now, when still valid, and keep this app's
   * when it closes. Default false (tests, commands).
   */
  keepSearchResults?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** the process's bounded scrypt queue (PASSWORD_HASH_CONCURRENCY, PASSWORD_HASH_QUEUE) */
    passwordHasher: PasswordHasher;
    /** search results a closed server kept that this app's cache took at start (AppDeps.keepSearchResults) */
    searchResultsRestored: number;
  }
}

export const API_PREFIX = '/rest/v2';
/** The response headers a browser script may read, on every API response (CORS). */
const EXPOSED_HEADERS = [
  'Location',
  'Retry-After',
  'WWW-Authenticate',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Current',
  'X-RateLimit-Reset',
].join(', ');
const JSON_TYPE = 'application/json;charset=utf-8';
/** The type Fastify gives a serialized value when its route set none. */
const FASTIFY_JSON_TYPE = 'application/json; charset=utf-8';

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const requestLogging = config.logLevel === 'info' || config.logLevel === 'debug' || config.logLevel === 'trace';
  const app = Fastify({
    logger: { level: config.logLevel },
    // Response serializers are compiled at their first use, not all at start-up (src/http/serializers.ts).
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
    // maxParamLength: a `GET /things/:id,:id` segment of 100 ids of the longest accepted form
    // (DECISIONS.md "Things"); longer segments reach the not-found handlers below.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: ID_LIST_MAX_LENGTH },
    bodyLimit: 1024 * 1024,
    rewriteUrl: rewriteFormatSuffix(API_PREFIX),
    // A path that does not decode (e.g. `%FF`): a page for browsers outside the API, else the
    // error shape; never Fastify's own body.
    frameworkErrors: (_err, request, reply) =>
      sendBareErrorPage(request, reply, API_PREFIX, 400, 'This address is not a valid URL.') ??
      sendDomainError(
        reply,
        config.publicUrl,
        new DomainError('invalid_request', 'The request path is not a valid URL'),
      ),
    disableRequestLogging: !requestLogging,
    // Without request logging, a request's log lines need no request id to be matched with its
    // "incoming request" line: requests log through the app's logger, no child logger made each.
    ...(requestLogging ? {} : { childLoggerFactory: (logger: FastifyBaseLogger) => logger }),
    // Client IP for anonymous rate limits: the socket address unless TRUST_PROXY names the proxies.
    trustProxy: config.trustProxy,
    // Deadlines for headers, whole requests, idle and kept-alive connections; HTTP-level errors in the error shape.
    ...serverOptions(config, config.publicUrl),
  });
  // Every password hash of the server runs through one bounded queue (src/auth/passwords.ts).
  const passwordHasher = new PasswordHasher({
    concurrency: config.passwordHashConcurrency,
    queue: config.passwordHashQueue,
  });
  app.decorate('passwordHasher', passwordHasher);
  const clock = deps.clock ?? systemClock;
  // Every limit's counters: in memory, or in Redis when REDIS_URL is set (fails here when Redis
  // cannot be reached); closed when the app closes. Its Redis connection also holds the discovery
  // cache and the shared search results below, so every instance shares them.
  const counters = await CounterStore.open({
    keyPrefix: config.rateLimitKeyPrefix,
    redisUrl: config.redisUrl,
    log: app.log,
  });
  app.addHook('onClose', async () => counters.close());
  // Search with its caches, which follow this database's commits (src/domain/search); on
  // PostgreSQL with REDIS_URL its popular results are shared by every instance (src/cluster).
  const search = new Search(database, clock, {
    cacheSeconds: config.searchCacheSeconds,
    cacheEntries: config.searchCacheEntries,
    shared: sharedSearchResultsOver(counters),
  });
  let restored = 0;
  if (deps.keepSearchResults) {
    try {
      restored = await search.restoreSnapshot();
    } catch (err) {
      app.log.warn({ err }, 'the kept search results could not be read; the search cache starts empty');
    }
  }
  app.decorate('searchResultsRestored', restored);
  app.addHook('onClose', async () => {
    if (deps.keepSearchResults) {
      try {
        await search.saveSnapshot();
      } catch (err) {
        app.log.warn({ err }, 'the search results could not be kept for the next start');
      }
    }
    search.close();
  });
  // `app.warmedUp` (GET /readyz) and the mark of the warm-up's own requests (src/warmup.ts); its
  // onRequest hook runs before every other.
  registerWarmup(app);
  const services: Services = {
    database,
    clock,
    siteUrl: config.siteUrl,
    // rel="payment" discovery for POST /tip of unregistered URLs (src/discovery, DISCOVERY=on),
    // its results kept in this process, or in Redis with REDIS_URL.
    discovery: config.discovery
      ? createDiscovery({
          siteUrl: config.siteUrl,
          allowPrivate: config.discoveryAllowPrivate,
          cache: discoveryCacheOver(counters),
        })
      : undefined,
    search,
    passwordHashing: passwordHasher,
  };
  const rateLimiter = new RateLimiter(counters, {
    anonymousLimit: config.rateLimitAnonymous,
    authenticatedLimit: config.rateLimitAuthenticated,
    clock: services.clock,
  });
  const ctx: RouteContext = {
    services,
    urls: { api: `${config.publicUrl}${API_PREFIX}`, site: config.siteUrl },
    publicUrl: config.publicUrl,
  };

  // Prometheus metrics, first, so that every route registered after it is observed (requests by
  // route, tips, outbox depth, process): /metrics on this port behind METRICS_TOKEN,
  // and not at all when METRICS_PORT moves it to its own listener.
  registerMetrics(
    app,
    services,
    { token: config.metricsToken, onPublicPort: config.metricsToken !== undefined && config.metricsPort === undefined },
    config.publicUrl,
  );

  // Unknown pages outside the API: the website's HTML 404 for browsers, the error shape otherwise.
  registerErrorHandling(app, config.publicUrl, (request, reply, status, message) =>
    sendBareErrorPage(request, reply, API_PREFIX, status, message),
  );
  await registerBodyParsers(app);
  // Control characters in path and query parameters and body fields: 400 on every route.
  registerControlCharacterGuard(app);
  // CORS on every response, preflight included (DECISIONS.md): any origin, no credentials.
  await app.register(cors, {
    origin: '*',
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept'],
    // One string, not a list: @fastify/cors would join a list on every request.
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 86400,
    strictPreflight: false,
  });
  // The spec's content type exactly: `application/json;charset=utf-8` (no space) where Fastify
  // would send its default `application/json; charset=utf-8` for a value. Runs only for values
  // Fastify serializes; text and empty bodies carry the type their route set, or none.
  app.addHook('preSerialization', (_request, reply, payload, done) => {
    if (reply.getHeader('content-type') === FASTIFY_JSON_TYPE) reply.header('content-type', JSON_TYPE);
    done(null, payload);
  });

  /** GET /healthz — the process is up. */
  app.get('/healthz', async () => ({ status: 'ok' }));
  /**
   * GET /readyz — 200 `{status: 'ok'}` once the server has warmed up (src/warmup.ts) and while the
   * database answers; 503 `{status: 'warming up'}` during the warm-up, `{status: 'unavailable'}`
   * when the database does not answer.
   */
  app.get('/readyz', async (_request, reply) => {
    if (!app.warmedUp) return reply.code(503).send({ status: 'warming up' });
    try {
      await pingDatabase(database);
      return { status: 'ok' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  // OpenAPI 3.1 at /openapi.json and Swagger UI at /docs, generated from the route schemas that
  // follow (registered before them: @fastify/swagger collects routes as they are added).
  await registerOpenApi(app, { publicUrl: config.publicUrl, authUrl: config.authUrl, apiPrefix: API_PREFIX });

  // OAuth 2 machine endpoints at the root of {auth_url} (token, revoke, RFC 8414 metadata), in
  // their own context: errors there take the RFC 6749 §5.2 form; failed client authentications
  // are limited per (client_id, IP) and per IP.
  const clientAuthLimits = createClientAuthLimits(counters, config, services.clock);
  await app.register(async (oauth) =>
    oauthRoutes(oauth, {
      services,
      authUrl: config.authUrl,
      docsUrl: `${config.publicUrl}/docs/api#oauth-2`,
      clientAuthLimits,
    }),
  );

  await app.register(
    async (api) => {
      // One onRequest hook: the token is resolved first (the limiter keys by it), every request is
      // then counted (406s, bad JSONP and unknown paths too), and formats negotiate after that.
      registerApiPipeline(api, { services, limiter: rateLimiter });
      // Unknown paths under the prefix get this context's hooks (so they are rate limited too).
      // A `/things/:id,:id` segment too long for the router holds too many ids: 400, as the route says.
      api.setNotFoundHandler((request, reply) =>
        sendDomainError(
          reply,
          config.publicUrl,
          overlongIdListError(request.method, request.url.slice(API_PREFIX.length)) ??
            new DomainError('not_found', 'The resource was not found'),
        ),
      );
      apiRoutes(api, ctx);
    },
    { prefix: API_PREFIX },
  );
  // The website (src/web): server-rendered pages at the root, with its own cookies, CSRF check and
  // HTML error pages; includes the authorization endpoint's pages (GET/POST /oauth/authorize).
  await app.register(webPlugin, { services, config, limits: createWebLimits(counters, config, services.clock) });

  // The plain anonymous GET /things/:id beside the router (src/http/plain-thing-read.ts), on the
  // app's own server; not while requests are logged, which only Fastify's pipeline does. It is set
  // once the app is ready and unset when it starts closing (Fastify then answers 503). A second
  // server Fastify binds for another address of the host name (`localhost` on a dual-stack
  // machine) leaves every request to the router.
  if (!requestLogging) {
    let plainRead: PlainThingRead | undefined;
    offerToPlainThingRead(app.server, () => plainRead);
    const read = plainThingRead({
      services,
      urls: ctx.urls,
      apiPrefix: API_PREFIX,
      limiter: rateLimiter,
      trustProxy: config.trustProxy,
      corsHeaders: { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED_HEADERS },
      jsonType: JSON_TYPE,
      observe: app.plainReadObserver(`${API_PREFIX}/things/:ids`),
    });
    app.addHook('onReady', async () => {
      plainRead = read;
    });
    app.addHook('preClose', async () => {
      plainRead = undefined;
    });
  }
  return app;
}
