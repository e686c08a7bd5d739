/**
 * Log-in attempts are rate limited (issue 6): at most `MAX_FAILURES` failed attempts per username
 * and per client IP in `WINDOW_SECONDS`; beyond that the log-in form refuses every attempt (even a
 * right password) with a clear message until the window has passed. Counting uses
 * `rate-limiter-flexible` in memory: per process, forgotten on restart. (With several instances an
 * attacker gets `MAX_FAILURES` per instance; a Redis store is the next step.)
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Failed attempts allowed per username and per IP in one window. */
export const MAX_FAILURES = 10;
/** The window: 15 minutes, in seconds. */
export const WINDOW_SECONDS = 15 * 60;

export interface LoginLimiter {
  /** Seconds until `username`/`ip` may try again; 0 when an attempt is allowed now. */
  blockedFor(username: string, ip: string): Promise<number>;
  /** Counts one failed attempt against both keys. */
  fail(username: string, ip: string): Promise<void>;
  /** Forgets the username's failures after a successful log-in (the IP's count stays). */
  succeed(username: string): Promise<void>;
}

/** A new in-memory limiter (one per app instance). */
export function createLoginLimiter(maxFailures = MAX_FAILURES, windowSeconds = WINDOW_SECONDS): LoginLimiter {
  const limiter = new RateLimiterMemory({ keyPrefix: 'login', points: maxFailures, duration: windowSeconds });
  // usernames are at most 32 characters: longer input is cut, so keys stay small
  const userKey = (u: string) => `user:${u.slice(0, 64).toLowerCase()}`;
  const ipKey = (ip: string) => `ip:${ip}`;
  const wait = (r: RateLimiterRes | null) => (r && r.consumedPoints >= maxFailures ? Math.max(1, Math.ceil(r.msBeforeNext / 1000)) : 0);
  return {
    async blockedFor(username, ip) {
      const [u, i] = await Promise.all([limiter.get(userKey(username)), limiter.get(ipKey(ip))]);
      return Math.max(wait(u), wait(i));
    },
    async fail(username, ip) {
      await Promise.all([limiter.penalty(userKey(username), 1), limiter.penalty(ipKey(ip), 1)]);
    },
    async succeed(username) {
      await limiter.delete(userKey(username));
    },
  };
}
