/**
 * The counter stores to run limit tests on: memory always, Redis when TEST_REDIS_URL is set (each
 * app gets a key prefix of its own, so parallel test files never share counters).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export type Store = 'memory' | 'redis';

export const REDIS_URL = process.env.TEST_REDIS_URL;

/** The stores to run on. */
export const STORES: Store[] = REDIS_URL ? ['memory', 'redis'] : ['memory'];

/** Settings for an app counting in `store`, and a function deleting its Redis keys afterwards. */
export function storeEnv(store: Store): { env: Record<string, string>; cleanUp(): Promise<void> } {
  if (store === 'memory') return { env: {}, cleanUp: async () => {} };
  const prefix = `tipjar-test:${randomBytes(6).toString('hex')}`;
  return {
    env: { REDIS_URL: REDIS_URL!, RATE_LIMIT_KEY_PREFIX: prefix },
    cleanUp: async () => {
      const redis = new Redis(REDIS_URL!);
      try {
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length) await redis.del(...keys);
      } finally {
        await redis.quit();
      }
    },
  };
}
