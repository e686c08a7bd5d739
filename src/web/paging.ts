/** Paged lists on the website: the `page` query parameter, and the "page N of M" links under a list. */

/** Things listed per page on the website's paged lists (search, category, tag, profile). */
export const LIST_PAGE_SIZE = 20;

/** Highest page number accepted (deeper pages are refused: 400 page, nothing is read). */
export const MAX_PAGE = 10_000;

/** A `page` value that is not a page number from 1 to MAX_PAGE. */
export class BadPageError extends Error {
  constructor() {
    super(`The page must be a whole number from 1 to ${MAX_PAGE.toLocaleString('en')}.`);
  }
}

/**
 * The 1-based page number of a raw `page` query value: 1 when absent or empty.
 * @throws BadPageError for anything but digits naming 1–MAX_PAGE.
 */
export function pageNumber(raw: unknown): number {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v === undefined || v === '') return 1;
  if (typeof v !== 'string' || !/^\d{1,6}$/.test(v)) throw new BadPageError();
  const n = Number(v);
  if (n < 1 || n > MAX_PAGE) throw new BadPageError();
  return n;
}

/** What the pager partial (views/pager.eta) shows under a list. */
export interface Pager {
  page: number;
  /** pages in all (at least 1) */
  pages: number;
  /** items over all pages, and the same as text ("1 thing", "1,234 things") */
  total: number;
  totalText: string;
  /** links to the previous and next pages, undefined at either end */
  prevHref?: string;
  nextHref?: string;
  /** the link to the last page, when `page` is past it (an empty page) */
  lastHref?: string;
}

/** "1 thing", "12,345 things". */
export function countText(n: number, one: string, many: string): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

/**
 * The pager of page `page` of `total` items, `size` per page, under `path` with the query
 * parameters `params` (empty values left out; `opts.param`, default `page`, added for pages after
 * the first). `opts.noun`: the items' name, one and many (default thing, things).
 */
export function pagerOf(
  path: string,
  params: Record<string, string | undefined>,
  page: number,
  total: number,
  opts: { size?: number; param?: string; noun?: [string, string] } = {},
): Pager {
  const size = opts.size ?? LIST_PAGE_SIZE;
  const param = opts.param ?? 'page';
  const [one, many] = opts.noun ?? ['thing', 'things'];
  const pages = Math.max(1, Math.ceil(total / size));
  const href = (n: number) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
    if (n > 1) q.set(param, String(n));
    const qs = q.toString();
    return qs ? `${path}?${qs}` : path;
  };
  return {
    page,
    pages,
    total,
    totalText: countText(total, one, many),
    prevHref: page > 1 ? href(Math.min(page - 1, pages)) : undefined,
    nextHref: page < pages ? href(page + 1) : undefined,
    lastHref: page > pages ? href(pages) : undefined,
  };
}
