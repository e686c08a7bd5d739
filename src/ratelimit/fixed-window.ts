/**
 * A fixed-window limit: at most `limit` events per key in each window of `windowSeconds`, windows
 * aligned to multiples of their length in Unix time on the injected clock (window.ts). The window
 * start is part of every key, so a new window starts new counters whatever the store's own expiry;
 * keys expire `EXPIRY_GRACE_SECONDS` after their window ends. Every limit of the service is one of
 * these: the API's requests per hour (limiter.ts), the website's pages and password forms, failed
 * log-ins and failed client authentications (failures.ts).
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock } from '../domain/clock.ts';
import type { WindowCounts } from './memory.ts';
import type { CounterStore } from './store.ts';
import { statusOf, windowAt, type RateLimitStatus } from './window.ts';

/**
 * Keys outlive their window by this many seconds, so instances whose clocks run a little behind
 * Redis's (or a test clock) never see a live window's counter vanish.
 */
export const EXPIRY_GRACE_SECONDS = 60;

export interface FixedWindowLimitOptions {
  /** part of every key (`<prefix>:<name>:<window start>:<key>`); omitted: `<prefix>:<window start>:<key>` */
  name?: string;
  /** events allowed per key and window */
  limit: number;
  /** window length in seconds (3600: the hour; 900: a quarter hour) */
  windowSeconds: number;
  clock: Clock;
}

/** See the module comment. Statuses are those of window.ts (`exceeded`: over the limit). */
export class FixedWindowLimit {
  readonly limit: number;
  readonly windowSeconds: number;
  private readonly counter: RateLimiterAbstract | undefined;
  /** the counts when they live in this process (no REDIS_URL): counted synchronously */
  private readonly memory: WindowCounts | undefined;
  private readonly clock: Clock;

  constructor(store: CounterStore, opts: FixedWindowLimitOptions) {
    this.limit = opts.limit;
    this.windowSeconds = opts.windowSeconds;
    this.clock = opts.clock;
    this.memory = store.memoryCounts(opts.windowSeconds, EXPIRY_GRACE_SECONDS);
    this.counter = this.memory ? undefined : store.counter(opts.limit, opts.windowSeconds, opts.name);
  }

  /** The start of the window containing `now` (Unix seconds). */
  private startAt(now: number): number {
    return Math.floor(now / this.windowSeconds) * this.windowSeconds;
  }

  private keyAt(key: string, now: number): string {
    return `${windowAt(now, this.windowSeconds).start}:${key}`;
  }

  private expiry(now: number): { customDuration: number } {
    return { customDuration: windowAt(now, this.windowSeconds).end - now + EXPIRY_GRACE_SECONDS };
  }

  /**
   * Counts one event of `key` in the current window and returns the status after it (`exceeded`
   * when this event is over the limit; events over the limit are counted too).
   * @throws when the store fails and no fallback answers (a Redis outage falls back to memory).
   */
  async hit(key: string): Promise<RateLimitStatus> {
    return this.hitNow(key);
  }

  /**
   * As `hit`, but synchronous when the counts live in this process: a status, or a promise of one
   * when they live in Redis.
   */
  hitNow(key: string): RateLimitStatus | Promise<RateLimitStatus> {
    const now = this.clock.now();
    if (this.memory)
      return statusOf(this.limit, this.memory.add(key, 1, this.startAt(now), now), now, this.windowSeconds);
    return this.hitRedis(key, now);
  }

  private async hitRedis(key: string, now: number): Promise<RateLimitStatus> {
    let count: number;
    try {
      count = (await this.counter!.consume(this.keyAt(key, now), 1, this.expiry(now))).consumedPoints;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      count = err.consumedPoints;
    }
    return statusOf(this.limit, count, now, this.windowSeconds);
  }

  /** The status of `key` in the current window without counting (`remaining` 0: the next hit is over). */
  async peek(key: string): Promise<RateLimitStatus> {
    const now = this.clock.now();
    if (this.memory) return statusOf(this.limit, this.memory.get(key, this.startAt(now), now), now, this.windowSeconds);
    const res = await this.counter!.get(this.keyAt(key, now));
    return statusOf(this.limit, res?.consumedPoints ?? 0, now, this.windowSeconds);
  }

  /** Gives one event back to `key` in the current window (an event that turned out not to count). */
  async refund(key: string): Promise<void> {
    const now = this.clock.now();
    if (this.memory) this.memory.add(key, -1, this.startAt(now), now);
    else await this.counter!.reward(this.keyAt(key, now), 1, this.expiry(now));
  }

  /** Forgets `key`'s events in the current window. */
  async reset(key: string): Promise<void> {
    const now = this.clock.now();
    if (this.memory) this.memory.delete(key, this.startAt(now), now);
    else await this.counter!.delete(this.keyAt(key, now));
  }
}
