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
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type HookHandlerDoneFunction,
} from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { DomainError, UnauthorizedError } from '../../domain/errors.ts';
import { sendDomainError } from './errors.ts';
import { serverOptions, type TimeoutSettings } from '../server-options.ts';
import type { Services } from '../../domain/services.ts';
import { countPendingWebhooks } from '../../domain/events.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts one tip acknowledged through the API (called by the tip routes after the commit). */
    countTip: () => void;
    /** This app's metrics, for the separate metrics listener (`listenForMetrics`). */
    metricsRegistry: Registry;
    /**
     * The observer of the plain thing reads answered beside Fastify's router
     * (src/http/plain-thing-read.ts): each call counts one request of `GET <url>` (the route's
     * pattern) with its status and duration in seconds, and one plain read.
     */
    plainReadObserver: (url: string) => (status: number, seconds: number) => void;
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
  const durations = new RequestDurations(
    'tipjar_http_request_duration_seconds',
    'HTTP requests by method, route pattern and status, with their duration in seconds',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  registry.registerMetric(durations as unknown as Metric);
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
      this.set(await countPendingWebhooks(services));
    },
  });

  const cache = services.search?.cacheStats;
  if (cache) {
    new Counter({
      name: 'tipjar_search_cache_requests_total',
      help: 'Searches answered from the search result cache (result="hit"), from a result another instance shared (result="shared"), and run against the database (result="miss")',
      labelNames: ['result'] as const,
      registers: [registry],
      collect() {
        this.reset();
        this.inc({ result: 'hit' }, cache.hits);
        this.inc({ result: 'shared' }, cache.shared);
        this.inc({ result: 'miss' }, cache.misses);
      },
    });
  }

  app.decorate('countTip', () => tips.inc());
  app.decorate('metricsRegistry', registry);
  const plainReads = new Counter({
    name: 'tipjar_http_plain_thing_reads_total',
    help: 'Anonymous GET /rest/v2/things/:id answered beside the router (docs/adr/0043), also counted in tipjar_http_request_duration_seconds',
    registers: [registry],
  });
  app.decorate('plainReadObserver', (url: string) => {
    const series = durations.route(url);
    return (status: number, seconds: number) => {
      durations.observe(series, 'GET', status, seconds);
      plainReads.inc();
    };
  });
  // Each route gets its own onResponse hook, bound to its series when it is registered: observing
  // a request is two Map lookups (method, status) and a few additions, nothing allocated. Unknown
  // paths (the not-found handlers) are one route, `unknown`.
  app.addHook('onRoute', (route) => {
    const series = durations.route(route.url);
    const hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      // The server's own warm-up requests (src/warmup.ts) are not client traffic.
      if (!request.warmup) durations.observe(series, request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
    route.onResponse = route.onResponse === undefined ? hook : [route.onResponse, hook].flat();
  });
  const unknown = durations.route('unknown');
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404 && !request.warmup)
      durations.observe(unknown, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  /** GET /metrics — Prometheus exposition format; 401 without the token when one is set. */
  if (access.onPublicPort) app.get('/metrics', metricsHandler(registry, access.token, publicUrl));
}

/** One series of the request histogram: counts per bucket (the last: above every bound), sum, count. */
interface Series {
  buckets: number[];
  sum: number;
  count: number;
}

/** A route's series by method, then status. */
interface RouteSeries {
  route: string;
  byMethod: Map<string, Map<number, Series>>;
}

/**
 * The request histogram (`method`, `route`, `status` labels): a prom-client metric (its `get` and
 * `getForPromString` give what prom-client's Histogram gives, so the exposition is the same),
 * observed without allocating once a (method, route, status) series exists.
 */
export class RequestDurations {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly routes: RouteSeries[] = [];

  /** @param bounds the buckets' upper bounds in seconds, ascending */
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  /** The series of a route pattern, to observe its requests with. */
  route(route: string): RouteSeries {
    const series: RouteSeries = { route, byMethod: new Map() };
    this.routes.push(series);
    return series;
  }

  /** Counts one request of `method` on `route` answered with `status` after `seconds`. */
  observe(route: RouteSeries, method: string, status: number, seconds: number): void {
    let byStatus = route.byMethod.get(method);
    if (byStatus === undefined) route.byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      series = { buckets: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      byStatus.set(status, series);
    }
    let i = 0;
    while (i < this.bounds.length && seconds > this.bounds[i]!) i++;
    series.buckets[i]!++;
    series.sum += seconds;
    series.count++;
  }

  /** Every series in prom-client's export form: cumulative buckets, `+Inf`, sum, count. */
  async getForPromString() {
    const name = this.name;
    const values: Array<{
      labels: Record<string, string | number>;
      sharedLabels: Record<string, string>;
      value: number;
      metricName: string;
    }> = [];
    // The same pattern may be registered in several contexts (e.g. HEAD beside GET): one series.
    const merged = new Map<string, Series>();
    for (const { route, byMethod } of this.routes) {
      for (const [method, byStatus] of byMethod) {
        for (const [status, s] of byStatus) {
          const key = JSON.stringify([method, route, status]);
          const into = merged.get(key);
          if (!into) merged.set(key, { buckets: [...s.buckets], sum: s.sum, count: s.count });
          else {
            s.buckets.forEach((n, i) => (into.buckets[i]! += n));
            into.sum += s.sum;
            into.count += s.count;
          }
        }
      }
    }
    for (const [key, s] of merged) {
      const [method, route, status] = JSON.parse(key) as [string, string, number];
      const shared = { method, route, status: String(status) };
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.buckets[i]!;
        values.push({ labels: { le }, sharedLabels: shared, value: acc, metricName: `${name}_bucket` });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: shared, value: s.count, metricName: `${name}_bucket` });
      values.push({ labels: {}, sharedLabels: shared, value: s.sum, metricName: `${name}_sum` });
      values.push({ labels: {}, sharedLabels: shared, value: s.count, metricName: `${name}_count` });
    }
    return { name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As getForPromString, with each value's labels merged (prom-client's JSON form). */
  async get() {
    const data = await this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, ...rest }) => ({
        ...rest,
        labels: { ...labels, ...sharedLabels },
      })),
    };
  }

  reset(): void {
    for (const r of this.routes) r.byMethod.clear();
  }
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
