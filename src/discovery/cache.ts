/**
 * Where discovery results are kept (src/discovery/index.ts): in this process's memory, or — when
 * `REDIS_URL` is set — in Redis, so that every instance sees the result any instance fetched and
 * a page is fetched once per expiry whatever instance a `POST /tip` reaches. Both stores keep
 * exactly the same thing: a result (the auto-submit URL found, or null when none was: negative
 * results are kept too) until an expiry time on the caller's clock, and answer nothing after it.
 *
 * In Redis each result is one key, `<RATE_LIMIT_KEY_PREFIX>:discovery:<SHA-256 of the URL key>`,
 * holding `{"v": <url or null>, "e": <expiry, ms>}`; Redis drops it `EXPIRY_GRACE_MS` after the
 * expiry (the expiry itself is judged on the reader's clock, so an instance whose clock runs a
 * little behind never finds a live result gone). While Redis cannot be reached, results are kept
 * in this process's memory instead (the `fallback`), as the rate limits are.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CounterStore } from '../ratelimit/store.ts';

/** A kept result: the auto-submit URL a page links, or null when it links none (or could not be fetched). */
export interface KeptDiscovery {
  value: string | null;
}

/** The store of discovery results; see the module comment. Times are milliseconds of the caller's clock. */
export interface DiscoveryCache {
  /** The result kept for `key`, or undefined when none is kept or it expired at or before `now`. */
  get(key: string, now: number): Promise<KeptDiscovery | undefined>;
  /** Keeps `value` for `key` until `expires` (> `now`), replacing what was kept. */
  set(key: string, value: string | null, now: number, expires: number): Promise<void>;
}

/** How long Redis keeps a result after its expiry, in ms (see the module comment). */
export const EXPIRY_GRACE_MS = 60_000;

/**
 * Results in this process's memory: at most `maxEntries`, the oldest written going first when
 * more are kept; an expired result is forgotten when it is next asked for.
 */
export function memoryDiscoveryCache(maxEntries: number): DiscoveryCache {
  const kept = new Map<string, { value: string | null; expires: number }>();
  return {
    async get(key, now) {
      const hit = kept.get(key);
      if (!hit) return undefined;
      if (hit.expires > now) return { value: hit.value };
      kept.delete(key);
      return undefined;
    },
    async set(key, value, _now, expires) {
      kept.delete(key);
      kept.set(key, { value, expires });
      while (kept.size > maxEntries) kept.delete(kept.keys().next().value!);
    },
  };
}

/**
 * Results in Redis over `client` (the process's one connection, opened with no offline queue, so
 * a command fails at once while Redis is down), under `<keyPrefix>:discovery:`; when a command
 * fails, `fallback` (this process's memory) answers instead.
 */
export function redisDiscoveryCache(client: Redis, keyPrefix: string, fallback: DiscoveryCache): DiscoveryCache {
  const redisKey = (key: string) => `${keyPrefix}:discovery:${createHash('sha256').update(key).digest('hex')}`;
  return {
    async get(key, now) {
      let raw: string | null;
      try {
        raw = await client.get(redisKey(key));
      } catch {
        return fallback.get(key, now);
      }
      if (raw === null) return undefined;
      let kept: { v?: unknown; e?: unknown };
      try {
        kept = JSON.parse(raw) as { v?: unknown; e?: unknown };
      } catch {
        return undefined;
      }
      if (typeof kept.e !== 'number' || kept.e <= now) return undefined;
      if (kept.v !== null && typeof kept.v !== 'string') return undefined;
      return { value: kept.v };
    },
    async set(key, value, now, expires) {
      try {
        await client.set(
          redisKey(key),
          JSON.stringify({ v: value, e: expires }),
          'PX',
          Math.max(1, Math.ceil(expires - now)) + EXPIRY_GRACE_MS,
        );
      } catch {
        await fallback.set(key, value, now, expires);
      }
    },
  };
}

/** Results kept in this process at most (also during a Redis outage). */
export const MEMORY_ENTRIES = 10_000;

/**
 * The discovery cache of a process whose counters live in `counters`: in Redis when they do (the
 * same connection and key prefix; this process's memory while Redis is down), else in memory.
 */
export function discoveryCacheOver(counters: CounterStore, maxEntries = MEMORY_ENTRIES): DiscoveryCache {
  const memory = memoryDiscoveryCache(maxEntries);
  const redis = counters.redisClient;
  return redis ? redisDiscoveryCache(redis, counters.keyPrefix, memory) : memory;
}
