/**
 * The search result cache (docs/adr/0015), owned by the search module (index.ts): keeps the outcome of a search — the ids of one page and
 * the total, never the things themselves, which are read fresh for every answer — so a popular
 * search is ranked once, not on every request. A broad word (`react`, 20,000 of the catalogue's
 * things) costs 10–30 ms to rank and count; the same answer from the cache costs a read of the
 * page's things.
 *
 * An entry is served only while nothing it depends on can have changed:
 * - no write of this process that can change what a search matches committed since it was
 *   computed (the `things` epoch of change-log.ts: every insert, update, delete and hand-over of
 *   a thing, announced after its commit);
 * - for the tip sorts (`tips`, `tips_month|week|day`, `trend`), no tip of this process committed,
 *   and for those with a window (all but `tips`) the clock has not reached the second at which its
 *   window's moving edge may reorder them (SearchPage.changesAt: when the oldest tip in the
 *   window leaves it, or one dated ahead of the search enters it);
 * - on SQLite, no other process committed to the database (`Database.externalChanges`);
 * - on PostgreSQL, no instance committed a write that can change what a search matches (the
 *   database's own counter, ChangeLog.shared, read for every lookup: one small query), and for the
 *   tip sorts — other instances' tips are not counted there — it is younger than `maxAgeSeconds`
 *   by the service clock. On SQLite every change is seen, so no age limit applies.
 * A write acknowledged by this process is therefore in every later search it answers.
 * Concurrent identical searches share one computation, unless something changed since it began.
 *
 * A search's total depends only on what it matches, not on its sort or page: the last total
 * computed for each set of matches (`matchKey`) is kept too, served under the rules of a relevance
 * result (no write that can change what a search matches since; tips and the clock do not move
 * it), and handed to the computation of another sort or page of the same matches, which then
 * need not count them again (db/repositories/search.ts searchThingIds `knownTotal`).
 *
 * Eviction is a segmented LRU: a new result goes into a small probation segment and moves into
 * the protected segment (four fifths of `maxEntries`) the first time it is asked for again. So a
 * stream of searches asked once each (the long tail) churns only the probation segment and never
 * pushes out the popular searches, whose misses are the expensive ones (a broad word, 5–35 ms).
 */
import { LRUCache } from 'lru-cache';
import type { ChangeLog, Epochs } from './change-log.ts';
import type { SearchCriteria, SearchPage } from '../../db/repositories/search.ts';

/**
 * Search results shared by every instance (PostgreSQL with `REDIS_URL`; docs/adr/0034): pages of
 * relevance searches by no viewer, each stored under the search's cache key and the value of the
 * database's counter of matching writes (`search_changes`) read before it ran, so it is found
 * only by a lookup that read the same value. Implemented outside the domain (src/cluster/search-results.ts).
 */
export interface SharedSearchResults {
  /** The page stored for `key` at `counter`; undefined when none is (or the store cannot be reached). */
  get(key: string, counter: number): Promise<SearchPage | undefined>;
  /** Stores `page` for `key` at `counter` (for a while; a failure only means it is not shared). */
  set(key: string, counter: number, page: SearchPage): Promise<void>;
}

export interface SearchCacheOptions {
  /** most results kept, both segments together (at least 2; see the file comment) */
  maxEntries: number;
  /** PostgreSQL: seconds an entry of a tip sort may be served, by the service clock (SQLite sees every change and needs none); 0 turns the cache off on both */
  maxAgeSeconds: number;
  /**
   * PostgreSQL: the other instances' results (index.ts SharedSearchResults): asked before a
   * keepable search is computed, and given every keepable result that moves into the protected
   * segment (asked here more than once)
   */
  shared?: SharedSearchResults;
}

/** What a result was computed against. */
interface Basis {
  counters: Epochs;
  /** Database.externalChanges() when the computation began (SQLite), else 0 */
  external: number;
  /** PostgreSQL: the database's counter of matching writes by every instance (ChangeLog.shared) when the computation began */
  shared: number | undefined;
  /** Unix seconds (the search's `now`) */
  at: number;
}

interface Entry {
  page: SearchPage;
  basis: Basis;
  tipSorted: boolean;
  /** a relevance search by no viewer: the same for everyone until a write to things (see `kept`) */
  keepable: boolean;
}

/** A result as kept across a restart (`kept`, `restore`). */
export interface KeptResult {
  /** cacheKey of the search */
  key: string;
  page: SearchPage;
}

