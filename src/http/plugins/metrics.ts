/**
 * `GET /metrics` (DESIGN.md "Operations"): Prometheus text from prom-client (docs/adr/0014) —
 * requests and their latency by route and status, tips acknowledged through the API, the webhook outbox depth, the
 * search cache's hits and misses, and the
 * process's own metrics (memory, CPU, event-loop lag). Each app gets its own registry, so several
 * apps in one process (tests) do not collide. Not rate limited, not in the OpenAPI document.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Services } from '../../domain/services.ts';
import { countPending } from '../../db/repositories/webhooks.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts one tip acknowledged through the API (called by the tip routes after the commit). */
    countTip: () => void;
  }
}

export function registerMetrics(app: FastifyInstance, services: Services, opts: { defaultMetrics?: boolean } = {}): void {
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

  const cache = services.searchCache;
  if (cache) {
    new Counter({
      name: 'tipjar_search_cache_requests_total',
      help: 'Searches answered from the search result cache (result="hit") and run against the database (result="miss")',
      labelNames: ['result'] as const,
      registers: [registry],
      collect() {
        this.reset();
        this.inc({ result: 'hit' }, cache.stats.hits);
        this.inc({ result: 'miss' }, cache.stats.misses);
      },
    });
  }

  app.decorate('countTip', () => tips.inc());
  // One bound child per (method, route, status): observing through it skips label hashing, which
  // would otherwise cost a measurable share of a point read.
  const children = new Map<string, { observe(v: number): void }>();
  app.addHook('onResponse', (request, reply, done) => {
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

  /** GET /metrics — Prometheus exposition format. */
  app.get('/metrics', async (_request, reply) => {
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });
}
