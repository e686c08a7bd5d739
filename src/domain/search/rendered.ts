/**
 * Rendered search answers (docs/adr/0015), owned by the search module (index.ts): the serialized
 * JSON of an anonymous search page, kept beside its entry in the search cache so a popular search is answered without reading,
 * presenting and serializing its 30 things again (≈ 250 µs of the server's thread each time).
 *
 * Exact, so SQLite only (where every change is seen): an answer is kept with the version of each
 * of its things' rows (change-log.ts) and of the database (`Database.externalChanges`), taken
 * before the things were read; it is served only while none of them moved. It is kept for the page
 * object the search cache serves (a recomputed page is a new object, so its answer is made anew),
 * least recently used first out, at most `maxBytes` of JSON in all; it is made only for pages the
 * search cache answered, i.e. searches asked at least twice, and only for the short representation
 * (with `full` the owners' profiles, which are not versioned here, are part of the answer). XML and
 * JSONP are made from it by the formats plugin, like any JSON answer.
 */
import { LRUCache } from 'lru-cache';
import type { ChangeLog } from './change-log.ts';
import type { SearchPage } from '../../db/repositories/search.ts';

/** The versions an answer was made from (take them before reading the things). */
export interface RenderBasis {
  external: number;
  versions: number[];
}

interface Rendered {
  /** the JSON answer as UTF-8 bytes: sent as they are, not encoded again for every request */
  body: Buffer;
  basis: RenderBasis;
}

/** Default bound of the kept answers' JSON, in bytes of UTF-8 (≈ 1,000 answers of 30 things). */
export const DEFAULT_RENDER_CACHE_BYTES = 16 * 1024 * 1024;

export class SearchRenderCache {
  private readonly rendered: LRUCache<SearchPage, Rendered>;

  /**
   * @param maxBytes most JSON kept, in bytes of UTF-8; an answer larger than that is not kept
   * @throws Error for a database whose changes by others cannot be seen (PostgreSQL)
   */
  constructor(
    private readonly changes: ChangeLog,
    maxBytes = DEFAULT_RENDER_CACHE_BYTES,
  ) {
    if (!changes.seesEveryChange)
      throw new Error('rendered search answers need a database whose external changes can be seen (SQLite)');
    this.rendered = new LRUCache<SearchPage, Rendered>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (r) => Math.max(1, r.body.length),
    });
  }

  /**
   * The kept answer for `page` (JSON as UTF-8 bytes), if none of its things changed since it was made.
   * @param external `Database.externalChanges()` as read for this request (by the search cache's
   *   lookup, FoundPage.external); read now when not given
   */
  get(page: SearchPage, external = this.changes.external()!): Buffer | undefined {
    const r = this.rendered.get(page);
    if (!r || r.basis.external !== external) return undefined;
    const { versions } = r.basis;
    for (let i = 0; i < page.ids.length; i++)
      if (this.changes.thingVersion(page.ids[i]!) !== versions[i]) return undefined;
    return r.body;
  }

  /**
   * The versions of `page`'s things and of the database now: take them before reading the things.
   * @param external as for `get`: a value read earlier in the request is as good (older is safe)
   */
  basis(page: SearchPage, external = this.changes.external()!): RenderBasis {
    return { external, versions: page.ids.map((id) => this.changes.thingVersion(id)) };
  }

  /** Keeps `json` (as UTF-8 bytes), made from things read after `basis` was taken. */
  set(page: SearchPage, json: string, basis: RenderBasis): void {
    this.rendered.set(page, { body: Buffer.from(json, 'utf8'), basis });
  }
}