/** Lookups answered from the cache, from the other instances' results, and computed, since the process started (GET /metrics). */
export interface SearchCacheStats {
  hits: number;
  /** misses of this process's cache that another instance's shared result answered (counted in neither of the others) */
  shared: number;
  misses: number;
}

export class SearchCache {
  readonly stats: SearchCacheStats = { hits: 0, shared: 0, misses: 0 };
  /** results asked for once so far (least recently used go first) */
  private readonly probation: LRUCache<string, Entry>;
  /** results asked for again while on probation */
  private readonly protected: LRUCache<string, Entry>;
  /** the last total computed for each set of matches (matchKey), with what it was computed against */
  private readonly totals: LRUCache<string, { total: number; basis: Basis }>;
  private readonly inflight = new Map<string, Promise<Entry>>();

  constructor(
    private readonly changes: ChangeLog,
    private readonly options: SearchCacheOptions,
  ) {
    const total = Math.max(2, options.maxEntries);
    const protectedEntries = Math.max(1, Math.floor((total * 4) / 5));
    this.protected = new LRUCache<string, Entry>({ max: protectedEntries });
    this.probation = new LRUCache<string, Entry>({ max: total - protectedEntries });
    this.totals = new LRUCache<string, { total: number; basis: Basis }>({ max: total });
  }

  /** The kept result for `key`, if any, moving it to the protected segment when it was on probation (and then sharing it). */
  private lookup(key: string): Entry | undefined {
    const kept = this.protected.get(key);
    if (kept) return kept;
    const trial = this.probation.get(key);
    if (trial) {
      this.probation.delete(key);
      this.protected.set(key, trial);
      this.share(key, trial);
    }
    return trial;
  }

  /** Gives a keepable `entry` to the other instances, under the counter value it was computed at. */
  private share(key: string, entry: Entry): void {
    if (this.options.shared && entry.keepable && entry.basis.shared !== undefined)
      void this.options.shared.set(key, entry.basis.shared, entry.page);
  }

  /** How many results are kept (both segments). */
  get size(): number {
    return this.protected.size + this.probation.size;
  }

  /**
   * The page for `c`: from the cache while it is fresh (see the file comment), else computed with
   * `compute` and kept.
   * @param c the search, whose `now` (Unix seconds) dates the entry
   * @param compute runs the search (db/repositories/search.ts searchThingIds), given the total of
   *   its matches when a search of the same matches left one that is still fresh
   * @returns the page (the same object for as long as the entry is served), whether it came
   *   from the cache, and `Database.externalChanges()` as read for this lookup (SQLite; undefined
   *   elsewhere or with the cache off), for the rendered answers to check against without a
   *   second read
   * @throws whatever `compute` throws; nothing is cached then.
   */
  async page(
    c: SearchCriteria,
    compute: (knownTotal: number | undefined) => Promise<SearchPage>,
  ): Promise<{ page: SearchPage; hit: boolean; external?: number }> {
    if (this.options.maxAgeSeconds <= 0) return { page: await compute(undefined), hit: false };
    const key = cacheKey(c);
    const tipSorted = c.sort !== 'relevance';
    const keepable = !tipSorted && c.viewerUserId === undefined;
    const now = await this.basis(c.now);
    const external = this.changes.seesEveryChange ? now.external : undefined;
    const cached = this.lookup(key);
    if (cached && this.fresh(cached, now)) {
      this.stats.hits++;
      return { page: cached.page, hit: true, external };
    }
    const running = this.inflight.get(key);
    if (running) {
      const entry = await running;
      if (this.fresh(entry, now)) {
        this.stats.hits++;
        return { page: entry.page, hit: true, external };
      }
    }
    if (this.options.shared && keepable && now.shared !== undefined) {
      const page = await this.options.shared.get(key, now.shared);
      if (page) {
        this.stats.shared++;
        const entry: Entry = { page, basis: now, tipSorted, keepable };
        if (this.protected.has(key)) this.protected.set(key, entry);
        else this.probation.set(key, entry);
        this.totals.set(matchKey(c), { total: page.total, basis: now });
        return { page, hit: true, external };
      }
    }
    this.stats.misses++;
    const matches = matchKey(c);
    const counted = this.totals.get(matches);
    const knownTotal = counted && this.current(counted.basis, false, now) ? counted.total : undefined;
    const computation = compute(knownTotal).then((page): Entry => ({ page, basis: now, tipSorted, keepable }));
    this.inflight.set(key, computation);
    try {
      const entry = await computation;
      this.totals.set(matches, { total: entry.page.total, basis: now });
      // A result recomputed because its kept one went stale stays in the segment it had earned.
      if (this.protected.has(key)) {
        this.protected.set(key, entry);
        this.share(key, entry);
      } else this.probation.set(key, entry);
      return { page: entry.page, hit: false, external };
    } finally {
      if (this.inflight.get(key) === computation) this.inflight.delete(key);
    }
  }

