/**
 * Rate limits (api-v2.md "Limits", DECISIONS.md "Rate limits", notes §4), on every engine: the four
 * X-RateLimit headers on every limited response (200, 201, 204, 4xx, 401 with a bad token, unknown
 * paths, 406, bad JSONP, unparsable bodies), `GET /rate_limit` (not counted, no headers), hourly
 * windows aligned to the hour with the injected clock, 403 `rate_limit_exceeded` + Retry-After,
 * per-IP and per-(user, client) counting, TRUST_PROXY, and — when TEST_REDIS_URL is set — two
 * instances sharing one window in Redis.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith, uniqueName } from '../helpers/factories.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import type { Services } from '../../src/domain/services.ts';
import { buildApp } from '../../src/app.ts';

const REDIS_URL = process.env.TEST_REDIS_URL;
/** 2012-07-17 10:45:39 UTC, the instant of the original docs' example; its window ends at 11:00:00. */
const T0 = 1342521939;
const WINDOW_START = 1342519200;
const WINDOW_END = 1342522800;
const RATE_LIMIT_KEYS = [
  'hourly_limit',
  'remaining_hits',
  'current_hits',
  'reset_time_in_seconds',
  'reset_time',
].sort();
const keys = (o: object) => Object.keys(o).sort();

let ipSeq = 0;
/** A client address no other test uses (counters are per IP). */
const freshIp = () => `10.0.${(++ipSeq >> 8) & 255}.${ipSeq & 255}`;

/** Asserts the four headers with exact values. */
function expectLimitHeaders(res: LightMyRequestResponse, limit: number, current: number, reset: number) {
  expect(res.headers['x-ratelimit-limit'], `${res.statusCode} ${res.body}`).toBe(String(limit));
  expect(res.headers['x-ratelimit-current']).toBe(String(current));
  expect(res.headers['x-ratelimit-remaining']).toBe(String(limit - current));
  expect(res.headers['x-ratelimit-reset']).toBe(String(reset));
}

function expectNoLimitHeaders(res: LightMyRequestResponse) {
  for (const h of [
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-current',
    'x-ratelimit-reset',
    'retry-after',
  ]) {
    expect(res.headers[h], h).toBeUndefined();
  }
}

