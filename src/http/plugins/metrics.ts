/**
 * `GET /metrics` (DESIGN.md "Operations"): Prometheus text from prom-client (docs/adr/0014) —
 * requests and their latency by route and status, tips acknowledged through the API, the webhook
 * outbox depth (one count query per scrape), the search cache's hits and misses, and the
 * process's own metrics (memory, CPU, event-loop lag). Each app gets its own registry, so several
 * apps in one process (tests) do not collide. Not rate limited, not in the OpenAPI document.
 *
 * Who may scrape (docs/operations.md "Metrics"):
 * - METRICS_PORT set: only a second listener on METRICS_HOST:METRICS_PORT (127.0.0.1 by default)
 *   serves `/metrics`; the public port answers 404 as for any unknown path.
 * - otherwise, METRICS_TOKEN set: the public port serves it to `Authorization: Bearer <token>`
 *   only (compared in constant time); without it or with another token, 401.
 * - neither: `/metrics` is not served (404).
 * With both, the second listener asks for the token too.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DomainError, UnauthorizedError } from '../../domain/errors.ts';
import { sendDomainError } from './errors.ts';
import { serverOptions, type TimeoutSettings } from '../server-options.ts';
import type { Services } from '../../domain/services.ts';
import { countPending } from '../../db/repositories/webhooks.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts one tip acknowledged through the API (called by the tip routes after the commit). */
    countTip: () => void;
    /** This app's metrics, for the separate metrics listener (`listenForMetrics`). */
    metricsRegistry: Registry;
  }
}

/** Where `/metrics` is served and to whom (the settings METRICS_TOKEN and METRICS_PORT). */
export interface MetricsAccess {
  /** the bearer token a scraper must present; undefined: none asked for */
  token: string | undefined;
  /** true: the public app serves `/metrics` (METRICS_TOKEN set, METRICS_PORT unset) */
  onPublicPort: boolean;
}

/**
 * Collects the metrics of `app` into its own registry (`app.metricsRegistry`), and serves
 * `GET /metrics` on `app` itself when `access.onPublicPort` (behind the token).
 * @param publicUrl origin for the `error_uri` of a refused scrape.
 */
export function registerMetrics(
  app: FastifyInstance,
  services: Services,
  access: MetricsAccess,
  publicUrl: string,
  opts: { defaultMetrics?: boolean } = {},
): void {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const requests = new Histogram({
    name: 'tipjar_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, with their duration in seconds',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const tips = new Counter({
    name: 'tipjar_api_tips_total',
    help: 'Tips acknowledged by this process through the API (POST /things/:id/tip, POST /tip)',
    registers: [registry],
  });
  new Gauge({
    name: 'tipjar_webhook_outbox_pending',
    help: 'Webhook deliveries waiting in the outbox (whole database)',
    registers: [registry],
    async collect() {
      this.set(await countPending(services.database.db));
    },
  });

  const cache = services.search?.cacheStats;
  if (cache) {
    new Counter({
      name: 'tipjar_search_cache_requests_total',
      help: 'Searches answered from the search result cache (result="hit") and run against the database (result="miss")',
      labelNames: ['result'] as const,
      registers: [registry],
      collect() {
        this.reset();
        this.inc({ result: 'hit' }, cache.hits);
        this.inc({ result: 'miss' }, cache.misses);
      },
    });
  }

  app.decorate('countTip', () => tips.inc());
  app.decorate('metricsRegistry', registry);
  // One bound child per (method, route, status): observing through it skips label hashing, which
  // would otherwise cost a measurable share of a point read.
  const children = new Map<string, { observe(v: number): void }>();
  app.addHook('onResponse', (request, reply, done) => {
    // The server's own warm-up requests (src/warmup.ts) are not client traffic.
    if (request.warmup) return done();
    // The route pattern, never the raw URL, so the label set stays small; unknown routes are one label.
    const route = request.routeOptions.url ?? 'unknown';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      child = requests.labels(request.method, route, String(reply.statusCode));
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });

  /** GET /metrics — Prometheus exposition format; 401 without the token when one is set. */
  if (access.onPublicPort) app.get('/metrics', metricsHandler(registry, access.token, publicUrl));
}

/** SHA-256 of a token: equal-length digests for `timingSafeEqual`, whatever the lengths given. */
const digest = (token: string) => createHash('sha256').update(token).digest();

/**
 * The `/metrics` route handler: the registry's text, or 401 `unauthorized` (with
 * `WWW-Authenticate: Bearer realm="metrics"`) when `token` is set and the request does not carry
 * `Authorization: Bearer <token>`. The comparison takes the same time whatever the token sent.
 */
function metricsHandler(registry: Registry, token: string | undefined, publicUrl: string) {
  const expected = token === undefined ? undefined : digest(token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected) {
      const presented = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1];
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        reply.header('www-authenticate', 'Bearer realm="metrics"');
        return sendDomainError(
          reply,
          publicUrl,
          new UnauthorizedError('Scraping the metrics needs Authorization: Bearer <METRICS_TOKEN>', 'api'),
        );
      }
    }
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  };
}

/**
 * Starts the separate metrics listener (METRICS_PORT): `GET /metrics` of `app` on `host:port`,
 * behind `token` when one is set; every other path 404 in the error shape. It has the public
 * listener's connection deadlines. Close it with `close()` when the app closes.
 * @param port 0 picks a free port (tests); read it from `server.address()`.
 * @throws the listen error (e.g. EADDRINUSE), so start-up fails naming it.
 */
export async function listenForMetrics(
  app: FastifyInstance,
  opts: { port: number; host: string; token: string | undefined; publicUrl: string; timeouts: TimeoutSettings },
): Promise<FastifyInstance> {
  const server = Fastify({ logger: false, ...serverOptions(opts.timeouts, opts.publicUrl) });
  server.get('/metrics', metricsHandler(app.metricsRegistry, opts.token, opts.publicUrl));
  server.setNotFoundHandler((_request, reply) =>
    sendDomainError(reply, opts.publicUrl, new DomainError('not_found', 'Only /metrics is served here')),
  );
  await server.listen({ port: opts.port, host: opts.host });
  return server;
}
