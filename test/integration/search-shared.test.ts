/**
 * Search results shared by every instance through Redis (src/cluster/search-results.ts,
 * docs/adr/0034), on PostgreSQL with Redis: a relevance search that one instance was asked more
 * than once is answered by another instance from Redis without being ranked there; any instance's
 * write to things makes it unused at once (its key holds the database's counter of matching
 * writes); tip sorts and per-viewer searches are never shared; while Redis cannot be reached,
 * nothing is shared and nothing fails.
 */
import { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';
import { systemClock } from '../../src/domain/clock.ts';
import type { Services } from '../../src/domain/services.ts';
import { redisSearchResults } from '../../src/cluster/search-results.ts';
import { bearer, PUBLIC_URL } from '../helpers/app.ts';
import { searchCacheCounts, searchThings } from '../helpers/search.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { buildThing, buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { REDIS_URL, storeEnv } from '../helpers/stores.ts';

const METRICS_TOKEN = 'search-shared-metrics-token-0123456789abcdef';

describe.runIf(ENGINES.includes('postgres') && REDIS_URL)('search results shared through Redis', () => {
  let db: TestDatabase;
  let s: Services;
  let owner: TestUser;
  let store: ReturnType<typeof storeEnv>;
  let redis: Redis;
  let a: FastifyInstance;
  let b: FastifyInstance;

  /** An instance: its own app (and search cache) on the shared database and Redis. */
  const instance = async () => {
    const config = loadConfig({
      PUBLIC_URL,
      LOG_LEVEL: 'silent',
      DATABASE_URL: db.url,
      DISCOVERY: 'off',
      METRICS_TOKEN,
      ...store.env,
    });
    const app = await buildApp({ config, database: db.database, clock: systemClock });
    await app.ready();
    return app;
  };

  beforeEach(async () => {
    db = await createTestDatabase('postgres');
    s = { database: db.database, clock: systemClock, siteUrl: 'http://tipjar.test', passwordHashing: unboundedHashing };
    owner = await buildUser(s);
    store = storeEnv('redis');
    redis = new Redis(REDIS_URL!);
    a = await instance();
    b = await instance();
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await store.cleanUp();
    await redis.quit();
    await db.drop();
  });

  const search = searchThings;
  const counts = (app: FastifyInstance) => searchCacheCounts(app, METRICS_TOKEN);
  /** The shared results in Redis, waited for up to 2 s when `atLeast` are expected. */
  const sharedKeys = async (atLeast = 0) => {
    const prefix = store.env.RATE_LIMIT_KEY_PREFIX;
    let keys: string[] = [];
    for (let i = 0; i < 100; i++) {
      keys = await redis.keys(`${prefix}:search:*`);
      if (keys.length >= atLeast) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return keys;
  };
  const word = () => uniqueName('sq').replace(/[^a-z0-9]/g, '');

  it('a search one instance was asked twice is answered by another from Redis, not ranked again', async () => {
    const w = word();
    await buildThing(s, owner, { title: `${w} one` });
    await buildThing(s, owner, { title: `${w} two ${w}` });
    const first = await search(a, `query=${w}`);
    expect(await sharedKeys()).toEqual([]);
    expect(await search(a, `query=${w}`)).toEqual(first);
    expect(await sharedKeys(1)).toHaveLength(1);

    const before = await counts(b);
    expect(await search(b, `query=${w}`)).toEqual(first);
    const after = await counts(b);
    expect(after.shared - before.shared).toBe(1);
    expect(after.misses - before.misses).toBe(0);
    // Kept by b itself from then on.
    expect(await search(b, `query=${w}`)).toEqual(first);
    expect((await counts(b)).hits - after.hits).toBe(1);
  });

  it("any instance's write to things makes a shared result unused at once", async () => {
    const w = word();
    await buildThing(s, owner, { title: `${w} first` });
    await search(a, `query=${w}`);
    await search(a, `query=${w}`);
    expect(await sharedKeys(1)).toHaveLength(1);
    await buildThing(s, owner, { title: `${w} second` });
    const before = await counts(b);
    expect((await search(b, `query=${w}`)).total).toBe(2);
    const after = await counts(b);
    expect(after.shared - before.shared).toBe(0);
    expect(after.misses - before.misses).toBe(1);
  });

  it('tip sorts and per-viewer searches are not shared', async () => {
    const w = word();
    await buildThing(s, owner, { title: `${w} thing` });
    for (const [query, headers] of [
      [`query=${w}&sort=tips`, {}],
      [`query=${w}&sort=trend`, {}],
      [`query=${w}`, bearer(owner.token)],
    ] as const) {
      await search(a, query, headers);
      await search(a, query, headers);
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(await sharedKeys()).toEqual([]);
  });

  it('while Redis cannot be reached nothing is found and storing fails quietly', async () => {
    const down = new Redis({
      host: '127.0.0.1',
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    try {
      const shared = redisSearchResults(down, 'tipjar-test:down');
      await expect(shared.set('k', 1, { total: 1, ids: [1] })).resolves.toBeUndefined();
      await expect(shared.get('k', 1)).resolves.toBeUndefined();
    } finally {
      down.disconnect();
    }
  });
});
