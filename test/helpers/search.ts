/**
 * Helpers of the search cache tests: a search through the app, and the cache's counters from
 * GET /metrics.
 */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { API, bearer } from './app.ts';

export interface SearchPage {
  total: number;
  ids: number[];
  things: { id: number; tips: number }[];
}

/** `GET /rest/v2/things/search?<query>` on `app`; asserts a 200 and returns the page's total and ids. */
export async function searchThings(
  app: FastifyInstance,
  query: string,
  headers: Record<string, string> = {},
): Promise<SearchPage> {
  const res = await app.inject({ url: `${API}/things/search?${query}`, headers });
  expect(res.statusCode, res.body).toBe(200);
  const body = JSON.parse(res.body) as { total_items: number; things: { id: number; tips: number }[] };
  return { total: body.total_items, ids: body.things.map((t) => t.id), things: body.things };
}

/**
 * The search cache's request counts of `app` by result (`hit`, `shared`, `miss`), read from
 * GET /metrics with `metricsToken`; NaN for a result the metrics do not carry.
 */
export async function searchCacheCounts(
  app: FastifyInstance,
  metricsToken: string,
): Promise<{ hits: number; shared: number; misses: number }> {
  const res = await app.inject({ url: '/metrics', headers: bearer(metricsToken) });
  expect(res.statusCode).toBe(200);
  const value = (result: string) =>
    Number(new RegExp(`tipjar_search_cache_requests_total\\{result="${result}"\\} (\\d+)`).exec(res.body)?.[1] ?? NaN);
  return { hits: value('hit'), shared: value('shared'), misses: value('miss') };
}
