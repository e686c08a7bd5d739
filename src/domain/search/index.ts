/**
 * Search (api-v2.md "Things" `GET /things/search`, "Search result"; DECISIONS.md "Search"): the
 * one module that owns it. Parameters in, a page out: `Search.find` validates and parses the
 * parameters into criteria (criteria.ts, which keeps those made before), runs the one search query
 * of db/repositories/search.ts through the search result cache (result-cache.ts), and hands back
 * an answer that reads the page's things fresh and holds the kept JSON of the page when there is
 * one (rendered.ts). The caches learn about writes from the changes the transaction helper
 * announces after each commit (change-log.ts); nothing is global to the process and nothing of
 * their bookkeeping leaves this folder. docs/adr/0015, 0019, 0039.
 */
import type { Database } from '../../db/transaction.ts';
import { readSearchChanges, searchThingIds, type SearchPage } from '../../db/repositories/search.ts';
import { readSearchSnapshot, saveSearchSnapshot } from '../../db/repositories/search-snapshots.ts';
import { findThingsByIds } from '../../db/repositories/things.ts';
import type { Clock } from '../clock.ts';
import type { PageRequest, Principal, ThingRecord } from '../records.ts';
import { ChangeLog } from './change-log.ts';
import { CriteriaMaker, type SearchFilters } from './criteria.ts';
import { changeLogVersions, databaseVersions, SearchRenderCache, type RenderBasis } from './rendered.ts';
import { SearchCache, type SearchCacheStats, type SharedSearchResults } from './result-cache.ts';
import { decodeResults, encodeResults, SNAPSHOT_FORMAT } from './snapshot.ts';

export { MAX_QUERY_LENGTH, MAX_QUERY_WORDS, queryWords, SEARCH_SORTS, type SearchFilters } from './criteria.ts';
export type { SearchCacheStats, SharedSearchResults } from './result-cache.ts';

export interface SearchOptions {
  /**
   * SEARCH_CACHE_SECONDS: on PostgreSQL, how long a cached result of a tip sort may be served (other
   * instances' tips are unseen; their writes to things are counted by the database); on SQLite,
   * which sees every change, only 0 matters: 0 turns the caches off.
   */
  cacheSeconds: number;
  /** SEARCH_CACHE_ENTRIES: most results kept (at least 2) */
  cacheEntries: number;
  /** most JSON of rendered answers kept, bytes of UTF-8 (default rendered.ts DEFAULT_RENDER_CACHE_BYTES) */
  renderedBytes?: number;
  /** results shared with the other instances (PostgreSQL only: SQLite has one process) */
  shared?: SharedSearchResults;
}

/** How the caller will represent the page's things (DECISIONS.md "Pagination and `full`"). */
export interface FindOptions {
  /** `full`: the owners' profiles are part of the answer (they are not versioned: never kept rendered) */
  full: boolean;
}

/** One page of a search. */
export interface SearchAnswer {
  /** things matching, over all pages */
  readonly total: number;
  /**
   * The JSON of this very answer as kept by an earlier `keepJson`, UTF-8 bytes, while none of its
   * things changed; undefined when there is none (then read `things()` and present them).
   */
  readonly keptJson: Buffer | undefined;
  /** Whether `keepJson` keeps what it is given (an anonymous, short page the search cache answered). */
  readonly canKeepJson: boolean;
  /**
   * The page's things in rank order, read fresh (their counters change with every tip); a thing
   * hidden since a cached ranking (another instance, within SEARCH_CACHE_SECONDS) is left out
   * unless it is the viewer's.
   */
  things(): Promise<ThingRecord[]>;
  /**
   * Keeps `json` — the answer's JSON made from the things `things()` returned, exactly as sent —
   * for the next identical searches; does nothing unless `canKeepJson` and `things()` was called.
   */
  keepJson(json: string): void;
}

export class Search {
  private readonly changes: ChangeLog;
  private readonly criteria: CriteriaMaker;
  /** absent with SEARCH_CACHE_SECONDS=0 */
  private readonly results?: SearchCache;
  /** with the result cache only; exact on both engines (rendered.ts) */
  private readonly rendered?: SearchRenderCache;

