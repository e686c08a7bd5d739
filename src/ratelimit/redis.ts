/**
 * The Redis connection of the rate limiter (`REDIS_URL`, ioredis 5; docs/adr/0008-rate-limits.md).
 * Commands are never queued while disconnected (`enableOfflineQueue: false`): during an outage the
 * limiter counts in memory at once instead of holding requests; ioredis reconnects by itself.
 */
import { Redis } from 'ioredis';

/** Where connection trouble is reported (Fastify's logger fits). */
export interface RedisLog {
  warn(obj: unknown, msg?: string): void;
}

/**
 * Opens a connection to `url` (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS) and
 * waits until it is ready. Connection errors are logged once per outage at `warn`.
 * @throws Error naming REDIS_URL (without its password) when the first connection fails.
 */
export async function connectRedis(url: string, log: RedisLog): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
  });
  let reported = false;
  redis.on('error', (err: Error) => {
    if (reported) return;
    reported = true;
    log.warn({ err: err.message }, 'Redis unavailable: rate limits are counted in memory per process until it is back');
  });
  redis.on('ready', () => {
    if (reported) log.warn({}, 'Redis is back: rate limits are shared again');
    reported = false;
  });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    const safe = url.replace(/\/\/[^@/]*@/, '//***@');
    throw new Error(`REDIS_URL: cannot connect to ${safe}: ${(err as Error).message}`);
  }
  return redis;
}
