/**
 * Rendered search answers (docs/adr/0015): the serialized JSON of an anonymous search page, kept
 * beside its entry in the search cache so a popular search is answered without reading,
 * presenting and serializing its 30 things again (≈ 250 µs of the server's thread each time).
 *
 * Exact, so SQLite only (where every change is seen): an answer is kept with the version of each
 * of its things' rows (db/changes.ts) and of the database (`Database.externalChanges`), taken
 * before the things were read; it is served only while none of them moved. It lives as long as the
 * search cache serves its page (a WeakMap keyed by the page), and is made only for pages the search
 * cache answered, i.e. searches asked at least twice. XML and JSONP are made from it by the formats
 * plugin, like any JSON answer.
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
  private readonly rendered = new WeakMap<SearchPage, Map<string, Rendered>>();

  /** @throws Error for a database whose changes by others cannot be seen (PostgreSQL) */
  constructor(private readonly database: Database) {
    if (!database.externalChanges) throw new Error('rendered search answers need a database whose external changes can be seen (SQLite)');
  }

  /**
   * The kept answer for `page` in `variant` (e.g. `short` or `full` things), if none of its things
   * changed since it was made.
   */
  get(page: SearchPage, variant: string): string | undefined {
    const r = this.rendered.get(page)?.get(variant);
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
  set(page: SearchPage, variant: string, json: string, basis: RenderBasis): void {
    let byVariant = this.rendered.get(page);
    if (!byVariant) this.rendered.set(page, (byVariant = new Map()));
    byVariant.set(variant, { json, basis });
  }
}