  /**
   * The results worth keeping across a restart, most recently used first: those asked for more
   * than once (the protected segment), of a relevance search by no viewer, and fresh now. Taken
   * after the caller read the database's counter of matching writes, each is valid for that value
   * (a write since would have made it stale here).
   * @param at Unix seconds now (the service clock)
   */
  async kept(at: number): Promise<KeptResult[]> {
    if (this.options.maxAgeSeconds <= 0) return [];
    const now = await this.basis(at);
    const kept: KeptResult[] = [];
    for (const [key, entry] of this.protected.entries()) {
      if (entry.keepable && this.fresh(entry, now)) kept.push({ key, page: entry.page });
    }
    return kept;
  }

  /**
   * Puts results kept by an earlier process (`kept`) into the protected segment, in their order
   * of use, as if computed now — if `stillValid`, asked after what they are dated against was
   * read, says that no write that can change what a search matches has committed since they were
   * kept (then a write after that read makes them stale like any entry).
   * @param results as `kept` returned them, most recently used first
   * @param at Unix seconds now (the service clock)
   * @returns how many were put (at most the protected segment's size; 0 when `stillValid` said no)
   */
  async restore(results: readonly KeptResult[], at: number, stillValid: () => Promise<boolean>): Promise<number> {
    if (this.options.maxAgeSeconds <= 0 || results.length === 0) return 0;
    const basis = await this.basis(at);
    if (!(await stillValid())) return 0;
    const room = this.protected.max;
    const put = results.slice(0, room);
    for (let i = put.length - 1; i >= 0; i--) {
      const { key, page } = put[i]!;
      this.protected.set(key, { page, basis, tipSorted: false, keepable: true });
      this.totals.set(matchKeyOf(key), { total: page.total, basis });
    }
    return put.length;
  }

  private async basis(at: number): Promise<Basis> {
    const counters = this.changes.current();
    return { counters, external: this.changes.external() ?? 0, shared: await this.changes.shared(), at };
  }

  /** Whether `entry` still answers a search made at `now`. */
  private fresh(entry: Entry, now: Basis): boolean {
    return this.current(entry.basis, entry.tipSorted, now, entry.page.changesAt);
  }

  /**
   * Whether what was computed against `basis` still holds at `now`: for a tip sort (`tipSorted`)
   * also no tip since and the clock before `changesAt` (Unix seconds).
   */
  private current(basis: Basis, tipSorted: boolean, now: Basis, changesAt?: number): boolean {
    if (basis.counters.things !== now.counters.things || basis.external !== now.external) return false;
    if (
      tipSorted &&
      (basis.counters.tips !== now.counters.tips || now.at < basis.at || now.at >= (changesAt ?? Infinity))
    )
      return false;
    // SQLite shows every change (counters, data_version). On PostgreSQL the database counts every
    // instance's writes that change what a search matches, but not tips: only the tip sorts age.
    if (this.changes.seesEveryChange) return true;
    if (basis.shared !== undefined) {
      if (basis.shared !== now.shared) return false;
      if (!tipSorted) return true;
    }
    return now.at >= basis.at && now.at - basis.at < this.options.maxAgeSeconds;
  }
}

/**
 * The cache key of a search: every criterion but `now`, with the order-free lists sorted. Words
 * are kept as given: two keys are equal only when the searches are.
 */
export function cacheKey(c: SearchCriteria): string {
  return JSON.stringify([matchParts(c), c.sort, c.page, c.count]);
}

/** The key of what a search matches: its cache key without the order and the page, on which its total does not depend. */
function matchKey(c: SearchCriteria): string {
  return JSON.stringify(matchParts(c));
}

/** The match key of the search whose cache key is `key` (its first element). */
function matchKeyOf(key: string): string {
  return JSON.stringify((JSON.parse(key) as unknown[])[0]);
}

/** The criteria that decide which things a search matches, as JSON values (the order-free lists sorted). */
function matchParts(c: SearchCriteria): unknown[] {
  return [
    c.words ?? null,
    c.urlKey ?? null,
    c.tags ?? null,
    c.languages ? [...c.languages].sort() : null,
    c.categories ? [...c.categories].sort() : null,
    c.ownerUserId ?? null,
    c.viewerUserId ?? null,
  ];
}
