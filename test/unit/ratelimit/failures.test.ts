/**
 * FixedWindowLimit and FailureLimits (src/ratelimit/fixed-window.ts, failures.ts) in memory, with
 * the injected clock: aligned windows of any length, refunds and resets, and the tiers' rules —
 * refused in the first tier over its limit, nothing left counted elsewhere; a success resets the
 * first tier and gives the attempt back to the others; an undecided attempt is given back everywhere.
 */
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../src/domain/clock.ts';
import { FailureLimits } from '../../../src/ratelimit/failures.ts';
import { FixedWindowLimit } from '../../../src/ratelimit/fixed-window.ts';
import { CounterStore } from '../../../src/ratelimit/store.ts';

/** 2012-07-17 10:35:39 UTC: 561 s before the quarter hour ends, 1461 s before the hour ends. */
const T0 = 1342521339;
const silent = { warn: () => {} };
const memory = () => CounterStore.open({ keyPrefix: 'test', log: silent });

describe('FixedWindowLimit', () => {
  it('counts per key in windows aligned to their length; refund gives one back, reset forgets', async () => {
    const clock = fixedClock(T0);
    const limit = new FixedWindowLimit(await memory(), { name: 'q', limit: 2, windowSeconds: 900, clock });
    expect(await limit.hit('a')).toEqual({
      limit: 2,
      remaining: 1,
      current: 1,
      reset: 1342521900,
      retryAfter: 561,
      exceeded: false,
    });
    expect(await limit.hit('a')).toMatchObject({ current: 2, exceeded: false });
    expect(await limit.hit('a')).toMatchObject({ current: 2, remaining: 0, exceeded: true });
    expect(await limit.peek('b')).toMatchObject({ current: 0, remaining: 2 });
    await limit.refund('a');
    expect(await limit.peek('a')).toMatchObject({ current: 2, remaining: 0, exceeded: false });
    await limit.reset('a');
    expect(await limit.peek('a')).toMatchObject({ current: 0, remaining: 2 });
    await limit.hit('a');
    await limit.hit('a');
    clock.set(1342521900);
    expect(await limit.hit('a')).toEqual({
      limit: 2,
      remaining: 1,
      current: 1,
      reset: 1342522800,
      retryAfter: 900,
      exceeded: false,
    });
  });
});

describe('FailureLimits', () => {
  async function tiers() {
    const store = await memory();
    const clock = fixedClock(T0);
    const pair = new FixedWindowLimit(store, { name: 'pair', limit: 2, windowSeconds: 900, clock });
    const account = new FixedWindowLimit(store, { name: 'account', limit: 3, windowSeconds: 3600, clock });
    const limits = new FailureLimits([
      { limit: pair, key: (a, n) => `${n}:${a}` },
      { limit: account, key: (a) => a },
    ]);
    return { limits, pair, account };
  }

  it('the first tier over its limit refuses with its Retry-After; the other tiers keep nothing of it', async () => {
    const { limits, pair, account } = await tiers();
    expect(await limits.attempt('u', '192.0.2.1')).toBe(0);
    expect(await limits.attempt('u', '192.0.2.1')).toBe(0);
    expect(await limits.attempt('u', '192.0.2.1')).toBe(561);
    expect(await limits.attempt('u', '192.0.2.1')).toBe(561);
    expect((await account.peek('u')).current).toBe(2);
    // the account's ceiling is reached from another network; the pair's count there is given back
    expect(await limits.attempt('u', '192.0.2.2')).toBe(0);
    expect(await limits.attempt('u', '192.0.2.3')).toBe(1461);
    expect((await pair.peek('192.0.2.3:u')).current).toBe(0);
  });

  it('a success resets the first tier and gives the attempt back to the others; undecided gives it back everywhere', async () => {
    const { limits, pair, account } = await tiers();
    await limits.attempt('u', '2001:db8::1');
    await limits.attempt('u', '2001:db8::2');
    // IPv6 clients count per /64
    expect((await pair.peek('2001:db8:0:0::/64:u')).current).toBe(2);
    await limits.succeeded('u', '2001:db8::3');
    expect((await pair.peek('2001:db8:0:0::/64:u')).current).toBe(0);
    expect((await account.peek('u')).current).toBe(1);
    await limits.attempt('u', '192.0.2.9');
    await limits.undecided('u', '192.0.2.9');
    expect((await pair.peek('192.0.2.9:u')).current).toBe(0);
    expect((await account.peek('u')).current).toBe(1);
  });
});
