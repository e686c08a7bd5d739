/**
 * Where every rate-limit counter lives (docs/adr/0008-rate-limits.md, docs/adr/0023): in this
 * process's memory (memory.ts, counted synchronously), or — when `REDIS_URL` is set — in Redis,
 * shared by every instance, over one connection, counted by `rate-limiter-flexible`; during a Redis
 * outage each Redis counter falls back to memory (its `insuranceLimiter`) until ioredis has
 * reconnected. The same connection and key prefix serve the other state instances share through
 * Redis (the discovery cache, src/discovery/cache.ts).
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisConnection, RedisLog } from './redis.ts';
import { WindowCounts } from './memory.ts';

export interface CounterStoreOptions {
  /** prefix of every key, e.g. `tipjar:ratelimit` (RATE_LIMIT_KEY_PREFIX) */
  keyPrefix: string;
  /** `redis://…` to count in Redis; undefined counts in this process's memory */
  redisUrl?: string | undefined;
  log: RedisLog;
}

/** The store of the rate-limit counters; make one per process with `CounterStore.open`. */
export class CounterStore {
  private constructor(
    /** `memory` or `redis`, for logs and docs */
    readonly kind: 'memory' | 'redis',
    /** prefix of every key this store (and what shares its connection) writes (RATE_LIMIT_KEY_PREFIX) */
    readonly keyPrefix: string,
    private readonly redis: RedisConnection | undefined,
  ) {}

  /**
   * The Redis connection when the counters live in Redis (undefined in memory), for the other
   * state every instance shares; it is closed with the store. Commands on it fail at once while
   * Redis is unreachable (no offline queue): callers fall back to memory then.
   */
  get redisClient(): Redis | undefined {
    return this.redis?.client;
  }

  /**
   * Opens the store. With `redisUrl` it connects first and fails when Redis cannot be reached.
   * @throws Error naming REDIS_URL when the first connection fails.
   */
  static async open(opts: CounterStoreOptions): Promise<CounterStore> {
    if (!opts.redisUrl) return new CounterStore('memory', opts.keyPrefix, undefined);
    // ioredis is loaded only when it is used (≈ 50–100 ms of start-up otherwise).
    const { connectRedis } = await import('./redis.ts');
    return new CounterStore('redis', opts.keyPrefix, await connectRedis(opts.redisUrl, opts.log));
  }

  /**
   * A counter allowing `points` per key. Its keys are `<keyPrefix>:<name>:<key>`, or
   * `<keyPrefix>:<key>` without a name (the API's request counters); `duration` (seconds) is the
   * expiry of a key when a call passes no `customDuration`.
   */
  counter(points: number, duration: number, name?: string): RateLimiterAbstract {
    const keyPrefix = name ? `${this.keyPrefix}:${name}` : this.keyPrefix;
    const memory = new RateLimiterMemory({ points, duration, keyPrefix });
    if (!this.redis) return memory;
    return new RateLimiterRedis({
      storeClient: this.redis.client,
      points,
      duration,
      keyPrefix,
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory,
    });
  }

  /**
   * Synchronous in-memory counts for a fixed-window limit of `windowSeconds` whose keys outlive
   * their window by `graceSeconds`; undefined when the counters live in Redis (use `counter`).
   */
  memoryCounts(windowSeconds: number, graceSeconds: number): WindowCounts | undefined {
    return this.redis ? undefined : new WindowCounts(windowSeconds, graceSeconds);
  }

  /** Releases the store (closes the Redis connection). */
  async close(): Promise<void> {
    await this.redis?.close();
  }
}
