/**
 * The API's request pipeline (src/http/plugins/api-pipeline.ts, docs/adr/0023-request-pipeline.md),
 * on every engine: one onRequest hook for the API's own work and no onSend hook on the JSON path;
 * XML and JSONP rendered per request from the route's value (the same document the JSON text
 * gives), errors included; the spec's exact JSON content type on values and none on 204s; the
 * Accept outcomes a route keeps are its own; and the request metrics of unknown paths and HEAD.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { toXml } from '../../src/formats/xml.ts';

const JSON_TYPE = 'application/json;charset=utf-8';
const XML_TYPE = 'application/xml;charset=utf-8';
const TEXT_XML_TYPE = 'text/xml;charset=utf-8';
const JSONP_TYPE = 'application/javascript;charset=utf-8';
const METRICS_TOKEN = 'pipeline-metrics-token-0123456789abcdef0123456789';

/** The hooks of one route, by kind, from Fastify's route tree (`printRoutes({includeHooks})`). */
function hooksOf(tree: string, routeLine: RegExp): Record<string, string[]> {
  const lines = tree.split('\n');
  const at = lines.findIndex((l) => routeLine.test(l));
  expect(at, `no route line matching ${routeLine}`).toBeGreaterThanOrEqual(0);
  const hooks: Record<string, string[]> = {};
  for (const line of lines.slice(at + 1)) {
    const m = /• \((\w+)\) (\[.*\])$/.exec(line);
    if (!m) break;
    hooks[m[1]!] = JSON.parse(m[2]!) as string[];
  }
  return hooks;
}

describe.each(ENGINES)('the API request pipeline on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser;
  let thingId: number;

  beforeAll(async () => {
    t = await buildTestApp(engine, { env: { METRICS_TOKEN } });
    owner = await buildUser(t.services);
    thingId = await buildThing(t.services, owner, { title: 'Piped <thing> & co', tags: 'one,two' });
  });
  afterAll(async () => t.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ url: `${API}${url}`, headers: { 'x-forwarded-for': '198.51.100.7', ...headers } });

  it('GET /things/:id runs one onRequest hook of its own, and no preParsing, preHandler or onSend hook', () => {
    const hooks = hooksOf(t.app.printRoutes({ includeHooks: true, method: 'GET' }), /:ids\|:id \(GET\)$/);
    // The warm-up mark and CORS (root), then the API's one hook.
    expect(hooks.onRequest).toHaveLength(3);
    expect(hooks.onRequest![1]).toBe('handleCors()');
    expect(hooks.preParsing).toBeUndefined();
    expect(hooks.preHandler).toBeUndefined();
    expect(hooks.onSend).toBeUndefined();
  });

  it('JSON: the spec’s content type exactly, and the rate-limit headers', async () => {
    const res = await get(`/things/${thingId}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    expect(json(res).id).toBe(thingId);
  });

  it('XML (suffix, Accept, text/xml) is the XML document of the JSON representation', async () => {
    const body = json(await get(`/things/${thingId}`));
    const expected = toXml(body, 'things');
    for (const [url, accept, type] of [
      [`/things/${thingId}.xml`, undefined, XML_TYPE],
      [`/things/${thingId}`, 'application/xml', XML_TYPE],
      [`/things/${thingId}`, 'text/xml', TEXT_XML_TYPE],
    ] as const) {
      const res = await get(url, accept ? { accept } : {});
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.body).toBe(expected);
    }
    const list = await get(`/things/${thingId},${thingId}.xml`);
    expect(list.body).toBe(toXml(json(await get(`/things/${thingId},${thingId}`)), 'things'));
  });

  it('JSONP wraps the JSON text the route sends, with its status, errors included', async () => {
    const plain = await get(`/things/${thingId}`);
    const res = await get(`/things/${thingId}?jsonp=app.cb`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(JSONP_TYPE);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toBe(`/**/app.cb(${plain.body});`);

    const missing = await get('/things/999999999?jsonp=cb');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe(JSONP_TYPE);
    expect(missing.body).toMatch(/^\/\*\*\/cb\(\{"error":"not_found",/);
  });

  it('errors are rendered in the negotiated format; 406 stays JSON', async () => {
    const missing = await get('/things/999999999.xml');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe(XML_TYPE);
    expect(missing.body).toMatch(/^<\?xml [^>]*>\n<error><error>not_found<\/error>/);

    const refused = await get(`/things/${thingId}`, { accept: 'application/atom+xml' });
    expect(refused.statusCode).toBe(406);
    expect(refused.headers['content-type']).toBe(JSON_TYPE);
  });

  it('a route keeps the outcome of each Accept for itself: the same Accept on a feed list is Atom', async () => {
    const accept = 'application/atom+xml';
    expect((await get(`/things/${thingId}`, { accept })).statusCode).toBe(406);
    const feed = await get(`/users/${owner.user.username}/things`, { accept });
    expect(feed.statusCode).toBe(200);
    expect(feed.headers['content-type']).toBe('application/atom+xml;charset=utf-8');
    expect((await get(`/things/${thingId}`, { accept })).statusCode).toBe(406);
  });

  it('a 204 carries no content type; an unknown path is counted and answers 404 in JSON', async () => {
    const doomed = await buildThing(t.services, owner, { title: 'Doomed' });
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `${API}/things/${doomed}`,
      headers: bearer(owner.token),
    });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.headers['content-type']).toBeUndefined();
    expect(deleted.headers['x-ratelimit-limit']).toBeDefined();

    const unknown = await get('/no/such/thing?jsonp=cb');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['x-ratelimit-limit']).toBeDefined();
    expect(unknown.headers['content-type']).toBe(JSONP_TYPE);
  });

  it('metrics: unknown paths are one route, `unknown`; HEAD is counted as HEAD', async () => {
    await get('/no/such/path');
    await t.app.inject({ method: 'HEAD', url: `${API}/things/${thingId}` });
    const text = (await t.app.inject({ url: '/metrics', headers: bearer(METRICS_TOKEN) })).body;
    const count = (labels: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`tipjar_http_request_duration_seconds_count{${labels}} `))
          ?.split(' ')[1],
      );
    expect(count('method="GET",route="unknown",status="404"')).toBeGreaterThanOrEqual(1);
    expect(count('method="HEAD",route="/rest/v2/things/:ids",status="200"')).toBe(1);
    expect(text).toContain(
      'tipjar_http_request_duration_seconds_bucket{le="+Inf",method="HEAD",route="/rest/v2/things/:ids",status="200"} 1',
    );
  });
});
