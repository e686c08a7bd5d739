/**
 * What several instances share when REDIS_URL is set (docs/operations.md "Several instances",
 * docs/adr/0029-cluster.md): the discovery cache (src/discovery/cache.ts) behaves the same in memory
 * and in Redis — a result found or not found is kept for its TTL and fetched again after it — and
 * in Redis every instance uses what one fetched; the log-in failure limits count across instances
 * (both tiers, and a success on one instance starts the pair's count again on the others). Two
 * apps (buildApp) on one database and one Redis stand for two instances; pages are served on
 * 127.0.0.1 by this file.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/app.ts';
import { createDiscovery } from '../../src/discovery/index.ts';
import { discoveryCacheOver, EXPIRY_GRACE_MS } from '../../src/discovery/cache.ts';
import { CounterStore } from '../../src/ratelimit/store.ts';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { REDIS_URL, STORES, storeEnv, type Store } from '../helpers/stores.ts';
import { buildWebUser, html, PASSWORD, WebClient } from '../helpers/web.ts';

const silent = { warn: () => {} };
const autoSubmit = (params: Record<string, string>) =>
  `${PUBLIC_URL}/submit/auto?${new URLSearchParams(params).toString()}`;
const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** A site on 127.0.0.1: path → HTML body, counting the fetches of each path. */
class Pages {
  private server!: Server;
  base = '';
  readonly hits = new Map<string, number>();
  readonly bodies = new Map<string, string>();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const body = this.bodies.get(path);
      if (body === undefined) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A new path linking `href` with rel="payment" (or nothing, when `href` is null). */
  page(href: string | null): string {
    const path = `/${uniqueName('page')}`;
    this.bodies.set(
      path,
      href === null ? '<p>no payment link</p>' : `<link rel="payment" href="${escapeAttr(href)}"><p>post</p>`,
    );
    return path;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** Deletes every key under `prefix` (never anything else). */
async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL!);
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}

describe.each(STORES)('the discovery cache in %s', (store: Store) => {
  const pages = new Pages();
  const { env, cleanUp } = storeEnv(store);
  const stores: CounterStore[] = [];
  /** A counter store as an instance opens it (a Redis connection of its own when in Redis). */
  const openStore = async (keyPrefix = env.RATE_LIMIT_KEY_PREFIX ?? 'test') => {
    const s = await CounterStore.open({ keyPrefix, redisUrl: env.REDIS_URL, log: silent });
    stores.push(s);
    return s;
  };
  beforeAll(() => pages.start());
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await pages.stop();
    await cleanUp();
  });

  it('keeps a found result and a negative result for the TTL, then fetches again', async () => {
    let now = 1_000_000;
    const d = createDiscovery({
      siteUrl: PUBLIC_URL,
      allowPrivate: true,
      cacheSeconds: 60,
      cache: discoveryCacheOver(await openStore()),
      now: () => now,
    });
    const href = autoSubmit({ url: 'https://blog.example.com/kept', user_id: 'someone' });
    const found = pages.page(href);
    const none = pages.page(null);
    expect(await d.discover(`${pages.base}${found}`)).toBe(href);
    expect(await d.discover(`${pages.base}${none}`)).toBeNull();
    // Pages change, but until the TTL ends the kept results answer.
    pages.bodies.set(found, '<p>link removed</p>');
    pages.bodies.set(none, `<link rel="payment" href="${escapeAttr(href)}">`);
    now += 59_999;
    expect(await d.discover(`${pages.base}${found}`)).toBe(href);
    expect(await d.discover(`${pages.base}${none}`)).toBeNull();
    expect([pages.hits.get(found), pages.hits.get(none)]).toEqual([1, 1]);
    // At the TTL both are fetched again, and the new results are kept in turn.
    now += 1;
    expect(await d.discover(`${pages.base}${found}`)).toBeNull();
    expect(await d.discover(`${pages.base}${none}`)).toBe(href);
    expect(await d.discover(`${pages.base}${none}`)).toBe(href);
    expect([pages.hits.get(found), pages.hits.get(none)]).toEqual([2, 2]);
  });

  it('concurrent look-ups of one URL in a process fetch it once', async () => {
    const d = createDiscovery({
      siteUrl: PUBLIC_URL,
      allowPrivate: true,
      cache: discoveryCacheOver(await openStore()),
    });
    const path = pages.page(null);
    expect(await Promise.all([1, 2, 3].map(() => d.discover(`${pages.base}${path}`)))).toEqual([null, null, null]);
    expect(pages.hits.get(path)).toBe(1);
  });

  it(
    store === 'redis'
      ? 'two processes share every result (found or not) through Redis; another prefix shares nothing'
      : 'each process keeps its own results in memory',
    async () => {
      const one = createDiscovery({
        siteUrl: PUBLIC_URL,
        allowPrivate: true,
        cache: discoveryCacheOver(await openStore()),
      });
      const two = createDiscovery({
        siteUrl: PUBLIC_URL,
        allowPrivate: true,
        cache: discoveryCacheOver(await openStore()),
      });
      const href = autoSubmit({ url: 'https://blog.example.com/shared', user_id: 'someone' });
      const found = pages.page(href);
      const none = pages.page(null);
      expect(await one.discover(`${pages.base}${found}`)).toBe(href);
      expect(await one.discover(`${pages.base}${none}`)).toBeNull();
      expect(await two.discover(`${pages.base}${found}`)).toBe(href);
      expect(await two.discover(`${pages.base}${none}`)).toBeNull();
      const fetches = store === 'redis' ? 1 : 2;
      expect([pages.hits.get(found), pages.hits.get(none)]).toEqual([fetches, fetches]);
      if (store === 'redis') {
        const other = createDiscovery({
          siteUrl: PUBLIC_URL,
          allowPrivate: true,
          cache: discoveryCacheOver(await openStore(`${env.RATE_LIMIT_KEY_PREFIX}-other`)),
        });
        expect(await other.discover(`${pages.base}${found}`)).toBe(href);
        expect(pages.hits.get(found)).toBe(2);
        await deleteKeys(`${env.RATE_LIMIT_KEY_PREFIX}-other`);
      }
    },
  );

  it.runIf(store === 'redis')(
    'in Redis: one key per URL under <prefix>:discovery:, expiring a minute after the TTL',
    async () => {
      const d = createDiscovery({
        siteUrl: PUBLIC_URL,
        allowPrivate: true,
        cacheSeconds: 120,
        cache: discoveryCacheOver(await openStore()),
      });
      const redis = new Redis(REDIS_URL!);
      try {
        const before = await redis.keys(`${env.RATE_LIMIT_KEY_PREFIX}:discovery:*`);
        const path = pages.page(null);
        expect(await d.discover(`${pages.base}${path}`)).toBeNull();
        const after = await redis.keys(`${env.RATE_LIMIT_KEY_PREFIX}:discovery:*`);
        const added = after.filter((k) => !before.includes(k));
        expect(added).toHaveLength(1);
        expect(added[0]).toMatch(new RegExp(`^${env.RATE_LIMIT_KEY_PREFIX}:discovery:[0-9a-f]{64}$`));
        const kept = JSON.parse((await redis.get(added[0]!))!) as { v: unknown; e: number };
        expect(kept.v).toBeNull();
        const ttl = await redis.pttl(added[0]!);
        expect(ttl).toBeGreaterThan(120_000 + EXPIRY_GRACE_MS - 5_000);
        expect(ttl).toBeLessThanOrEqual(120_000 + EXPIRY_GRACE_MS);
      } finally {
        await redis.quit();
      }
    },
  );

  it.runIf(store === 'redis')('while Redis cannot be reached, results are kept in memory instead', async () => {
    const counters = await openStore();
    const d = createDiscovery({ siteUrl: PUBLIC_URL, allowPrivate: true, cache: discoveryCacheOver(counters) });
    // No offline queue: every command on a disconnected client fails at once, as in an outage.
    counters.redisClient!.disconnect();
    const path = pages.page(null);
    expect(await d.discover(`${pages.base}${path}`)).toBeNull();
    expect(await d.discover(`${pages.base}${path}`)).toBeNull();
    expect(pages.hits.get(path)).toBe(1);
  });
});

