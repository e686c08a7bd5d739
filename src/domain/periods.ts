/**
 * Periods (DECISIONS.md "Tips"): a period is a calendar month in UTC, written 'YYYY-MM'.
 * A user may tip a thing once per period.
 */

const PERIOD_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

/** True for a well-formed period 'YYYY-MM' (month 01–12). */
export function isPeriod(value: string): boolean {
  return PERIOD_PATTERN.test(value);
}

/** The period containing Unix time `seconds`, e.g. 1764547199 → '2025-11'. */
export function periodOf(seconds: number): string {
  const d = new Date(seconds * 1000);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** First second of `period` and first second of the next one, as Unix seconds [start, end). */
export function periodBounds(period: string): { start: number; end: number } {
  const m = /^(\d{4})-(\d{2})$/.exec(period);
  if (!m) throw new Error(`not a period: ${period}`);
  const y = Number(m[1]);
  const mo = Number(m[2]) - 1;
  return { start: Date.UTC(y, mo, 1) / 1000, end: Date.UTC(y, mo + 1, 1) / 1000 };
}