/** Registers an OAuth client row (registration itself belongs to the OAuth issue) and returns its id. */
async function oauthClient(s: Services): Promise<number> {
  const row = await s.database.db
    .insertInto('oauth_clients')
    .values({
      client_id: uniqueName('client'),
      secret_hash: 'x',
      name: 'Test client',
      callback_domain: 'example.com',
      owner_user_id: null,
      created_at: s.clock.now(),
      deleted_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

describe.each(ENGINES)('rate limits on %s', (engine) => {
  describe('headers and GET /rate_limit (default limits, fixed clock)', () => {
    let t: TestApp;
    const clock = fixedClock(T0);
    beforeAll(async () => {
      t = await buildTestApp(engine, { clock });
    });
    afterAll(async () => t.close());

    const get = (url: string, ip: string, headers: Record<string, string> = {}) =>
      t.app.inject({ url: `${API}${url}`, remoteAddress: ip, headers });

    it('a 200 carries all four headers: limit 1000, remaining 999, current 1, reset at the end of the hour', async () => {
      const res = await get('/categories', freshIp());
      expect(res.statusCode).toBe(200);
      expectLimitHeaders(res, 1000, 1, WINDOW_END);
      expect(res.headers['retry-after']).toBeUndefined();
    });

    it('counts each request of an IP: current 1, 2, 3 and remaining + current = limit', async () => {
      const ip = freshIp();
      for (let i = 1; i <= 3; i++) expectLimitHeaders(await get('/languages', ip), 1000, i, WINDOW_END);
    });

    it('4xx answers carry the headers: 404 unknown thing, 404 unknown path, 400 bad body, 406, bad JSONP, 401 missing token', async () => {
      const ip = freshIp();
      const answers = [
        await get('/things/999999999', ip),
        await get('/no/such/resource', ip),
        await t.app.inject({
          method: 'POST',
          url: `${API}/things`,
          remoteAddress: ip,
          headers: { 'content-type': 'application/json' },
          payload: '{bad',
        }),
        await get('/categories.yaml', ip),
        await get('/categories?jsonp=1bad', ip),
        await get('/user', ip),
      ];
      expect(answers.map((r) => r.statusCode)).toEqual([404, 404, 400, 406, 400, 401]);
      answers.forEach((res, i) => expectLimitHeaders(res, 1000, i + 1, WINDOW_END));
      expect(json(answers[1]!).error).toBe('not_found');
      expect(json(answers[3]!).error).toBe('not_acceptable');
    });

    it('a 401 for an unknown token is counted against the client IP and carries the headers', async () => {
      const ip = freshIp();
      await get('/categories', ip);
      const res = await get('/categories', ip, bearer('not-a-real-token'));
      expect(res.statusCode).toBe(401);
      expect(json(res).error).toBe('unauthorized');
      expectLimitHeaders(res, 1000, 2, WINDOW_END);
      const malformed = await get('/categories', ip, { authorization: 'Basic dXNlcjpwYXNz' });
      expect(malformed.statusCode).toBe(401);
      expectLimitHeaders(malformed, 1000, 3, WINDOW_END);
    });

    it('a 201 and a 204 carry the headers of the token (limit 5000)', async () => {
      const owner = await buildUser(t.services);
      const ip = freshIp();
      const created = await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        remoteAddress: ip,
        headers: bearer(owner.token),
        payload: { url: `https://example.com/${uniqueName('rl')}` },
      });
      expect(created.statusCode).toBe(201);
      expectLimitHeaders(created, 5000, 1, WINDOW_END);
      const deleted = await t.app.inject({
        method: 'DELETE',
        url: `${API}/things/${json(created).id}`,
        remoteAddress: ip,
        headers: bearer(owner.token),
      });
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe('');
      expectLimitHeaders(deleted, 5000, 2, WINDOW_END);
    });

    it('XML and JSONP answers carry the headers too', async () => {
      const ip = freshIp();
      const xml = await get('/categories.xml', ip);
      expect(xml.headers['content-type']).toMatch(/^application\/xml/);
      expectLimitHeaders(xml, 1000, 1, WINDOW_END);
      const jsonp = await get('/categories?jsonp=cb', ip);
      expect(jsonp.headers['content-type']).toBe('application/javascript;charset=utf-8');
      expectLimitHeaders(jsonp, 1000, 2, WINDOW_END);
    });

    it("GET /rate_limit reports the caller's window, sends no rate-limit headers and is not counted", async () => {
      const ip = freshIp();
      for (let i = 0; i < 14; i++) await get('/categories', ip);
      for (let i = 0; i < 3; i++) {
        const res = await get('/rate_limit', ip);
        expect(res.statusCode).toBe(200);
        expectNoLimitHeaders(res);
        const body = json(res);
        expect(keys(body)).toEqual(RATE_LIMIT_KEYS);
        expect(body).toEqual({
          hourly_limit: 1000,
          remaining_hits: 986,
          current_hits: 14,
          reset_time_in_seconds: WINDOW_END,
          reset_time: 'Tue, 17 Jul 2012 11:00:00 GMT',
        });
      }
      // Still 14 before this one: the three reads above were not counted.
      expectLimitHeaders(await get('/categories', ip), 1000, 15, WINDOW_END);
    });

    it("GET /rate_limit for a new IP: nothing used yet; with a token: the token's window (limit 5000)", async () => {
      expect(json(await get('/rate_limit', freshIp()))).toEqual({
        hourly_limit: 1000,
        remaining_hits: 1000,
        current_hits: 0,
        reset_time_in_seconds: WINDOW_END,
        reset_time: 'Tue, 17 Jul 2012 11:00:00 GMT',
      });
      const u = await buildUser(t.services);
      const ip = freshIp();
      await get('/user', ip, bearer(u.token));
      await get('/user', ip, bearer(u.token));
      const res = await get('/rate_limit', ip, bearer(u.token));
      expectNoLimitHeaders(res);
      expect(json(res)).toEqual({
        hourly_limit: 5000,
        remaining_hits: 4998,
        current_hits: 2,
        reset_time_in_seconds: WINDOW_END,
        reset_time: 'Tue, 17 Jul 2012 11:00:00 GMT',
      });
      // The IP's own anonymous window was untouched by the token's requests.
      expect(json(await get('/rate_limit', ip)).current_hits).toBe(0);
    });

    it('GET /rate_limit.xml renders <rate_limit>; an unknown token there is 401 without rate-limit headers', async () => {
      const ip = freshIp();
      await get('/categories', ip);
      const res = await get('/rate_limit.xml', ip);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/xml;charset=utf-8');
      expect(res.body).toBe(
        '<?xml version="1.0" encoding="UTF-8"?>\n<rate_limit><hourly_limit>1000</hourly_limit><remaining_hits>999</remaining_hits>' +
          `<current_hits>1</current_hits><reset_time_in_seconds>${WINDOW_END}</reset_time_in_seconds><reset_time>Tue, 17 Jul 2012 11:00:00 GMT</reset_time></rate_limit>`,
      );
      expectNoLimitHeaders(res);
      const bad = await get('/rate_limit', ip, bearer('not-a-real-token'));
      expect(bad.statusCode).toBe(401);
      expectNoLimitHeaders(bad);
    });

    it('requests outside /rest/v2 are not rate limited', async () => {
      const res = await t.app.inject({ url: '/healthz', remoteAddress: freshIp() });
      expect(res.statusCode).toBe(200);
      expectNoLimitHeaders(res);
    });

    it('CORS preflights and undecodable paths are not counted and carry no rate-limit headers', async () => {
      const ip = freshIp();
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: `${API}/things`,
        remoteAddress: ip,
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
      expect(preflight.statusCode).toBe(204);
      expectNoLimitHeaders(preflight);
      const undecodable = await t.app.inject({ url: `${API}/users/%FF`, remoteAddress: ip });
      expect(undecodable.statusCode).toBe(400);
      expectNoLimitHeaders(undecodable);
      expect(json(await get('/rate_limit', ip)).current_hits).toBe(0);
    });

    it('CORS exposes the rate-limit headers to browsers', async () => {
      const res = await t.app.inject({
        url: `${API}/categories`,
        remoteAddress: freshIp(),
        headers: { origin: 'https://app.example' },
      });
      const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
      for (const h of [
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-current',
        'x-ratelimit-reset',
        'retry-after',
      ])
        expect(exposed).toContain(h);
    });
  });

  describe('windows aligned to the hour', () => {
    let t: TestApp;
    const clock = fixedClock(WINDOW_END - 2);
    beforeAll(async () => {
      t = await buildTestApp(engine, { clock });
    });
    afterAll(async () => t.close());

    it('counters start again at the next hour, whose reset is one hour later', async () => {
      const ip = '192.0.2.10';
      const get = (url = '/categories') => t.app.inject({ url: `${API}${url}`, remoteAddress: ip });
      expectLimitHeaders(await get(), 1000, 1, WINDOW_END);
      clock.set(WINDOW_END - 1); // the last second of the window still counts in it
      expectLimitHeaders(await get(), 1000, 2, WINDOW_END);
      expect(json(await get('/rate_limit')).current_hits).toBe(2);
      clock.set(WINDOW_END); // the first second of the next window
      expect(json(await get('/rate_limit'))).toEqual({
        hourly_limit: 1000,
        remaining_hits: 1000,
        current_hits: 0,
        reset_time_in_seconds: WINDOW_END + 3600,
        reset_time: 'Tue, 17 Jul 2012 12:00:00 GMT',
      });
      expectLimitHeaders(await get(), 1000, 1, WINDOW_END + 3600);
      clock.set(WINDOW_END + 3599);
      expectLimitHeaders(await get(), 1000, 2, WINDOW_END + 3600);
    });
  });

  describe('over the limit (RATE_LIMIT_ANONYMOUS=3, RATE_LIMIT_AUTHENTICATED=2)', () => {
    let t: TestApp;
    const clock = fixedClock(T0);
    beforeAll(async () => {
      t = await buildTestApp(engine, { clock, env: { RATE_LIMIT_ANONYMOUS: '3', RATE_LIMIT_AUTHENTICATED: '2' } });
    });
    afterAll(async () => t.close());
    afterEach(() => clock.set(T0));

    it('the request after the limit → 403 rate_limit_exceeded with Retry-After (seconds to the reset) and remaining 0', async () => {
      const ip = freshIp();
      const get = () => t.app.inject({ url: `${API}/categories`, remoteAddress: ip });
      for (let i = 1; i <= 3; i++) {
        const ok = await get();
        expect(ok.statusCode).toBe(200);
        expectLimitHeaders(ok, 3, i, WINDOW_END);
      }
      for (let i = 0; i < 2; i++) {
        const res = await get();
        expect(res.statusCode).toBe(403);
        expect(json(res)).toEqual({
          error: 'rate_limit_exceeded',
          error_description:
            'Rate limit exceeded: 3 requests per hour; the allowance renews at Tue, 17 Jul 2012 11:00:00 GMT',
          error_uri: `${PUBLIC_URL}/docs/api#rate-limits`,
        });
        expect(res.headers['retry-after']).toBe(String(WINDOW_END - T0));
        expectLimitHeaders(res, 3, 3, WINDOW_END);
      }
      // GET /rate_limit still answers, capped at the limit.
      const status = await t.app.inject({ url: `${API}/rate_limit`, remoteAddress: ip });
      expect(status.statusCode).toBe(200);
      expect(json(status)).toMatchObject({
        hourly_limit: 3,
        remaining_hits: 0,
        current_hits: 3,
        reset_time_in_seconds: WINDOW_END,
      });
      // Retry-After follows the clock; at the reset the allowance is back.
      clock.set(WINDOW_END - 100);
      expect((await get()).headers['retry-after']).toBe('100');
      clock.set(WINDOW_END);
      const renewed = await get();
      expect(renewed.statusCode).toBe(200);
      expectLimitHeaders(renewed, 3, 1, WINDOW_END + 3600);
    });

    it('a refused write changes nothing, and its body is not even read (a bad body is still 403)', async () => {
      const u = await buildUser(t.services);
      const ip = freshIp();
      for (let i = 0; i < 2; i++)
        expect(
          (await t.app.inject({ url: `${API}/user`, remoteAddress: ip, headers: bearer(u.token) })).statusCode,
        ).toBe(200);
      const url = `https://example.com/${uniqueName('refused')}`;
      const res = await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        remoteAddress: ip,
        headers: bearer(u.token),
        payload: { url },
      });
      expect(res.statusCode).toBe(403);
      expect(json(res).error).toBe('rate_limit_exceeded');
      expectLimitHeaders(res, 2, 2, WINDOW_END);
      const rows = await t.db.database.db.selectFrom('things').select('id').where('url', '=', url).execute();
      expect(rows).toEqual([]);
      const badBody = await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        remoteAddress: ip,
        headers: { ...bearer(u.token), 'content-type': 'application/json' },
        payload: '{bad',
      });
      expect(badBody.statusCode).toBe(403);
      expect(json(badBody).error).toBe('rate_limit_exceeded');
    });

    it('the 403 is rendered in the negotiated format (XML, JSONP)', async () => {
      const ip = freshIp();
      for (let i = 0; i < 3; i++) await t.app.inject({ url: `${API}/categories`, remoteAddress: ip });
      const xml = await t.app.inject({ url: `${API}/categories.xml`, remoteAddress: ip });
      expect(xml.statusCode).toBe(403);
      expect(xml.headers['content-type']).toBe('application/xml;charset=utf-8');
      expect(xml.body).toContain('<error><error>rate_limit_exceeded</error>');
      expect(xml.headers['retry-after']).toBe(String(WINDOW_END - T0));
      const jsonp = await t.app.inject({ url: `${API}/categories?jsonp=cb`, remoteAddress: ip });
      expect(jsonp.statusCode).toBe(403);
      expect(jsonp.body).toMatch(/^\/\*\*\/cb\(\{"error":"rate_limit_exceeded",/);
    });

    it('anonymous requests are counted per client IP', async () => {
      const a = freshIp();
      const b = freshIp();
      for (let i = 0; i < 3; i++) await t.app.inject({ url: `${API}/categories`, remoteAddress: a });
      expect((await t.app.inject({ url: `${API}/categories`, remoteAddress: a })).statusCode).toBe(403);
      const other = await t.app.inject({ url: `${API}/categories`, remoteAddress: b });
      expect(other.statusCode).toBe(200);
      expectLimitHeaders(other, 3, 1, WINDOW_END);
    });

    it('IPv6 clients are counted per /64: addresses of one /64 share a window, another /64 has its own', async () => {
      const get = (ip: string) => t.app.inject({ url: `${API}/categories`, remoteAddress: ip });
      expectLimitHeaders(await get('2001:db8:aa:1::1'), 3, 1, WINDOW_END);
      expectLimitHeaders(await get('2001:db8:aa:1:ffff:ffff:ffff:ffff'), 3, 2, WINDOW_END);
      expectLimitHeaders(await get('2001:db8:aa:1::2'), 3, 3, WINDOW_END);
      expect((await get('2001:db8:aa:1::3')).statusCode).toBe(403);
      expectLimitHeaders(await get('2001:db8:aa:2::1'), 3, 1, WINDOW_END);
    });

    it('requests with a token are counted per (user, client): not per IP, not per token, and apart from the IP', async () => {
      const s = t.services;
      const alice = await buildUser(s);
      const bob = await buildUser(s);
      const aliceSecond = await tokenWith(s, alice.user.username, 'tip'); // same user, same (operator) client
      const clientId = await oauthClient(s);
      const aliceViaClient = await issueToken(s, alice.user.username, 'tip', clientId); // same user, another client
      const get = (token: string, ip: string) =>
        t.app.inject({ url: `${API}/user`, remoteAddress: ip, headers: bearer(token) });

      expectLimitHeaders(await get(alice.token, freshIp()), 2, 1, WINDOW_END);
      expectLimitHeaders(await get(aliceSecond, freshIp()), 2, 2, WINDOW_END); // another IP, another token: same window
      const refused = await get(alice.token, freshIp());
      expect(refused.statusCode).toBe(403);
      expect(json(refused).error).toBe('rate_limit_exceeded');

      const viaClient = await get(aliceViaClient, freshIp());
      expect(viaClient.statusCode).toBe(200);
      expectLimitHeaders(viaClient, 2, 1, WINDOW_END);
      expectLimitHeaders(await get(bob.token, freshIp()), 2, 1, WINDOW_END);

      // Alice's IP, without a token, has its own anonymous window.
      const ip = freshIp();
      expect((await get(alice.token, ip)).statusCode).toBe(403);
      const anonymous = await t.app.inject({ url: `${API}/categories`, remoteAddress: ip });
      expect(anonymous.statusCode).toBe(200);
      expectLimitHeaders(anonymous, 3, 1, WINDOW_END);
    });

    it('tips over the limit are refused and write nothing', async () => {
      const s = t.services;
      const owner = await buildUser(s);
      const tipper = await buildUser(s);
      const ids = [await buildThing(s, owner), await buildThing(s, owner), await buildThing(s, owner)];
      const tip = (id: number) =>
        t.app.inject({
          method: 'POST',
          url: `${API}/things/${id}/tip`,
          remoteAddress: freshIp(),
          headers: bearer(tipper.token),
        });
      expect((await tip(ids[0]!)).statusCode).toBe(200);
      expect((await tip(ids[1]!)).statusCode).toBe(200);
      const refused = await tip(ids[2]!);
      expect(refused.statusCode).toBe(403);
      expect(json(refused).error).toBe('rate_limit_exceeded');
      const tips = await s.database.db
        .selectFrom('tips')
        .select('thing_id')
        .where('tipper_id', '=', tipper.user.id)
        .execute();
      expect(tips.map((r) => Number(r.thing_id)).sort((x, y) => x - y)).toEqual(
        [ids[0], ids[1]].sort((x, y) => x! - y!),
      );
    });
  });

  describe('TRUST_PROXY', () => {
    it('off (default): X-Forwarded-For is ignored, the socket address is the client', async () => {
      const t = await buildTestApp(engine, { clock: fixedClock(T0), env: { RATE_LIMIT_ANONYMOUS: '2' } });
      try {
        const ip = freshIp();
        await t.app.inject({
          url: `${API}/categories`,
          remoteAddress: ip,
          headers: { 'x-forwarded-for': '203.0.113.1' },
        });
        const res = await t.app.inject({
          url: `${API}/categories`,
          remoteAddress: ip,
          headers: { 'x-forwarded-for': '203.0.113.2' },
        });
        expectLimitHeaders(res, 2, 2, WINDOW_END);
      } finally {
        await t.close();
      }
    });

    it('1 (one proxy in front): each X-Forwarded-For client has its own window', async () => {
      const t = await buildTestApp(engine, {
        clock: fixedClock(T0),
        env: { RATE_LIMIT_ANONYMOUS: '2', TRUST_PROXY: '1' },
      });
      try {
        const proxy = '127.0.0.1';
        const via = (client: string) =>
          t.app.inject({ url: `${API}/categories`, remoteAddress: proxy, headers: { 'x-forwarded-for': client } });
        expectLimitHeaders(await via('203.0.113.1'), 2, 1, WINDOW_END);
        expectLimitHeaders(await via('203.0.113.1'), 2, 2, WINDOW_END);
        expect((await via('203.0.113.1')).statusCode).toBe(403);
        expectLimitHeaders(await via('203.0.113.2'), 2, 1, WINDOW_END);
      } finally {
        await t.close();
      }
    });
  });

  describe.runIf(REDIS_URL)('in Redis (REDIS_URL): two instances on one database share one window', () => {
    // A prefix per run, so parallel test files and engines never share keys.
    const prefix = `tipjar-test:${randomBytes(6).toString('hex')}`;
    const clock = fixedClock(T0);
    const env = {
      REDIS_URL: REDIS_URL!,
      RATE_LIMIT_KEY_PREFIX: prefix,
      RATE_LIMIT_ANONYMOUS: '5',
      RATE_LIMIT_AUTHENTICATED: '4',
    };
    let one: TestApp;
    let two: FastifyInstance;
    let redis: Redis;
    beforeAll(async () => {
      one = await buildTestApp(engine, { clock, env });
      two = await buildApp({ config: one.config, database: one.db.database, clock });
      await two.ready();
      redis = new Redis(REDIS_URL!);
    });
    afterAll(async () => {
      const leftovers = await redis.keys(`${prefix}:*`);
      if (leftovers.length) await redis.del(...leftovers);
      await redis.quit();
      await two.close();
      await one.close();
    });

    it('anonymous: current goes 1..5 across both instances, then both refuse', async () => {
      const ip = '198.51.100.7';
      const apps = [one.app, two, one.app, two, one.app];
      for (let i = 0; i < apps.length; i++) {
        const res = await apps[i]!.inject({ url: `${API}/categories`, remoteAddress: ip });
        expect(res.statusCode).toBe(200);
        expectLimitHeaders(res, 5, i + 1, WINDOW_END);
      }
      for (const app of [one.app, two]) {
        const res = await app.inject({ url: `${API}/categories`, remoteAddress: ip });
        expect(res.statusCode).toBe(403);
        expect(json(res).error).toBe('rate_limit_exceeded');
        expect(res.headers['retry-after']).toBe(String(WINDOW_END - T0));
        expectLimitHeaders(res, 5, 5, WINDOW_END);
      }
      expect(json(await two.inject({ url: `${API}/rate_limit`, remoteAddress: ip }))).toEqual({
        hourly_limit: 5,
        remaining_hits: 0,
        current_hits: 5,
        reset_time_in_seconds: WINDOW_END,
        reset_time: 'Tue, 17 Jul 2012 11:00:00 GMT',
      });
      // The counter lives in Redis under the window's start (refused requests count too) and
      // expires a minute after the window ends.
      const key = `${prefix}:${WINDOW_START}:ip:${ip}`;
      expect(await redis.get(key)).toBe('7');
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(WINDOW_END - T0 + 60 - 10);
      expect(ttl).toBeLessThanOrEqual(WINDOW_END - T0 + 60);
    });

    it('with a token: one window per (user, client) across instances', async () => {
      const u = await buildUser(one.services);
      const apps = [one.app, two, two, one.app];
      for (let i = 0; i < apps.length; i++) {
        expectLimitHeaders(
          await apps[i]!.inject({ url: `${API}/user`, remoteAddress: freshIp(), headers: bearer(u.token) }),
          4,
          i + 1,
          WINDOW_END,
        );
      }
      expect(
        (await two.inject({ url: `${API}/user`, remoteAddress: freshIp(), headers: bearer(u.token) })).statusCode,
      ).toBe(403);
      expect(await redis.get(`${prefix}:${WINDOW_START}:user:${u.user.id}:client:none`)).toBe('5');
    });

    it('the next hour starts a new key, which expires a minute after its own window', async () => {
      const ip = '198.51.100.8';
      clock.set(WINDOW_END);
      try {
        expectLimitHeaders(
          await one.app.inject({ url: `${API}/categories`, remoteAddress: ip }),
          5,
          1,
          WINDOW_END + 3600,
        );
        expectLimitHeaders(await two.inject({ url: `${API}/categories`, remoteAddress: ip }), 5, 2, WINDOW_END + 3600);
        const key = `${prefix}:${WINDOW_END}:ip:${ip}`;
        expect(await redis.get(key)).toBe('2');
        const ttl = await redis.ttl(key);
        expect(ttl).toBeGreaterThan(3600 + 60 - 10);
        expect(ttl).toBeLessThanOrEqual(3600 + 60);
      } finally {
        clock.set(T0);
      }
    });
  });
});
