/** In-memory fixed-window counts (src/ratelimit/memory.ts): counted synchronously, per window, pruned after the grace. */
import { describe, expect, it } from 'vitest';
import { WindowCounts } from '../../../src/ratelimit/memory.ts';
import { FixedWindowLimit } from '../../../src/ratelimit/fixed-window.ts';
import { CounterStore } from '../../../src/ratelimit/store.ts';
import { fixedClock } from '../../../src/domain/clock.ts';

const HOUR = 3600;
const T0 = 1_700_000_000 - (1_700_000_000 % HOUR);

describe('WindowCounts', () => {
  it('counts per key and window; refunds and deletes', () => {
    const w = new WindowCounts(HOUR, 60);
    expect(w.add('a', 1, T0, T0)).toBe(1);
    expect(w.add('a', 1, T0, T0 + 1)).toBe(2);
    expect(w.add('b', 1, T0, T0 + 1)).toBe(1);
    expect(w.add('a', -1, T0, T0 + 2)).toBe(1);
    expect(w.get('a', T0, T0 + 2)).toBe(1);
    // The next window starts from zero; the previous one is still readable within its grace.
    expect(w.add('a', 1, T0 + HOUR, T0 + HOUR)).toBe(1);
    expect(w.get('a', T0, T0 + HOUR)).toBe(1);
    w.delete('a', T0 + HOUR, T0 + HOUR);
    expect(w.get('a', T0 + HOUR, T0 + HOUR)).toBe(0);
    expect(w.get('unknown', T0 + 5 * HOUR, T0 + 5 * HOUR)).toBe(0);
  });

  it('drops a window once the clock has passed its end by the grace', () => {
    const w = new WindowCounts(HOUR, 60);
    w.add('a', 5, T0, T0);
    w.add('a', 1, T0 + HOUR, T0 + HOUR + 30); // within the grace: the old window is kept
    expect(w.get('a', T0, T0 + HOUR + 30)).toBe(5);
    w.add('a', 1, T0 + 2 * HOUR, T0 + 2 * HOUR); // a new window opens: the first is past its grace
    expect(w.get('a', T0, T0 + 2 * HOUR)).toBe(0);
  });
});

describe('FixedWindowLimit over the memory store', () => {
  it('hitNow answers synchronously, and hit/peek/refund/reset agree with it', async () => {
    const store = await CounterStore.open({ keyPrefix: 't', log: { warn: () => {} } });
    const clock = fixedClock(T0 + 10);
    const limit = new FixedWindowLimit(store, { limit: 2, windowSeconds: HOUR, clock });
    const first = limit.hitNow('k');
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toMatchObject({ limit: 2, current: 1, remaining: 1, reset: T0 + HOUR, exceeded: false });
    expect(await limit.hit('k')).toMatchObject({ current: 2, remaining: 0, exceeded: false });
    expect(limit.hitNow('k')).toMatchObject({ current: 2, remaining: 0, exceeded: true, retryAfter: HOUR - 10 });
    await limit.refund('k');
    expect(await limit.peek('k')).toMatchObject({ current: 2, exceeded: false });
    await limit.reset('k');
    expect(await limit.peek('k')).toMatchObject({ current: 0, remaining: 2 });
    clock.set(T0 + HOUR);
    expect(limit.hitNow('k')).toMatchObject({ current: 1, reset: T0 + 2 * HOUR });
    await store.close();
  });
});
