/**
 * The search result cache keeps the last total of each set of matches (src/domain/search/result-cache.ts,
 * docs/adr/0042): a search's total does not depend on its sort or page, so another sort or page of
 * the same matches is given it and need not count them, until a write that can change what a
 * search matches; results kept across a restart bring their totals.
 */
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connect.ts';
import type { SearchCriteria } from '../../src/db/repositories/search.ts';
import { SearchCache } from '../../src/domain/search/result-cache.ts';
import { ChangeLog } from '../../src/domain/search/change-log.ts';
import { wordCriteria } from '../helpers/search-criteria.ts';

describe('search totals shared by the sorts and pages of the same matches', () => {
  /** A SQLite-like database whose `data_version` the test moves, as another process's commit would. */
  let dataVersion = 1;
  const changes = new ChangeLog({
    engine: 'sqlite',
    db: {},
    externalChanges: () => dataVersion,
  } as unknown as Database);
  const search = (word: string, more: Partial<SearchCriteria> = {}): SearchCriteria => ({
    ...wordCriteria(word),
    ...more,
  });
  /** Runs `c` through `cache` and tells the total its computation was given (null: computed from the cache). */
  const knownTotalOf = async (
    cache: SearchCache,
    c: SearchCriteria,
    total = 42,
  ): Promise<number | undefined | null> => {
    let given: number | undefined | null = null;
    await cache.page(c, async (knownTotal) => {
      given = knownTotal;
      return { total, ids: [1] };
    });
    return given;
  };

  it('hands the total of one sort or page to the others, not to other matches, and not after a write to things', async () => {
    const cache = new SearchCache(changes, { maxEntries: 100, maxAgeSeconds: 60 });
    expect(await knownTotalOf(cache, search('alpha'))).toBeUndefined();
    expect(await knownTotalOf(cache, search('alpha', { sort: 'tips' }))).toBe(42);
    expect(await knownTotalOf(cache, search('alpha', { sort: 'trend', page: 3, count: 10 }))).toBe(42);
    expect(await knownTotalOf(cache, search('alpha', { categories: ['software'] }))).toBeUndefined();
    expect(await knownTotalOf(cache, search('alpha', { viewerUserId: 7 }))).toBeUndefined();
    expect(await knownTotalOf(cache, search('beta', { sort: 'tips' }))).toBeUndefined();
    dataVersion++;
    expect(await knownTotalOf(cache, search('alpha', { sort: 'tips_week' }), 43)).toBeUndefined();
    expect(await knownTotalOf(cache, search('alpha', { sort: 'tips_day' }))).toBe(43);
  });

  it('takes the totals of results kept across a restart', async () => {
    const before = new SearchCache(changes, { maxEntries: 100, maxAgeSeconds: 60 });
    const popular = search('gamma');
    await knownTotalOf(before, popular, 17);
    await knownTotalOf(before, popular, 17); // asked twice: protected, so kept
    const kept = await before.kept(1_000);
    expect(kept).toHaveLength(1);
    const after = new SearchCache(changes, { maxEntries: 100, maxAgeSeconds: 60 });
    expect(await after.restore(kept, 1_000, async () => true)).toBe(1);
    expect(await knownTotalOf(after, search('gamma', { sort: 'tips' }))).toBe(17);
  });
});