describe.runIf(REDIS_URL).each(ENGINES)('two instances on %s and one Redis', (engine) => {
  const { env, cleanUp } = storeEnv('redis');
  const clock = fixedClock(Date.UTC(2026, 5, 10, 12, 2) / 1000);
  let t: TestApp;
  let two: FastifyInstance;
  const pages = new Pages();
  let owner: TestUser;
  beforeAll(async () => {
    t = await buildTestApp(engine, {
      clock,
      env: { ...env, DISCOVERY: 'on', DISCOVERY_ALLOW_PRIVATE: 'on', LOGIN_FAILURES_PER_USER_AND_IP: '3' },
    });
    two = await buildApp({ config: t.config, database: t.db.database, clock });
    await two.ready();
    await pages.start();
    owner = await buildUser(t.services, { scopes: 'thing' });
  });
  afterAll(async () => {
    await pages.stop();
    await two.close();
    await t.close();
    await cleanUp();
  });

  const tip = async (app: FastifyInstance, url: string) => {
    const tipper = await buildUser(t.services, { scopes: 'tip' });
    return app.inject({ method: 'POST', url: `${API}/tip`, headers: bearer(tipper.token), payload: { url } });
  };

  it('POST /tip of an unregistered page: the page is fetched by the first instance only, found or not', async () => {
    const inner = `https://blog.example.com/${uniqueName('post')}`;
    const found = pages.page(autoSubmit({ url: inner, user_id: owner.user.username, title: 'Found once' }));
    const none = pages.page(null);
    for (const app of [t.app, two, t.app]) {
      const res = await tip(app, `${pages.base}${found}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res).thing).toMatchObject({ url: inner, title: 'Found once' });
      expect((await tip(app, `${pages.base}${none}`)).statusCode).toBe(404);
    }
    expect([pages.hits.get(found), pages.hits.get(none)]).toEqual([1, 1]);
    expect(
      json(await two.inject({ url: `${API}/things/${json(await tip(two, `${pages.base}${found}`)).thing.id}` })),
    ).toMatchObject({ tips: 4 });
  });

  it('log-in failures: the (username, IP) limit counts on every instance, and a success on one starts it again everywhere', async () => {
    const user = await buildWebUser(t.services);
    const ip = '198.51.100.20';
    const login = (app: FastifyInstance, password: string) =>
      new WebClient(app, ip).submit('/login', '/login', { username: user.username, password });
    // limit 3: two failures (one per instance), a success on the second instance, then three
    // more failures spread over both are allowed before the pair is paused on both.
    html(await login(t.app, 'wrong 1'), 401);
    html(await login(two, 'wrong 2'), 401);
    expect((await login(two, PASSWORD)).statusCode).toBe(303);
    html(await login(t.app, 'wrong 3'), 401);
    html(await login(two, 'wrong 4'), 401);
    html(await login(t.app, 'wrong 5'), 401);
    for (const app of [two, t.app]) {
      const refused = await login(app, PASSWORD);
      html(refused, 429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
  });
});
