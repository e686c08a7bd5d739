/**
 * The API's rate limiter (api-v2.md "Limits", DECISIONS.md "Rate limits", docs/adr/0008-rate-limits.md):
 * per hour, fixed windows aligned to the hour; anonymous requests counted per client IP,
 * requests with a token per (token's user, token's client). Two FixedWindowLimits over the
 * process's CounterStore (memory, or Redis when `REDIS_URL` is set, shared by every instance).
 */
import { isIP } from 'node:net';
import type { Clock } from '../domain/clock.ts';
import type { Principal } from '../domain/records.ts';
import { FixedWindowLimit } from './fixed-window.ts';
import type { RedisLog } from './redis.ts';
import { CounterStore } from './store.ts';
import { WINDOW_SECONDS, type RateLimitStatus } from './window.ts';

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
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Whom a request is counted against (`ip`: see clientNetwork). */
export type Subject = { kind: 'anonymous'; ip: string } | { kind: 'token'; userId: number; clientId: number | null };

/**
 * The subject of a request: the token's user and client when a valid token came with it, else
 * the client's network (see clientNetwork; also for requests whose token is invalid: they are
 * counted, then refused with 401).
 */
export function subjectOf(principal: Principal | undefined, ip: string): Subject {
  return principal
    ? { kind: 'token', userId: principal.userId, clientId: principal.clientId }
    : { kind: 'anonymous', ip: clientNetwork(ip) };
}

/** The key of a subject within a window: `ip:<network>` or `user:<id>:client:<id|none>`. */
export function subjectKey(subject: Subject): string {
  return subject.kind === 'token' ? `user:${subject.userId}:client:${subject.clientId ?? 'none'}` : `ip:${subject.ip}`;
}

/** Most client addresses whose counter key is kept (the map starts again when full). */
const IP_KEY_CACHE_SIZE = 10_000;

export interface RateLimiterOptions {
  /** requests per hour without a token (per IP) */
  anonymousLimit: number;
  /** requests per hour with a token (per user and client) */
  authenticatedLimit: number;
  clock: Clock;
}

/**
 * Counts requests per subject and hour; see the module comment. Store keys are
 * `<RATE_LIMIT_KEY_PREFIX>:<window start>:<subjectKey>`.
 */
export class RateLimiter {
  private readonly anonymous: FixedWindowLimit;
  private readonly authenticated: FixedWindowLimit;
  /** client address → its counter key (`ip:<network>`), so that a request needs no parsing */
  private readonly ipKeys = new Map<string, string>();

  /** @param ownsStore close `counters` with the limiter (createRateLimiter's own store) */
  constructor(
    private readonly counters: CounterStore,
    opts: RateLimiterOptions,
    private readonly ownsStore = false,
  ) {
    this.anonymous = new FixedWindowLimit(counters, {
      limit: opts.anonymousLimit,
      windowSeconds: WINDOW_SECONDS,
      clock: opts.clock,
    });
    this.authenticated = new FixedWindowLimit(counters, {
      limit: opts.authenticatedLimit,
      windowSeconds: WINDOW_SECONDS,
      clock: opts.clock,
    });
  }

  /** `memory` or `redis`, for logs and docs */
  get store(): 'memory' | 'redis' {
    return this.counters.kind;
  }

  private limitFor(subject: Subject): FixedWindowLimit {
    return subject.kind === 'token' ? this.authenticated : this.anonymous;
  }

  /**
   * Counts one request of `subject` in the current window and returns the status after it
   * (`exceeded` when this request is over the limit; refused requests count too).
   * @throws when the store fails and no fallback answers (a Redis outage falls back to memory).
   */
  async hit(subject: Subject): Promise<RateLimitStatus> {
    return this.limitFor(subject).hit(subjectKey(subject));
  }

  /**
   * Counts one request of the caller — the token's (user, client) when `principal` is given, else
   * the client network of `ip` (see subjectOf) — and returns the status after it: synchronously
   * when the counters live in this process, a promise when they live in Redis.
   */
  count(principal: Principal | undefined, ip: string): RateLimitStatus | Promise<RateLimitStatus> {
    if (principal) {
      return this.authenticated.hitNow(`user:${principal.userId}:client:${principal.clientId ?? 'none'}`);
    }
    let key = this.ipKeys.get(ip);
    if (key === undefined) {
      if (this.ipKeys.size >= IP_KEY_CACHE_SIZE) this.ipKeys.clear();
      key = subjectKey({ kind: 'anonymous', ip: clientNetwork(ip) });
      this.ipKeys.set(ip, key);
    }
    return this.anonymous.hitNow(key);
  }

  /** The status of `subject` in the current window without counting a request (`GET /rate_limit`). */
  async peek(subject: Subject): Promise<RateLimitStatus> {
    const status = await this.limitFor(subject).peek(subjectKey(subject));
    return { ...status, exceeded: false };
  }

  /** Releases the store when the limiter owns it. */
  async close(): Promise<void> {
    if (this.ownsStore) await this.counters.close();
  }
}

/**
 * Builds a limiter over a store of its own (closed with it), from the settings. With `redisUrl`
 * it connects first and fails when Redis cannot be reached; later outages fall back to
 * per-process memory counting until Redis is back.
 * @throws Error naming REDIS_URL when the first connection fails.
 */
export async function createRateLimiter(
  opts: RateLimiterOptions & { keyPrefix: string; redisUrl?: string | undefined; log: RedisLog },
): Promise<RateLimiter> {
  const store = await CounterStore.open({ keyPrefix: opts.keyPrefix, redisUrl: opts.redisUrl, log: opts.log });
  return new RateLimiter(store, opts, true);
}
