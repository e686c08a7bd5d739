/**
 * The Redis connection of the rate limiter and the discovery cache (`REDIS_URL`, ioredis 5;
 * docs/adr/0008-rate-limits.md, docs/adr/0029-cluster.md).
 * Commands are never queued while disconnected (`enableOfflineQueue: false`): during an outage the
 * limiter counts in memory at once instead of holding requests; ioredis reconnects by itself.
 */
import { Redis } from 'ioredis';

/** Where connection trouble is reported (Fastify's logger fits). */
export interface RedisLog {
  warn(obj: unknown, msg?: string): void;
}

/** An open connection and the way to end it (ending is not reported as an outage). */
export interface RedisConnection {
  client: Redis;
  close(): Promise<void>;
}

/**
 * Opens a connection to `url` (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS) and
 * waits until it is ready. A lost connection is logged once per outage at `warn`, and so is the
 * recovery.
 * @throws Error naming REDIS_URL (without its password) when the first connection fails.
 */
export async function connectRedis(url: string, log: RedisLog): Promise<RedisConnection> {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
  });
  let connected = false;
  let closing = false;
  let down = false;
  const outage = (detail: string) => {
    if (!connected || closing || down) return;
    down = true;
    log.warn(
      { detail },
      'Redis unavailable: rate limits and discovery results are kept in memory per process until it is back',
    );
  };
  client.on('error', (err: Error) => outage(err.message));
  client.on('close', () => outage('connection closed'));
  client.on('ready', () => {
    if (down) log.warn({}, 'Redis is back: rate limits and discovery results are shared again');
    down = false;
  });
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    const safe = url.replace(/\/\/[^@/]*@/, '//***@');
    throw new Error(`REDIS_URL: cannot connect to ${safe}: ${(err as Error).message}`);
  }
  connected = true;
  return {
    client,
    close: async () => {
      closing = true;
      await client.quit().catch(() => client.disconnect());
    },
  };
}
