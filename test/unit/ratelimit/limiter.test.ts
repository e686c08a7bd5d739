/**
 * The limiter on its own (src/ratelimit/limiter.ts): counting with the injected clock in memory,
 * and — when TEST_REDIS_URL is set — start-up failure naming REDIS_URL and the fallback to memory
 * during a Redis outage and back (made real by cutting a TCP proxy between the limiter and Redis).
 */
import { afterEach, describe, expect, it } from 'vitest';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { createRateLimiter, type RateLimiter } from '../../../src/ratelimit/limiter.ts';
import { fixedClock } from '../../../src/domain/clock.ts';

const REDIS_URL = process.env.TEST_REDIS_URL;
const T0 = 1342521939;
const END = 1342522800;
const silent = { warn: () => {} };
const anon = (ip: string) => ({ kind: 'anonymous' as const, ip });

const limiters: RateLimiter[] = [];
afterEach(async () => {
  await Promise.all(limiters.splice(0).map((l) => l.close()));
});

async function limiter(
  opts: { redisUrl?: string; clock?: ReturnType<typeof fixedClock>; log?: { warn(o: unknown, m?: string): void } } = {},
) {
  const l = await createRateLimiter({
    anonymousLimit: 2,
    authenticatedLimit: 3,
    keyPrefix: `tipjar-test:${randomBytes(6).toString('hex')}`,
    redisUrl: opts.redisUrl,
    clock: opts.clock ?? fixedClock(T0),
    log: opts.log ?? silent,
  });
  limiters.push(l);
  return l;
}

describe('RateLimiter in memory', () => {
  it('hit counts, peek does not; over the limit is exceeded; the next hour starts at 0', async () => {
    const clock = fixedClock(T0);
    const l = await limiter({ clock });
    expect(l.store).toBe('memory');
    expect(await l.peek(anon('a'))).toEqual({
      limit: 2,
      remaining: 2,
      current: 0,
      reset: END,
      retryAfter: END - T0,
      exceeded: false,
    });
    expect(await l.hit(anon('a'))).toMatchObject({ current: 1, remaining: 1, exceeded: false });
    expect(await l.hit(anon('a'))).toMatchObject({ current: 2, remaining: 0, exceeded: false });
    expect(await l.hit(anon('a'))).toMatchObject({ current: 2, remaining: 0, exceeded: true });
    expect(await l.peek(anon('a'))).toMatchObject({ current: 2, remaining: 0, exceeded: false });
    expect(await l.hit({ kind: 'token', userId: 1, clientId: null })).toMatchObject({ limit: 3, current: 1 });
    clock.set(END);
    expect(await l.hit(anon('a'))).toMatchObject({ current: 1, reset: END + 3600, retryAfter: 3600, exceeded: false });
  });
});

describe.runIf(REDIS_URL)('RateLimiter in Redis', () => {
  it('start-up fails, naming REDIS_URL, when Redis cannot be reached', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(limiter({ redisUrl: `redis://user:secret@127.0.0.1:${port}` })).rejects.toThrow(
      `REDIS_URL: cannot connect to redis://***@127.0.0.1:${port}`,
    );
  });

  it('during an outage requests are still answered, counted in memory; the outage is logged once', async () => {
    const target = new URL(REDIS_URL!);
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as net.AddressInfo).port;
    const warnings: string[] = [];
    try {
      const l = await limiter({
        redisUrl: `redis://127.0.0.1:${port}`,
        log: { warn: (_o, m) => warnings.push(String(m)) },
      });
      expect(l.store).toBe('redis');
      expect(await l.hit(anon('b'))).toMatchObject({ current: 1 });
      expect(await l.hit(anon('b'))).toMatchObject({ current: 2 });
      // Cut Redis off: the proxy stops accepting and drops its connections.
      proxy.close();
      for (const s of sockets) s.destroy();
      await new Promise((r) => setTimeout(r, 50));
      // Not held, not failed: counted in this process's memory from 0.
      expect(await l.hit(anon('b'))).toMatchObject({ current: 1, exceeded: false });
      expect(await l.hit(anon('b'))).toMatchObject({ current: 2, exceeded: false });
      expect(await l.hit(anon('b'))).toMatchObject({ current: 2, exceeded: true });
      expect(await l.peek(anon('b'))).toMatchObject({ current: 2 });
      expect(warnings).toEqual([
        'Redis unavailable: rate limits and discovery results are kept in memory per process until it is back',
      ]);
      // Redis back on the same address: ioredis reconnects, and counting is shared again from
      // Redis's count (2 before the outage, so this third request is over the limit).
      await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', r));
      for (let i = 0; i < 100 && warnings.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(warnings).toEqual([
        'Redis unavailable: rate limits and discovery results are kept in memory per process until it is back',
        'Redis is back: rate limits and discovery results are shared again',
      ]);
      expect(await l.hit(anon('b'))).toMatchObject({ current: 2, remaining: 0, exceeded: true });
    } finally {
      proxy.close();
      for (const s of sockets) s.destroy();
    }
  });
});
