/**
 * The bounded password-hashing queue (src/auth/passwords.ts PasswordHasher): at most
 * `concurrency` jobs at once, at most `queue` waiting, the next refused at once with
 * PasswordHashingBusyError (nothing run), and hashes that still verify.
 */
import { describe, expect, it } from 'vitest';
import { PasswordHasher, PasswordHashingBusyError, verifyPassword } from '../../../src/auth/passwords.ts';

/** A job that runs until `release` is called. */
function heldJob() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started = false;
  const job = async () => {
    started = true;
    await gate;
    return 'done';
  };
  return { job, release, started: () => started };
}

describe('PasswordHasher', () => {
  it('concurrency 2, queue 1: two run, one waits, the fourth is refused without running; the waiting one runs when a slot frees', async () => {
    const hasher = new PasswordHasher({ concurrency: 2, queue: 1 });
    const [a, b, c, d] = [heldJob(), heldJob(), heldJob(), heldJob()];
    const runs = [hasher.run(a.job), hasher.run(b.job), hasher.run(c.job)];
    expect([hasher.running, hasher.waiting]).toEqual([2, 1]);
    const refused = hasher.run(d.job);
    await expect(refused).rejects.toBeInstanceOf(PasswordHashingBusyError);
    await expect(refused).rejects.toMatchObject({ retryAfter: 1 });
    await Promise.resolve();
    expect([a.started(), b.started(), c.started(), d.started()]).toEqual([true, true, false, false]);
    a.release();
    await runs[0];
    await new Promise((r) => setTimeout(r, 0));
    expect(c.started()).toBe(true);
    expect([hasher.running, hasher.waiting]).toEqual([2, 0]);
    b.release();
    c.release();
    expect(await Promise.all(runs)).toEqual(['done', 'done', 'done']);
    expect([hasher.running, hasher.waiting]).toEqual([0, 0]);
  });

  it('queue 0: only the running jobs; a failing job frees its slot', async () => {
    const hasher = new PasswordHasher({ concurrency: 1, queue: 0 });
    const held = heldJob();
    const first = hasher.run(held.job);
    await expect(hasher.run(async () => 'x')).rejects.toBeInstanceOf(PasswordHashingBusyError);
    held.release();
    await first;
    await expect(hasher.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await hasher.run(async () => 'free again')).toBe('free again');
  });

  it('Retry-After is the time the full queue needs to drain (0.3 s a job until one is measured), at least 1 s', async () => {
    const hasher = new PasswordHasher({ concurrency: 2, queue: 18 });
    const held = heldJob();
    const jobs = Array.from({ length: 20 }, () => hasher.run(held.job));
    // 20 jobs through 2 slots at 0.3 s each: 3 s
    await expect(hasher.run(async () => 'x')).rejects.toMatchObject({ retryAfter: 3 });
    held.release();
    await Promise.all(jobs);
  });

  it('hash and verify go through the queue and produce the stored scrypt form', async () => {
    const hasher = new PasswordHasher({ concurrency: 1, queue: 1 });
    const stored = await hasher.hash('correct horse battery');
    expect(stored).toMatch(/^scrypt\$65536\$8\$1\$/);
    expect(await hasher.verify('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('wrong', stored)).toBe(false);
  });

  it('a null stored hash (unknown user, no password) is false after the same scrypt work as a wrong password', async () => {
    const hasher = new PasswordHasher({ concurrency: 1, queue: 1 });
    expect(await hasher.verify('any password', null)).toBe(false);
    const stored = await hasher.hash('correct horse battery');
    const time = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    const wrong = await time(() => verifyPassword('wrong', stored));
    const none = await time(() => verifyPassword('wrong', null));
    // Both run one scrypt of the same parameters; a check that skipped it would take well under a millisecond.
    expect(none).toBeGreaterThan(wrong / 4);
  });
});
