/**
 * The plain anonymous `GET /rest/v2/things/<id>` answered beside Fastify's router
 * (src/http/plain-thing-read.ts): which requests it takes, and that its answers are the route's,
 * byte for byte but the Date header, over real HTTP (inject never reaches it).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { STORES, storeEnv } from '../helpers/stores.ts';
import { listenTestApp, type ListeningApp } from '../helpers/server.ts';
import { buildThing, buildUser, ownedThing, principalOf } from '../helpers/factories.ts';
import { deleteThing } from '../../src/domain/things.ts';
import { offerToPlainThingRead, plainThingRead } from '../../src/http/plain-thing-read.ts';
import { RateLimiter } from '../../src/ratelimit/limiter.ts';
import { CounterStore } from '../../src/ratelimit/store.ts';
import { systemClock } from '../../src/domain/clock.ts';

const API = '/rest/v2';
/** What the fallback handler of the bare server answers: the request went on to Fastify. */
const FELL_THROUGH = 599;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over a new connection to `origin`. */
function get(origin: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${origin}${path}`, { headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

/**
 * The headers of an answer that do not vary from one request to the next: without the Date, the
 * connection's own (Connection, Keep-Alive: inject simulates none) and the counts of the rate limit.
 */
function steady(headers: object): Record<string, unknown> {
  const varying = new Set(['date', 'connection', 'keep-alive', 'x-ratelimit-remaining', 'x-ratelimit-current']);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !varying.has(name)));
}

describe.each(ENGINES)('plain thing read (%s)', (engine) => {
  let t: ListeningApp;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await listenTestApp(engine, { RATE_LIMIT_ANONYMOUS: '100000' });
    const s = t.services;
    const owner = await buildUser(s);
    ids.plain = await buildThing(s, owner);
    ids.text = await buildThing(s, owner, {
      title: 'Quotes " and \\ backslashes, ünïcödé, 漢字 and 🎉',
      description: `A description with a tab\there, a line\nbreak, <markup> & "quotes" and more than forty-two characters: ${'x'.repeat(300)}`,
      tags: 'music,åäö,日本',
      language: 'de_DE',
      category: 'text',
      image: 'https://example.com/i.png',
    });
    // Short strings take fast-json-stringify's own escaping (under 42 characters), long ones JSON.stringify.
    ids.short = await buildThing(s, owner, { title: '🎉 "q" \\ ä', description: 'tab\there\r\nx', tags: 'a' });
    ids.untagged = await buildThing(s, owner, { tags: '' });
    ids.hidden = await buildThing(s, owner, { hidden: true });
    ids.pending = await ownedThing(s, { identity: 'twitter:someone' });
    ids.deleted = await buildThing(s, owner);
    await deleteThing(s, principalOf(owner.user), ids.deleted);
  });
  afterAll(async () => t?.close());

  it('answers every live thing as the route does: the same status, headers and body', async () => {
    for (const name of ['plain', 'text', 'short', 'untagged', 'hidden', 'pending']) {
      const path = `${API}/things/${ids[name]}`;
      // As a page's script on another site asks it (CORS): the same headers as without Origin.
      const headers: Record<string, string> = name === 'text' ? { origin: 'https://blog.example' } : {};
      const plain = await get(t.site, path, headers);
      const routed = await t.app.inject({ method: 'GET', url: path, headers, remoteAddress: '127.0.0.1' });
      expect(plain.status, name).toBe(200);
      expect(plain.body, name).toBe(routed.body);
      expect(steady(plain.headers), name).toEqual(steady(routed.headers));
      // Both were counted once, against the same client: the route's count is the next one.
      expect(Number(routed.headers['x-ratelimit-current']), name).toBe(
        Number(plain.headers['x-ratelimit-current']) + 1,
      );
      expect(JSON.parse(plain.body)).toMatchObject({ id: ids[name], type: 'thing' });
    }
  });

  it('leaves every other request to the route, which answers as before', async () => {
    const cases: [string, Record<string, string>, number][] = [
      [`${API}/things/${ids.deleted}`, {}, 404],
      [`${API}/things/999999999`, {}, 404],
      [`${API}/things/${ids.plain}`, { accept: 'application/xml' }, 200],
      [`${API}/things/${ids.plain}.xml`, {}, 200],
      [`${API}/things/${ids.plain}?jsonp=cb`, {}, 200],
      [`${API}/things/${ids.plain}/`, {}, 200],
      [`${API}/things/${ids.plain},${ids.text}`, {}, 200],
      [`${API}/things/${ids.plain}`, { accept: 'image/png' }, 406],
      [`${API}/things/${ids.plain}`, { authorization: 'Bearer not-a-token' }, 401],
    ];
    for (const [path, headers, status] of cases) {
      const plain = await get(t.site, path, headers);
      const routed = await t.app.inject({ method: 'GET', url: path, headers, remoteAddress: '127.0.0.1' });
      expect(plain.status, path).toBe(status);
      expect(plain.body, path).toBe(routed.body);
      expect(steady(plain.headers), path).toEqual(steady(routed.headers));
    }
  });

  it('answers the plain reads itself, counted in the metrics under the route and as plain reads', async () => {
    const exposition = async () => (await t.app.metricsRegistry.metrics()).split('\n');
    const value = (lines: string[], start: string, ...labels: string[]) =>
      Number(
        lines
          .find((l) => l.startsWith(start) && labels.every((x) => l.includes(x)))
          ?.split(' ')
          .pop() ?? 0,
      );
    const counts = async () => {
      const lines = await exposition();
      return {
        route: value(
          lines,
          'tipjar_http_request_duration_seconds_count',
          'route="/rest/v2/things/:ids"',
          'status="200"',
          'method="GET"',
        ),
        plain: value(lines, 'tipjar_http_plain_thing_reads_total'),
      };
    };
    const before = await counts();
    for (let i = 0; i < 3; i++) expect((await get(t.site, `${API}/things/${ids.plain}`)).status).toBe(200);
    expect((await get(t.site, `${API}/things/${ids.plain}`, { accept: 'application/xml' })).status).toBe(200);
    expect(await counts()).toEqual({ route: before.route + 4, plain: before.plain + 3 });
  });
});

const ENGINE_STORES = ENGINES.flatMap((engine) => STORES.map((store) => [engine, store] as const));

/**
 * A listening app with `env` and the rate-limit counters in `store`, holding one thing, for the
 * describe block it is called in (started before its tests, closed after them).
 */
function appWithOneThing(
  engine: (typeof ENGINES)[number],
  store: (typeof STORES)[number],
  env: Record<string, string>,
): { app: () => ListeningApp; path: () => string } {
  let t: ListeningApp;
  let id: number;
  const counters = storeEnv(store);
  beforeAll(async () => {
    t = await listenTestApp(engine, { ...counters.env, ...env });
    id = await buildThing(t.services, await buildUser(t.services));
  });
  afterAll(async () => {
    await t?.close();
    await counters.cleanUp();
  });
  return { app: () => t, path: () => `${API}/things/${id}` };
}

describe.each(ENGINE_STORES)('plain thing read behind a proxy (%s, counters in %s)', (engine, store) => {
  const one = appWithOneThing(engine, store, { TRUST_PROXY: 'loopback', RATE_LIMIT_ANONYMOUS: '100000' });

  it('counts each client as the route does: the address the trusted proxy forwarded', async () => {
    const t = one.app();
    const path = one.path();
    const plainReads = async () =>
      Number(
        (await t.app.metricsRegistry.metrics())
          .split('\n')
          .find((l) => l.startsWith('tipjar_http_plain_thing_reads_total'))
          ?.split(' ')
          .pop() ?? 0,
      );
    const before = await plainReads();
    const first = await get(t.site, path, { 'x-forwarded-for': '203.0.113.7' });
    const again = await get(t.site, path, { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' });
    const routed = await t.app.inject({
      method: 'GET',
      url: path,
      headers: { 'x-forwarded-for': '203.0.113.7' },
      remoteAddress: '127.0.0.1',
    });
    const other = await get(t.site, path, { 'x-forwarded-for': '203.0.113.8' });
    expect(await plainReads()).toBe(before + 3);
    // 203.0.113.7 (the last address before the trusted proxy) counted 1, 2, then 3 on the route.
    expect([first, again].map((a) => a.headers['x-ratelimit-current'])).toEqual(['1', '2']);
    expect(routed.headers['x-ratelimit-current']).toBe('3');
    expect(other.headers['x-ratelimit-current']).toBe('1');
  });
});

describe.each(ENGINE_STORES)('plain thing read at the rate limit (%s, counters in %s)', (engine, store) => {
  const one = appWithOneThing(engine, store, { RATE_LIMIT_ANONYMOUS: '2' });

  it("answers within the limit, and the request over it gets the route's 403 with Retry-After", async () => {
    const t = one.app();
    const path = one.path();
    const answers = [await get(t.site, path), await get(t.site, path), await get(t.site, path)];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 403]);
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['1', '0', '0']);
    expect(answers.map((a) => a.headers['x-ratelimit-current'])).toEqual(['1', '2', '2']);
    const refused = answers[2]!;
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'rate_limit_exceeded' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['content-type']).toBe('application/json;charset=utf-8');
  });
});

describe.each(ENGINES)('plainThingRead on a bare server (%s)', (engine) => {
  let t: ListeningApp;
  let server: http.Server;
  let origin: string;
  let limiter: RateLimiter;
  const observed: number[] = [];
  let thingId: number;

  beforeAll(async () => {
    t = await listenTestApp(engine);
    thingId = await buildThing(t.services, await buildUser(t.services), { title: 'Bare' });
    limiter = new RateLimiter(await CounterStore.open({ keyPrefix: 'test', log: t.app.log }), {
      anonymousLimit: 3,
      authenticatedLimit: 3,
      clock: systemClock,
    });
    const read = plainThingRead({
      services: t.services,
      urls: { api: 'http://api.test/rest/v2', site: 'http://site.test' },
      apiPrefix: API,
      limiter,
      trustProxy: false,
      corsHeaders: { 'access-control-allow-origin': '*' },
      jsonType: 'application/json;charset=utf-8',
      observe: (status) => observed.push(status),
    });
    server = http.createServer((_req, res) => {
      res.statusCode = FELL_THROUGH;
      res.end();
    });
    offerToPlainThingRead(server, () => read);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  it('takes only an anonymous JSON GET of a live thing, within the rate limit', async () => {
    const path = `${API}/things/${thingId}`;
    for (const [p, headers] of [
      [`${API}/things/999999999`, {}],
      [`${API}/things/0`, {}],
      [`${API}/things/${thingId}?full`, {}],
      [`${API}/things/${thingId}.json`, {}],
      [`/rest/v3/things/${thingId}`, {}],
      [path, { authorization: 'Bearer x' }],
      [path, { accept: 'text/xml' }],
      [path, { 'content-length': '0' }],
    ] as [string, Record<string, string>][]) {
      expect((await get(origin, p, headers)).status, `${p} ${JSON.stringify(headers)}`).toBe(FELL_THROUGH);
    }
    expect(observed).toEqual([]);

    // Requests it left to the route were not counted: its answers count 1, 2, 3.
    const accepts = [undefined, '*/*', 'application/json, text/plain, */*'];
    for (const [i, accept] of accepts.entries()) {
      const a = await get(origin, path, accept ? { accept } : {});
      expect(a.status, accept).toBe(200);
      expect(a.headers['content-type']).toBe('application/json;charset=utf-8');
      expect(a.headers['access-control-allow-origin']).toBe('*');
      expect(a.headers['x-ratelimit-current']).toBe(String(i + 1));
      expect(a.headers['x-ratelimit-limit']).toBe('3');
      expect(JSON.parse(a.body)).toMatchObject({
        id: thingId,
        title: 'Bare',
        resource: `http://api.test/rest/v2/things/${thingId}`,
      });
    }
    expect(observed).toEqual([200, 200, 200]);
    // The fourth request is over the limit of 3: the route refuses it.
    expect((await get(origin, path)).status).toBe(FELL_THROUGH);
    expect(observed).toHaveLength(3);
  });
});
