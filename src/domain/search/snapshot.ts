/**
 * The search result cache kept across restarts (docs/adr/0033): the format of a snapshot's
 * entries, as written by a closing server and read by a starting one.
 */
import type { KeptResult } from './result-cache.ts';

/**
 * The snapshot format: results are keyed by result-cache.ts cacheKey and ordered by
 * db/repositories/search.ts; a version that changes either (or what a search matches or how it is
 * ranked, without a migration) must change this, so its snapshots are never read as its own.
 */
export const SNAPSHOT_FORMAT = 'search-results/2';

/** JSON text of `results`: `[[key, total, [ids…]], …]`, most recently used first. */
export function encodeResults(results: readonly KeptResult[]): string {
  return JSON.stringify(results.map((r) => [r.key, r.page.total, r.page.ids]));
}

/** The results of `text` (encodeResults), leaving out any entry that is not of that shape; [] when it is not JSON. */
export function decodeResults(text: string): KeptResult[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const results: KeptResult[] = [];
  const count = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
  for (const item of parsed) {
    if (!Array.isArray(item) || item.length !== 3) continue;
    const [key, total, ids] = item as unknown[];
    if (typeof key !== 'string' || !count(total) || !Array.isArray(ids) || !ids.every(count)) continue;
    results.push({ key, page: { total, ids: ids as number[] } });
  }
  return results;
}
