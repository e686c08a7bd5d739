/**
 * Window arithmetic of the rate limits (api-v2.md "Limits", DECISIONS.md "Rate limits"): fixed
 * windows aligned to multiples of their length in Unix time. The API's window is the hour:
 * [floor(now / 3600) * 3600, +3600), in Unix seconds; the website's and the OAuth endpoints'
 * limits also use 15-minute windows (docs/api.md "Website" → "Limits", "OAuth 2").
 */

/** Length of the API's rate-limit window in seconds (one hour); the default everywhere here. */
export const WINDOW_SECONDS = 3600;

/** One window: `start` inclusive, `end` exclusive (= the reset time), Unix seconds. */
export interface Window {
  start: number;
  end: number;
}

/** The window of `seconds` (default one hour) containing `now` (Unix seconds). */
export function windowAt(now: number, seconds = WINDOW_SECONDS): Window {
  const start = Math.floor(now / seconds) * seconds;
  return { start, end: start + seconds };
}

/**
 * The caller's standing in a window, as the headers and `GET /rate_limit` report it.
 * Invariant: `remaining + current === limit`, `remaining >= 0`, `current <= limit` (requests
 * refused over the limit are still counted, but `current` is reported capped at `limit`).
 */
export interface RateLimitStatus {
  /** requests allowed per window */
  limit: number;
  /** requests left in the window, never below 0 */
  remaining: number;
  /** requests made in the window, capped at `limit` */
  current: number;
  /** Unix seconds at which the window ends and the allowance renews */
  reset: number;
  /** seconds from now until `reset` (the `Retry-After` of a refused request), at least 1 */
  retryAfter: number;
  /** true when this request is over the limit (403 rate_limit_exceeded) */
  exceeded: boolean;
}

/**
 * The status at `now` (Unix seconds) after `count` requests (this one included) in the window of
 * `seconds` (default one hour) containing `now`, with allowance `limit`. A request is over the
 * limit when `count > limit`.
 */
export function statusOf(limit: number, count: number, now: number, seconds = WINDOW_SECONDS): RateLimitStatus {
  const end = Math.floor(now / seconds) * seconds + seconds;
  const current = Math.min(Math.max(count, 0), limit);
  return { limit, remaining: limit - current, current, reset: end, retryAfter: end - now, exceeded: count > limit };
}

/**
 * `reset_time` of `GET /rate_limit`: the HTTP-date (RFC 7231 IMF-fixdate) of a Unix time,
 * e.g. `Tue, 17 Jul 2012 10:45:39 GMT` (docs/api.md "Rate limits").
 */
export function httpDate(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toUTCString();
}
