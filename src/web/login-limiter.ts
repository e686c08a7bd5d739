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

/** Accounts one client IP may create through the sign-up form per SIGNUP_WINDOW_SECONDS. */
export const MAX_SIGNUPS_PER_IP = 20;
/** The sign-up window: one hour, in seconds. */
export const SIGNUP_WINDOW_SECONDS = 3600;

export interface SignupLimiter {
  /** Seconds until `ip` may create another account; 0 when it may now. */
  blockedFor(ip: string): Promise<number>;
  /** Counts one account created from `ip`. */
  created(ip: string): Promise<void>;
}

/**
 * Sign-ups per client IP (in memory, per process, like the log-in limits): at most
 * MAX_SIGNUPS_PER_IP accounts per hour, so one client cannot mass-create accounts; form errors
 * are not counted.
 */
export function createSignupLimiter(max = MAX_SIGNUPS_PER_IP, windowSeconds = SIGNUP_WINDOW_SECONDS): SignupLimiter {
  const limiter = new RateLimiterMemory({ keyPrefix: 'signup', points: max, duration: windowSeconds });
  return {
    async blockedFor(ip) {
      const r = await limiter.get(ip);
      return r && r.consumedPoints >= max ? Math.max(1, Math.ceil(r.msBeforeNext / 1000)) : 0;
    },
    async created(ip) {
      await limiter.penalty(ip, 1);
    },
  };
}
