/**
 * GET /metrics (DESIGN.md "Operations"): Prometheus text with requests by route and status, the
 * tips acknowledged through the API, and the webhook outbox depth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, uniqueName } from '../helpers/factories.ts';
import { createPartner } from '../../src/domain/partners.ts';

const metricValue = (text: string, line: string): number | undefined => {
  const row = text.split('\n').find((l) => l.startsWith(`${line} `));
  return row === undefined ? undefined : Number(row.slice(line.length + 1));
};

describe.each(ENGINES)('GET /metrics on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  const scrape = async () => {
    const res = await t.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return res.body;
  };

  it('counts requests by route pattern and status, and tips acknowledged through the API', async () => {
    const owner = await buildUser(t.services);
    const tipper = await buildUser(t.services, { scopes: 'tip' });
    const id = await buildThing(t.services, owner);
    expect(metricValue(await scrape(), 'tipjar_api_tips_total')).toBe(0);

    expect((await t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(tipper.token) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(tipper.token) })).statusCode).toBe(403);
    await t.app.inject({ url: `${API}/things/${id}` });
    await t.app.inject({ url: `${API}/things/${id + 1000}` });

    const text = await scrape();
    expect(metricValue(text, 'tipjar_api_tips_total')).toBe(1); // the tip_once refusal is not a tip
    const count = (route: string, status: number, method = 'GET') =>
      metricValue(text, `tipjar_http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`);
    expect(count('/rest/v2/things/:id/tip', 200, 'POST')).toBe(1);
    expect(count('/rest/v2/things/:id/tip', 403, 'POST')).toBe(1);
    expect(count('/rest/v2/things/:ids', 200)).toBe(1);
    expect(count('/rest/v2/things/:ids', 404)).toBe(1);
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('reports the pending deliveries of the webhook outbox', async () => {
    expect(metricValue(await scrape(), 'tipjar_webhook_outbox_pending')).toBe(0);
    const namespace = uniqueName('ns');
    await createPartner(t.services, { namespace, webhookUrl: 'http://127.0.0.1:9/hook', events: 'pendingclickcreate', allowPrivateWebhook: true });
    const tipper = await buildUser(t.services, { scopes: 'tip' });
    const url = `${PUBLIC_URL}/submit/auto?${new URLSearchParams({ url: `https://blog.example.com/${uniqueName('p')}`, owner: `partner:${namespace}:7` })}`;
    const res = await t.app.inject({ method: 'POST', url: `${API}/tip`, headers: bearer(tipper.token), payload: { url } });
    expect(res.statusCode).toBe(200);
    expect(metricValue(await scrape(), 'tipjar_webhook_outbox_pending')).toBe(1);
  });
});
