/**
 * What the outboxes (webhook deliveries, mail) share: the retry schedule (exponential backoff with
 * jitter, within a window counted from the row's creation) and the names of their workers.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** How long after its creation a delivery or message is retried before it is `failed`: 3 days, in seconds. */
export const RETRY_WINDOW_SECONDS = 3 * 24 * 3600;
/** First retry delay (before jitter), in seconds; it doubles after each failed attempt. */
export const RETRY_BASE_SECONDS = 30;
/** Longest delay between two attempts (before jitter), in seconds. */
export const RETRY_MAX_SECONDS = 6 * 3600;

/**
 * Seconds to wait after the `attempts`-th failed attempt: 30 s × 2^(attempts−1), at most 6 h,
 * with "equal jitter" (a random point in the upper half), so a receiver coming back from an outage
 * is not hit by everything queued in the same second.
 * @param random a number in [0, 1) (Math.random by default).
 */
export function retryDelaySeconds(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(RETRY_MAX_SECONDS, RETRY_BASE_SECONDS * 2 ** Math.max(0, attempts - 1));
  return Math.ceil(base / 2 + random() * (base / 2));
}

/** A worker name unique to this process, for an outbox's claimed_by: host, pid and a random suffix. */
export function dispatcherId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}
