/**
 * Search results shared by every instance through Redis (`REDIS_URL`; docs/adr/0034): the
 * domain's SharedSearchResults port (src/domain/search/index.ts) over the process's one Redis
 * connection (the rate limiter's, ratelimit/store.ts).
 *
 * Each result is one key, `<RATE_LIMIT_KEY_PREFIX>:search:<counter>:<SHA-256 of the search's
 * cache key>`, holding `[total, [ids…]]`, dropped by Redis after SHARED_RESULT_SECONDS. The
 * counter is the database's count of writes that can change what a search matches
 * (`search_changes`), read before the search ran: a write moves it, so results from before a
 * write are never found again and age away. While Redis cannot be reached, nothing is shared:
 * `get` finds nothing and `set` does nothing, and each instance ranks for itself.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SharedSearchResults } from '../domain/search/index.ts';
import type { CounterStore } from '../ratelimit/store.ts';

/** Seconds Redis keeps a shared result (it is found only while the counter has not moved). */
export const SHARED_RESULT_SECONDS = 600;

/** Shared results under `<keyPrefix>:search:` over `client` (see the module comment). */
export function redisSearchResults(client: Redis, keyPrefix: string): SharedSearchResults {
  const redisKey = (key: string, counter: number) =>
    `${keyPrefix}:search:${counter}:${createHash('sha256').update(key).digest('hex')}`;
  const count = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
  return {
    async get(key, counter) {
      let raw: string | null;
      try {
        raw = await client.get(redisKey(key, counter));
      } catch {
        return undefined;
      }
      if (raw === null) return undefined;
      try {
        const [total, ids] = JSON.parse(raw) as unknown[];
        if (!count(total) || !Array.isArray(ids) || !ids.every(count)) return undefined;
        return { total, ids: ids as number[] };
      } catch {
        return undefined;
      }
    },
    async set(key, counter, page) {
      try {
        await client.set(redisKey(key, counter), JSON.stringify([page.total, page.ids]), 'EX', SHARED_RESULT_SECONDS);
      } catch {
        // Not shared this time: the instance keeps it in its own cache.
      }
    },
  };
}

/** The shared search results of a process whose counters live in `counters`: in Redis when they do, else none. */
export function sharedSearchResultsOver(counters: CounterStore): SharedSearchResults | undefined {
  const redis = counters.redisClient;
  return redis ? redisSearchResults(redis, counters.keyPrefix) : undefined;
}
