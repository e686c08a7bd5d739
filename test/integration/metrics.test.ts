/**
 * GET /metrics (DESIGN.md "Operations", docs/operations.md "Metrics"): Prometheus text with
 * requests by route and status, the tips acknowledged through the API, and the webhook outbox
 * depth; served only behind METRICS_TOKEN, or on the separate METRICS_PORT listener.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, uniqueName } from '../helpers/factories.ts';
import { createPartner } from '../../src/webhooks/partners.ts';
import { listenForMetrics } from '../../src/http/plugins/metrics.ts';

const TOKEN = 'metrics-token-0123456789abcdef0123456789abcdef';
const PROMETHEUS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const metricValue = (text: string, line: string): number | undefined => {
  const row = text.split('\n').find((l) => l.startsWith(`${line} `));
  return row === undefined ? undefined : Number(row.slice(line.length + 1));
};

describe.each(ENGINES)('GET /metrics on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine, { env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => t.close());

  const scrape = async () => {
    const res = await t.app.inject({ url: '/metrics', headers: bearer(TOKEN) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(PROMETHEUS_TYPE);
    return res.body;
  };

  it('counts requests by route pattern and status, and tips acknowledged through the API', async () => {
    const owner = await buildUser(t.services);
    const tipper = await buildUser(t.services, { scopes: 'tip' });
    const id = await buildThing(t.services, owner);
    expect(metricValue(await scrape(), 'tipjar_api_tips_total')).toBe(0);

    expect(
      (await t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(tipper.token) }))
        .statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(tipper.token) }))
        .statusCode,
    ).toBe(403);
    await t.app.inject({ url: `${API}/things/${id}` });
    await t.app.inject({ url: `${API}/things/${id + 1000}` });

    const text = await scrape();
    expect(metricValue(text, 'tipjar_api_tips_total')).toBe(1); // the tip_once refusal is not a tip
    const count = (route: string, status: number, method = 'GET') =>
      metricValue(
        text,
        `tipjar_http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`,
      );
    expect(count('/rest/v2/things/:id/tip', 200, 'POST')).toBe(1);
    expect(count('/rest/v2/things/:id/tip', 403, 'POST')).toBe(1);
    expect(count('/rest/v2/things/:ids', 200)).toBe(1);
    expect(count('/rest/v2/things/:ids', 404)).toBe(1);
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('reports the pending deliveries of the webhook outbox', async () => {
    expect(metricValue(await scrape(), 'tipjar_webhook_outbox_pending')).toBe(0);
    const namespace = uniqueName('ns');
    await createPartner(t.services, {
      namespace,
      webhookUrl: 'http://127.0.0.1:9/hook',
      events: 'pendingclickcreate',
      allowPrivateWebhook: true,
    });
    const tipper = await buildUser(t.services, { scopes: 'tip' });
    const url = `${PUBLIC_URL}/submit/auto?${new URLSearchParams({ url: `https://blog.example.com/${uniqueName('p')}`, owner: `partner:${namespace}:7` })}`;
    const res = await t.app.inject({
      method: 'POST',
      url: `${API}/tip`,
      headers: bearer(tipper.token),
      payload: { url },
    });
    expect(res.statusCode).toBe(200);
    expect(metricValue(await scrape(), 'tipjar_webhook_outbox_pending')).toBe(1);
  });
});

describe.each(ENGINES)('who may scrape GET /metrics on %s', (engine) => {
  /** The 401 of a refused scrape, exactly. */
  const expectRefused = (res: Awaited<ReturnType<FastifyInstance['inject']>>) => {
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(json(res)).toEqual({
      error: 'unauthorized',
      error_description: 'Scraping the metrics needs Authorization: Bearer <METRICS_TOKEN>',
      error_uri: `${PUBLIC_URL}/docs/api#errors`,
    });
    expect(res.body).not.toContain('tipjar_');
  };

  it('is not served on the public port when neither METRICS_TOKEN nor METRICS_PORT is set', async () => {
    const t = await buildTestApp(engine);
    try {
      for (const headers of [{}, bearer(TOKEN)]) {
        const res = await t.app.inject({ url: '/metrics', headers });
        expect(res.statusCode).toBe(404);
        expect(json(res)).toMatchObject({ error: 'not_found' });
      }
    } finally {
      await t.close();
    }
  });

  it('with METRICS_TOKEN: 401 without the token or with another, 200 with it', async () => {
    const t = await buildTestApp(engine, { env: { METRICS_TOKEN: TOKEN } });
    try {
      expectRefused(await t.app.inject({ url: '/metrics' }));
      expectRefused(await t.app.inject({ url: '/metrics', headers: bearer(`${TOKEN.slice(0, -1)}0`) })); // same length, last character differs
      expectRefused(await t.app.inject({ url: '/metrics', headers: bearer(TOKEN.slice(0, 20)) })); // a prefix
      expectRefused(await t.app.inject({ url: '/metrics', headers: bearer(`${TOKEN}x`) }));
      expectRefused(
        await t.app.inject({
          url: '/metrics',
          headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
        }),
      );
      expectRefused(await t.app.inject({ url: '/metrics', query: { access_token: TOKEN } }));
      const ok = await t.app.inject({ url: '/metrics', headers: { authorization: `bearer ${TOKEN}` } });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['content-type']).toBe(PROMETHEUS_TYPE);
      expect(ok.body).toContain('tipjar_webhook_outbox_pending 0');
    } finally {
      await t.close();
    }
  });

  it('with METRICS_PORT: served by its own listener on 127.0.0.1 (with the token when set), not on the public port', async () => {
    for (const token of [undefined, TOKEN]) {
      const t = await buildTestApp(engine, {
        env: { METRICS_PORT: '9464', ...(token ? { METRICS_TOKEN: token } : {}) },
      });
      let listener: FastifyInstance | undefined;
      try {
        expect(t.config.metricsHost).toBe('127.0.0.1');
        // Port 0 instead of the configured 9464: a free port, so parallel test files never collide.
        listener = await listenForMetrics(t.app, {
          port: 0,
          host: t.config.metricsHost,
          token: t.config.metricsToken,
          publicUrl: t.config.publicUrl,
          timeouts: t.config,
        });
        const address = listener.server.address() as AddressInfo;
        expect(address.address).toBe('127.0.0.1');
        const base = `http://127.0.0.1:${address.port}`;

        for (const headers of [{}, bearer(TOKEN)]) {
          const res = await t.app.inject({ url: '/metrics', headers });
          expect(res.statusCode).toBe(404);
          expect(json(res)).toMatchObject({ error: 'not_found' });
        }
        await t.app.inject({ url: '/healthz' });

        if (token) {
          const refused = await fetch(`${base}/metrics`);
          expect(refused.status).toBe(401);
          expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
          expect(((await refused.json()) as { error: string }).error).toBe('unauthorized');
          expect((await fetch(`${base}/metrics`, { headers: bearer('x'.repeat(TOKEN.length)) })).status).toBe(401);
        }
        const res = await fetch(`${base}/metrics`, { headers: token ? bearer(token) : {} });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe(PROMETHEUS_TYPE);
        const text = await res.text();
        // The public app's own registry: its request to /healthz is counted there.
        expect(
          metricValue(text, 'tipjar_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}'),
        ).toBe(1);
        expect(metricValue(text, 'tipjar_webhook_outbox_pending')).toBe(0);

        const other = await fetch(`${base}${API}/things/1`);
        expect(other.status).toBe(404);
      } finally {
        await listener?.close();
        await t.close();
      }
    }
  });
});
