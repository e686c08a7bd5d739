/**
 * What the search caches keep when they are full (docs/adr/0015): the search result cache is a
 * segmented LRU, so searches asked once each (the long tail) never push out a search asked again;
 * the rendered answers are bounded by their size in bytes, and served only for the versions they
 * were made from.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/db/connect.ts';
import type { SearchPage } from '../../src/db/repositories/search.ts';
import { SearchCache } from '../../src/domain/search/result-cache.ts';
import { SearchRenderCache, type RowVersions } from '../../src/domain/search/rendered.ts';
import { ChangeLog } from '../../src/domain/search/change-log.ts';
import { wordCriteria } from '../helpers/search-criteria.ts';

/** A SQLite-like database whose other connections never write: only the caches' view of it. */
const quietDatabase = new ChangeLog({ engine: 'sqlite', db: {}, externalChanges: () => 1 } as unknown as Database);

describe('search result cache eviction (segmented LRU)', () => {
  /** Asks for `word` and says whether it had to be computed. */
  const ask = async (cache: SearchCache, word: string): Promise<'computed' | 'cached'> => {
    let computed = false;
    await cache.page(wordCriteria(word), async () => {
      computed = true;
      return { total: 1, ids: [word.length] };
    });
    return computed ? 'computed' : 'cached';
  };

  it('a search asked twice stays cached through a flood of searches asked once each', async () => {
    const cache = new SearchCache(quietDatabase, { maxEntries: 10, maxAgeSeconds: 60 });
    expect(await ask(cache, 'popular')).toBe('computed');
    expect(await ask(cache, 'popular')).toBe('cached');
    for (let i = 0; i < 100; i++) expect(await ask(cache, `once${i}`)).toBe('computed');
    expect(await ask(cache, 'popular')).toBe('cached');
    expect(cache.size).toBeLessThanOrEqual(10);
  });

  it('a search asked once is kept on probation: asked again soon it is a hit, after many newer one-offs it is computed again', async () => {
    const cache = new SearchCache(quietDatabase, { maxEntries: 10, maxAgeSeconds: 60 });
    await ask(cache, 'first');
    expect(await ask(cache, 'first')).toBe('cached');
    await ask(cache, 'second');
    for (let i = 0; i < 20; i++) await ask(cache, `newer${i}`);
    expect(await ask(cache, 'second')).toBe('computed');
    expect(await ask(cache, 'first')).toBe('cached');
  });

  it('the protected searches are themselves least recently used first out', async () => {
    const cache = new SearchCache(quietDatabase, { maxEntries: 5, maxAgeSeconds: 60 }); // 4 protected, 1 on probation
    for (const word of ['a', 'b', 'c', 'd', 'e']) {
      await ask(cache, word);
      await ask(cache, word); // promoted
    }
    // 'a' was the least recently used of the five promoted: it had to go.
    expect(await ask(cache, 'a')).toBe('computed');
    expect(await ask(cache, 'e')).toBe('cached');
    expect(cache.size).toBeLessThanOrEqual(5);
  });
});

describe('rendered search answers', () => {
  const page = (id: number): SearchPage => ({ total: 1, ids: [id] });
  const text = (b: Buffer | undefined) => b?.toString('utf8');
  /** Versions that never move: only the bound in bytes decides what stays. */
  const steady: RowVersions = { of: (p) => p.ids };
  const basis = (p: SearchPage) => p.ids;

  it('keeps answers up to the bound, least recently used first out, and never one larger than the bound', () => {
    const render = new SearchRenderCache(steady, 100);
    const [a, b, c, big] = [page(1), page(2), page(3), page(4)];
    render.set(a, 'a'.repeat(40), basis(a));
    render.set(b, 'b'.repeat(40), basis(b));
    expect(text(render.get(a, basis(a)))).toBe('a'.repeat(40)); // a is now the most recently used
    render.set(c, 'c'.repeat(40), basis(c)); // 120 bytes > 100: b goes
    expect(render.get(b, basis(b))).toBeUndefined();
    expect(text(render.get(a, basis(a)))).toBe('a'.repeat(40));
    expect(text(render.get(c, basis(c)))).toBe('c'.repeat(40));
    render.set(big, 'x'.repeat(101), basis(big));
    expect(render.get(big, basis(big))).toBeUndefined();
    expect(text(render.get(c, basis(c)))).toBe('c'.repeat(40));
  });

  it('counts UTF-8 bytes, not characters, and gives back the text it was given', () => {
    const render = new SearchRenderCache(steady, 100);
    const [a, b] = [page(1), page(2)];
    const wide = '"é✓😀"'.repeat(5); // 30 UTF-16 units, 55 bytes of UTF-8
    render.set(a, wide, basis(a));
    expect(text(render.get(a, basis(a)))).toBe(wide);
    render.set(b, 'b'.repeat(50), basis(b)); // 55 + 50 bytes > 100 (30 + 50 units would fit): a goes
    expect(render.get(a, basis(a))).toBeUndefined();
    expect(text(render.get(b, basis(b)))).toBe('b'.repeat(50));
  });

  it('serves an answer only for the versions it was made from, each one compared', () => {
    const render = new SearchRenderCache(steady, 1000);
    const two: SearchPage = { total: 2, ids: [1, 2] };
    render.set(two, '{"things":[1,2]}', ['7', '9']);
    expect(text(render.get(two, ['7', '9']))).toBe('{"things":[1,2]}');
    expect(render.get(two, ['7', '10'])).toBeUndefined(); // the second row was written
    expect(render.get(two, ['7', undefined])).toBeUndefined(); // the second thing was deleted
    expect(render.get(two, ['7'])).toBeUndefined();
    expect(render.get({ total: 2, ids: [1, 2] }, ['7', '9'])).toBeUndefined(); // another page object
  });

  it('with versions that can repeat (PostgreSQL transaction ids), an answer is served for ten minutes at most', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const aging = new SearchRenderCache(steady, 1000, true);
      const lasting = new SearchRenderCache(steady, 1000);
      const a = page(1);
      aging.set(a, 'aging', ['5']);
      lasting.set(a, 'lasting', ['5']);
      vi.advanceTimersByTime(599_999);
      expect(text(aging.get(a, ['5']))).toBe('aging');
      vi.advanceTimersByTime(1);
      expect(aging.get(a, ['5'])).toBeUndefined();
      expect(text(lasting.get(a, ['5']))).toBe('lasting');
    } finally {
      vi.useRealTimers();
    }
  });
});
