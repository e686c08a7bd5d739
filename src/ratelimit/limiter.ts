/**
 * The rate limiter (api-v2.md "Limits", DECISIONS.md "Rate limits", docs/adr/0008-rate-limits.md):
 * per hour, fixed windows aligned to the hour; anonymous requests counted per client IP,
 * requests with a token per (token's user, token's client). Counting is done by
 * `rate-limiter-flexible`: in memory for one process, or in Redis (`REDIS_URL`, via `ioredis`)
 * shared by every instance. The window start is part of every key, so a new hour starts new
 * counters whatever the store's own expiry; keys expire shortly after their window ends.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { isIP } from 'node:net';
import type { Clock } from '../domain/clock.ts';
import type { Principal } from '../domain/records.ts';
import { connectRedis, type RedisLog } from './redis.ts';
import { statusOf, windowAt, WINDOW_SECONDS, type RateLimitStatus } from './window.ts';

/**
 * Keys outlive their window by this many seconds, so instances whose clocks run a little behind
 * Redis's (or a test clock) never see a live window's counter vanish.
 */
export const EXPIRY_GRACE_SECONDS = 60;

/**
 * The network an anonymous client is counted as: an IPv4 address as is (also when IPv4-mapped,
 * `::ffff:192.0.2.1`), an IPv6 address by its /64 (`2001:db8:0:1::/64`), since one subscriber
 * usually holds a whole /64 and could otherwise take a fresh window per address.
 */
export function clientNetwork(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIP(ip) !== 6) return ip;
  const [head = '', tail] = ip.toLowerCase().split('%')[0]!.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded dotted IPv4 tail only ever lies in the last 32 bits, outside the /64.
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** Whom a request is counted against (`ip`: see clientNetwork). */
export type Subject = { kind: 'anonymous'; ip: string } | { kind: 'token'; userId: number; clientId: number | null };

/**
 * The subject of a request: the token's user and client when a valid token came with it, else
 * the client's network (see clientNetwork; also for requests whose token is invalid: they are
 * counted, then refused with 401).
 */
export function subjectOf(principal: Principal | undefined, ip: string): Subject {
  return principal ? { kind: 'token', userId: principal.userId, clientId: principal.clientId } : { kind: 'anonymous', ip: clientNetwork(ip) };
}

/** The store key of a subject within a window (the store adds the configured prefix). */
export function keyOf(subject: Subject, windowStart: number): string {
  return subject.kind === 'token'
    ? `${windowStart}:user:${subject.userId}:client:${subject.clientId ?? 'none'}`
    : `${windowStart}:ip:${subject.ip}`;
}

export interface RateLimiterOptions {
  /** requests per hour without a token (per IP) */
  anonymousLimit: number;
  /** requests per hour with a token (per user and client) */
  authenticatedLimit: number;
  /** prefix of every key, e.g. `tipjar:ratelimit` */
  keyPrefix: string;
  /** `redis://…` to count in Redis; undefined counts in this process's memory */
  redisUrl?: string | undefined;
  clock: Clock;
  log: RedisLog;
}

/** Counts requests per subject and window; see the module comment. */
export class RateLimiter {
  constructor(
    private readonly anonymous: RateLimiterAbstract,
    private readonly authenticated: RateLimiterAbstract,
    private readonly clock: Clock,
    private readonly onClose: () => Promise<void> = async () => {},
    /** `memory` or `redis`, for logs and docs */
    readonly store: 'memory' | 'redis' = 'memory',
  ) {}

  private limiterFor(subject: Subject): RateLimiterAbstract {
    return subject.kind === 'token' ? this.authenticated : this.anonymous;
  }

  /**
   * Counts one request of `subject` in the current window and returns the status after it
   * (`exceeded` when this request is over the limit; refused requests count too).
   * @throws when the store fails and no fallback answers (a Redis outage falls back to memory).
   */
  async hit(subject: Subject): Promise<RateLimitStatus> {
    const now = this.clock.now();
    const window = windowAt(now);
    const limiter = this.limiterFor(subject);
    let count: number;
    try {
      const res = await limiter.consume(keyOf(subject, window.start), 1, { customDuration: window.end - now + EXPIRY_GRACE_SECONDS });
      count = res.consumedPoints;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      count = err.consumedPoints;
    }
    return statusOf(limiter.points, count, now);
  }

  /** The status of `subject` in the current window without counting a request (`GET /rate_limit`). */
  async peek(subject: Subject): Promise<RateLimitStatus> {
    const now = this.clock.now();
    const limiter = this.limiterFor(subject);
    const res = await limiter.get(keyOf(subject, windowAt(now).start));
    const status = statusOf(limiter.points, res?.consumedPoints ?? 0, now);
    return { ...status, exceeded: false };
  }

  /** Releases the store (closes the Redis connection). */
  async close(): Promise<void> {
    await this.onClose();
  }
}

/**
 * Builds the limiter from the settings. With `redisUrl` it connects first and fails when Redis
 * cannot be reached; later outages fall back to per-process memory counting until Redis is back.
 * @throws Error naming REDIS_URL when the first connection fails.
 */
export async function createRateLimiter(opts: RateLimiterOptions): Promise<RateLimiter> {
  const memory = (points: number) => new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix: opts.keyPrefix });
  if (!opts.redisUrl) {
    return new RateLimiter(memory(opts.anonymousLimit), memory(opts.authenticatedLimit), opts.clock);
  }
  const redis = await connectRedis(opts.redisUrl, opts.log);
  const inRedis = (points: number) =>
    new RateLimiterRedis({
      storeClient: redis.client,
      points,
      duration: WINDOW_SECONDS,
      keyPrefix: opts.keyPrefix,
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory(points),
    });
  return new RateLimiter(inRedis(opts.anonymousLimit), inRedis(opts.authenticatedLimit), opts.clock, redis.close, 'redis');
}
