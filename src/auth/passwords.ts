/**
 * Password hashing with scrypt from node:crypto (a memory-hard KDF; see docs/adr/0003).
 * Stored form: `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`, so parameters can be raised later.
 *
 * Each hash costs 64 MiB and ≈ 0.2–0.4 s of a libuv thread, so the server runs them through a
 * PasswordHasher: at most `concurrency` at once and `queue` waiting (PASSWORD_HASH_CONCURRENCY,
 * PASSWORD_HASH_QUEUE); past that a hash is refused at once with PasswordHashingBusyError
 * (the website answers 503 with `Retry-After`; docs/adr/0018-password-hashing-queue.md).
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import type { PasswordHashing } from '../domain/services.ts';

export type { PasswordHashing };

const scrypt = (pw: string, salt: Buffer, len: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(pw, salt, len, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );

/** N = 2^16, r = 8, p = 1: 64 MiB and about 0.2 s per hash on this machine. */
const DEFAULTS = { N: 65536, r: 8, p: 1 };
const KEY_LENGTH = 32;

/** Hashes `password` (NFKC-normalised) with a fresh salt, unbounded; returns the stored form. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = DEFAULTS;
  const key = await scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * True when `password` matches `stored` (unbounded); false for any malformed stored value. A null
 * `stored` (an unknown user, or one without a password) is checked against a hash of a random
 * password made once per process, so it costs what a wrong password costs, and is false.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (stored === null) {
    await verifyPassword(password, await dummyHash());
    return false;
  }
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  const key = await scrypt(password.normalize('NFKC'), salt, expected.length, { N, r, p, maxmem: 256 * N * r });
  return timingSafeEqual(key, expected);
}

let dummy: Promise<string> | undefined;
/** A hash of a random password, made once per process, for equal-cost checks of null hashes. */
function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  return dummy;
}

/** The time one job is assumed to take until one has been measured: about one scrypt hash, in ms. */
const FIRST_ESTIMATE_MS = 300;

/** The unbounded functions, for operator commands (one hash at a time anyway). */
export const unboundedHashing: PasswordHashing = { hash: hashPassword, verify: verifyPassword };

/** Thrown when every hashing slot is busy and the queue is full: nothing was hashed. */
export class PasswordHashingBusyError extends Error {
  /** @param retryAfter seconds after which the queue has likely drained (≥ 1) */
  constructor(readonly retryAfter: number) {
    super('Too many passwords are being checked right now; please try again in a moment');
    this.name = 'PasswordHashingBusyError';
  }
}

export interface PasswordHasherOptions {
  /** hashes computed at once (each holds 64 MiB and one libuv thread) */
  concurrency: number;
  /** hashes allowed to wait for a slot; one more is refused */
  queue: number;
}

/** Hashes and checks passwords with bounded concurrency and a bounded queue; see the module comment. */
export class PasswordHasher implements PasswordHashing {
  private readonly limit: LimitFunction;
  private readonly capacity: number;
  /** a moving average of how long one job takes, in ms (for Retry-After) */
  private averageMs = FIRST_ESTIMATE_MS;

  constructor(private readonly opts: PasswordHasherOptions) {
    this.limit = pLimit(opts.concurrency);
    this.capacity = opts.concurrency + opts.queue;
  }

  /** Jobs running now (at most `concurrency`). */
  get running(): number {
    return this.limit.activeCount;
  }

  /** Jobs waiting for a slot (at most `queue`). */
  get waiting(): number {
    return this.limit.pendingCount;
  }

  /** Hashes `password` (see hashPassword). @throws PasswordHashingBusyError */
  hash(password: string): Promise<string> {
    return this.run(() => hashPassword(password));
  }

  /** Checks `password` against `stored` (see verifyPassword). @throws PasswordHashingBusyError */
  verify(password: string, stored: string | null): Promise<boolean> {
    return this.run(() => verifyPassword(password, stored));
  }

  /**
   * Runs `job` in a slot: at once when one is free, after waiting when the queue has room.
   * @throws (rejects with) PasswordHashingBusyError when the slots and the queue are full; the
   *   job is then not run.
   */
  run<T>(job: () => Promise<T>): Promise<T> {
    const busy = this.limit.activeCount + this.limit.pendingCount;
    if (busy >= this.capacity) return Promise.reject(new PasswordHashingBusyError(this.retryAfter(busy)));
    return this.limit(async () => {
      const started = performance.now();
      try {
        return await job();
      } finally {
        const ms = performance.now() - started;
        this.averageMs = 0.8 * this.averageMs + 0.2 * ms;
      }
    });
  }

  /** Seconds for `busy` jobs to drain through the slots at the average job time, at least 1. */
  private retryAfter(busy: number): number {
    return Math.max(1, Math.ceil(((busy / this.opts.concurrency) * this.averageMs) / 1000));
  }
}
