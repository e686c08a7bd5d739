/** The clock is injected everywhere time matters, so periods and expiry can be tested. */
export interface Clock {
  /** Current time as integer Unix seconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

/** A clock that stands still until moved: for tests. */
export function fixedClock(start: number): Clock & { set(t: number): void; advance(s: number): void } {
  let t = start;
  return {
    now: () => t,
    set: (v: number) => {
      t = v;
    },
    advance: (s: number) => {
      t += s;
    },
  };
}
