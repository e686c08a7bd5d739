/**
 * Fixed-window counters in this process's memory, counted synchronously (no promise, no timer):
 * the store of every limit when `REDIS_URL` is unset. Counts are kept per window start (Unix
 * seconds on the limit's clock); a window's counts are dropped once the clock has passed its end
 * by `graceSeconds`, so memory holds at most the live windows' keys.
 */
export class WindowCounts {
  /** window start → key → events counted (refunds may take a count below 0) */
  private readonly windows = new Map<number, Map<string, number>>();
  /** the window start of the last access, to find its map without a lookup */
  private currentStart = Number.NaN;
  private current: Map<string, number> | undefined;

  /**
   * @param windowSeconds the window length in seconds
   * @param graceSeconds how long a window's counts outlive its end
   */
  constructor(
    private readonly windowSeconds: number,
    private readonly graceSeconds: number,
  ) {}

  private windowOf(start: number, now: number, create: boolean): Map<string, number> | undefined {
    if (start === this.currentStart) return this.current;
    let counts = this.windows.get(start);
    if (!counts && create) {
      counts = new Map();
      this.windows.set(start, counts);
      for (const s of this.windows.keys()) if (s + this.windowSeconds + this.graceSeconds < now) this.windows.delete(s);
    }
    if (counts) {
      this.currentStart = start;
      this.current = counts;
    }
    return counts;
  }

  /** Adds `points` (negative to give events back) to `key` in the window of `start`; returns its count. */
  add(key: string, points: number, start: number, now: number): number {
    const counts = this.windowOf(start, now, true)!;
    const count = (counts.get(key) ?? 0) + points;
    counts.set(key, count);
    return count;
  }

  /** The count of `key` in the window of `start` (0 when none). */
  get(key: string, start: number, now: number): number {
    return this.windowOf(start, now, false)?.get(key) ?? 0;
  }

  /** Forgets `key` in the window of `start`. */
  delete(key: string, start: number, now: number): void {
    this.windowOf(start, now, false)?.delete(key);
  }
}
