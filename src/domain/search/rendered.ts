/**
 * Rendered search answers (docs/adr/0015, 0039), owned by the search module (index.ts): the
 * serialized JSON of an anonymous search page, kept beside its entry in the search cache so a
 * popular search is answered without reading, presenting and serializing its 30 things again.
 *
 * Exact: an answer is kept with the versions of what it was made from, taken before its things
 * were read (RowVersions), and served only while they are all unchanged:
 * - SQLite: the version of each of its things' rows (change-log.ts) and of the database
 *   (`Database.externalChanges`, which moves when another process committed);
 * - PostgreSQL: the `xmin` of each of its things' rows, read from the database for every answer
 *   (one point read of the page's rows, without their columns): it moves with every committed
 *   write of a row, by any instance. An answer is served at most MAX_AGE_SECONDS after it was
 *   made, so that transaction ids, which wrap around after 2^32 transactions, cannot repeat.
 * The owner's username, the one field a thing's answer takes from another row, never changes.
 *
 * An answer is kept for the page object the search cache serves (a recomputed page is a new
 * object, so its answer is made anew), least recently used first out, at most `maxBytes` of JSON
 * in all; it is made only for pages the search cache answered, i.e. searches asked at least twice,
 * and only for the short representation (with `full` the owners' profiles, which are not
 * versioned here, are part of the answer). XML and JSONP are made from it by the formats plugin,
 * like any JSON answer.
 */
import { LRUCache } from 'lru-cache';
import type { ChangeLog } from './change-log.ts';
import type { Database } from '../../db/transaction.ts';
import type { SearchPage } from '../../db/repositories/search.ts';
import { findThingVersions } from '../../db/repositories/things.ts';

/** The versions an answer was made from, compared element by element (`===`). */
export type RenderBasis = readonly (number | string | undefined)[];

/** Where the versions of a page's things come from. */
export interface RowVersions {
  /**
   * The versions of `page`'s things now (take them before reading the things).
   * @param external SQLite: `Database.externalChanges()` as read for this request (the search
   *   cache's lookup: the `external` of SearchCache.page); read now when not given. Ignored on PostgreSQL.
   */
  of(page: SearchPage, external?: number): RenderBasis | Promise<RenderBasis>;
}

/** SQLite: the change log's thing versions and the database's `data_version`. */
export function changeLogVersions(changes: ChangeLog): RowVersions {
  if (!changes.seesEveryChange)
    throw new Error("the change log's versions need a database whose external changes can be seen (SQLite)");
  return {
    of: (page, external = changes.external()!) => [external, ...page.ids.map((id) => changes.thingVersion(id))],
  };
}

/** PostgreSQL: each row's `xmin`, read from the database (db/repositories/things.ts findThingVersions). */
export function databaseVersions(database: Database): RowVersions {
  return { of: (page) => findThingVersions(database.db, page.ids) };
}

/** Seconds a rendered answer checked against database row versions may be served after it was made. */
const MAX_AGE_SECONDS = 600;

interface Rendered {
  /** the JSON answer as UTF-8 bytes: sent as they are, not encoded again for every request */
  body: Buffer;
  basis: RenderBasis;
  /** monotonic milliseconds when it was kept (performance.now) */
  madeAt: number;
}

/** Default bound of the kept answers' JSON, in bytes of UTF-8 (≈ 1,000 answers of 30 things). */
export const DEFAULT_RENDER_CACHE_BYTES = 16 * 1024 * 1024;

export class SearchRenderCache {
  private readonly rendered: LRUCache<SearchPage, Rendered>;
  private readonly maxAgeMs: number;

  /**
   * @param versions where the versions of a page's things come from
   * @param maxBytes most JSON kept, in bytes of UTF-8; an answer larger than that is not kept
   * @param aging whether answers age out after MAX_AGE_SECONDS (versions that can repeat: PostgreSQL's)
   */
  constructor(
    private readonly versions: RowVersions,
    maxBytes = DEFAULT_RENDER_CACHE_BYTES,
    aging = false,
  ) {
    this.maxAgeMs = aging ? MAX_AGE_SECONDS * 1000 : Infinity;
    this.rendered = new LRUCache<SearchPage, Rendered>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (r) => Math.max(1, r.body.length),
    });
  }

  /**
   * The versions of `page`'s things now: take them before reading the things (on PostgreSQL one
   * read of the database).
   * @param external as for RowVersions.of
   * @throws the database's errors (PostgreSQL)
   */
  basis(page: SearchPage, external?: number): RenderBasis | Promise<RenderBasis> {
    return this.versions.of(page, external);
  }

  /** The kept answer for `page` (JSON as UTF-8 bytes), if it was made from the versions in `basis`. */
  get(page: SearchPage, basis: RenderBasis): Buffer | undefined {
    const r = this.rendered.get(page);
    if (!r || r.basis.length !== basis.length || performance.now() - r.madeAt >= this.maxAgeMs) return undefined;
    for (let i = 0; i < basis.length; i++) if (r.basis[i] !== basis[i]) return undefined;
    return r.body;
  }

  /** Keeps `json` (as UTF-8 bytes), made from things read after `basis` was taken. */
  set(page: SearchPage, json: string, basis: RenderBasis): void {
    this.rendered.set(page, { body: Buffer.from(json, 'utf8'), basis, madeAt: performance.now() });
  }
}