  /** Starts following `database`'s commits (close() stops). */
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    options: SearchOptions,
  ) {
    this.changes = new ChangeLog(database);
    this.criteria = new CriteriaMaker(database);
    if (options.cacheSeconds > 0) {
      this.results = new SearchCache(this.changes, {
        maxAgeSeconds: options.cacheSeconds,
        maxEntries: options.cacheEntries,
        shared: this.changes.seesEveryChange ? undefined : options.shared,
      });
      this.rendered = this.changes.seesEveryChange
        ? new SearchRenderCache(changeLogVersions(this.changes), options.renderedBytes)
        : new SearchRenderCache(databaseVersions(database), options.renderedBytes, true);
    }
  }

  /** Lookups the result cache answered and computed since the module started; undefined when it is off. */
  get cacheStats(): SearchCacheStats | undefined {
    return this.results?.stats;
  }

  /**
   * `GET /things/search`: one page of the things matching `params`, ranked (see
   * db/repositories/search.ts searchThingIds for the orders), as seen by `viewer` (their own
   * hidden things are included; undefined: anonymous).
   * @param params what the search asks for (criteria.ts SearchFilters; CriteriaMaker.make checks them)
   * @param page `count` (1–100) and 1-based `page`, already validated
   * @throws InvalidParametersError (400 `invalid_parameters`) for a malformed tags expression, an
   *   unknown language, category, user or sort, a bad url, a query too long. Nothing is written.
   */
  async find(
    params: SearchFilters,
    page: PageRequest,
    viewer: Principal | undefined,
    options: FindOptions,
  ): Promise<SearchAnswer> {
    const criteria = await this.criteria.make(params, page, this.clock.now(), viewer?.userId);
    const run = (knownTotal?: number) => searchThingIds(this.database, criteria, knownTotal);
    const found = this.results ? await this.results.page(criteria, run) : { page: await run(), hit: false };
    // Kept JSON only for searches the result cache answered (asked at least twice), anonymous
    // (no per-viewer fields) and short (no owners' profiles).
    const rendered = found.hit && !viewer && !options.full ? this.rendered : undefined;
    const basis = rendered && (await rendered.basis(found.page, found.external));
    return new Answer(this.database, found.page, viewer, rendered, basis);
  }

  /**
   * Keeps the popular results across a restart (docs/adr/0033): writes to the database the
   * results of the cache's protected segment (searches asked more than once) that are relevance
   * searches by no viewer and fresh, with the value of the database's counter of matching writes
   * (`search_changes`) read before them; `restoreSnapshot` of the next process takes them only
   * while the counter still holds that value. Tip sorts (which every tip moves) and per-viewer
   * results are not kept. Call it while the change log still runs (before `close`).
   * @returns how many results were written (nothing is written when there are none, or with the cache off)
   * @throws the database's errors (nothing is lost: the cache is only a cache)
   */
  async saveSnapshot(): Promise<number> {
    if (!this.results) return 0;
    const things = await readSearchChanges(this.database);
    if (things === undefined) return 0;
    const savedAt = this.clock.now();
    const kept = await this.results.kept(savedAt);
    if (kept.length === 0) return 0;
    await saveSearchSnapshot(this.database, { format: SNAPSHOT_FORMAT, things, savedAt, entries: encodeResults(kept) });
    return kept.length;
  }

  /**
   * Puts the results an earlier process kept (`saveSnapshot`) into the cache, if no write that can
   * change what a search matches has committed since (the database's counter still holds the
   * snapshot's value) and the snapshot has this format on this schema.
   * @returns how many results were put into the cache (0 when the snapshot is missing or stale)
   * @throws the database's errors
   */
  async restoreSnapshot(): Promise<number> {
    if (!this.results) return 0;
    const snapshot = await readSearchSnapshot(this.database, SNAPSHOT_FORMAT);
    if (!snapshot) return 0;
    return this.results.restore(
      decodeResults(snapshot.entries),
      this.clock.now(),
      async () => (await readSearchChanges(this.database)) === snapshot.things,
    );
  }

  /** Stops following the database's commits. */
  close(): void {
    this.changes.close();
  }
}

class Answer implements SearchAnswer {
  readonly total: number;
  readonly keptJson: Buffer | undefined;

  constructor(
    private readonly database: Database,
    private readonly page: SearchPage,
    private readonly viewer: Principal | undefined,
    private readonly rendered: SearchRenderCache | undefined,
    /** the versions of the page's things, taken before `things()` reads them (with `rendered`) */
    private readonly basis: RenderBasis | undefined,
  ) {
    this.total = page.total;
    this.keptJson = rendered && basis && rendered.get(page, basis);
  }

  get canKeepJson(): boolean {
    return this.rendered !== undefined;
  }

  async things(): Promise<ThingRecord[]> {
    const { ids } = this.page;
    const byId = new Map((await findThingsByIds(this.database.db, ids)).map((t) => [t.id, t]));
    const viewerId = this.viewer?.userId;
    const shown = (t: ThingRecord) => !t.hidden || (t.owner.kind === 'user' && t.owner.userId === viewerId);
    return ids.flatMap((id) => byId.get(id) ?? []).filter(shown);
  }

  keepJson(json: string): void {
    if (this.rendered && this.basis) this.rendered.set(this.page, json, this.basis);
  }
}
