/**
 * Rendered search answers (docs/adr/0015): the serialized JSON of an anonymous search page, kept
 * beside its entry in the search cache so a popular search is answered without reading,
 * presenting and serializing its 30 things again (≈ 250 µs of the server's thread each time).
 *
 * Exact, so SQLite only (where every change is seen): an answer is kept with the version of each
 * of its things' rows (db/changes.ts) and of the database (`Database.externalChanges`), taken
 * before the things were read; it is served only while none of them moved. It lives as long as the
 * search cache serves its page (a WeakMap keyed by the page), and is made only for pages the search
 * cache answered, i.e. searches asked at least twice, and only for the short representation
 * (with `full` the owners' profiles, which are not versioned here, are part of the answer). XML and
 * JSONP are made from it by the formats plugin, like any JSON answer.
 */
import { thingVersion } from '../db/changes.ts';
import type { Database } from '../db/connect.ts';
import type { SearchPage } from '../db/repositories/search.ts';

/** The versions an answer was made from (take them before reading the things). */
export interface RenderBasis {
  external: number;
  versions: number[];
}

interface Rendered {
  json: string;
  basis: RenderBasis;
}

export class SearchRenderCache {
  private readonly rendered = new WeakMap<SearchPage, Rendered>();

  /** @throws Error for a database whose changes by others cannot be seen (PostgreSQL) */
  constructor(private readonly database: Database) {
    if (!database.externalChanges) throw new Error('rendered search answers need a database whose external changes can be seen (SQLite)');
  }

  /** The kept answer for `page`, if none of its things changed since it was made. */
  get(page: SearchPage): string | undefined {
    const r = this.rendered.get(page);
    if (!r || r.basis.external !== this.database.externalChanges!()) return undefined;
    const { versions } = r.basis;
    for (let i = 0; i < page.ids.length; i++) if (thingVersion(page.ids[i]!) !== versions[i]) return undefined;
    return r.json;
  }

  /** The versions of `page`'s things and of the database now: take them before reading the things. */
  basis(page: SearchPage): RenderBasis {
    return { external: this.database.externalChanges!(), versions: page.ids.map(thingVersion) };
  }

  /** Keeps `json`, made from things read after `basis` was taken. */
  set(page: SearchPage, json: string, basis: RenderBasis): void {
    this.rendered.set(page, { json, basis });
  }
}
