/**
 * Paged lists as async iterators (DECISIONS.md "Pagination": `count` 1–100, default 30, `page`
 * from 1, newest first).
 */

/** The API's default page size (DECISIONS.md "Pagination"). */
export const DEFAULT_COUNT = 30;
/** The API's largest page size. */
export const MAX_COUNT = 100;

/**
 * One page of a list, as the API answers it: its items, and whether another page may follow
 * (`false` once a page comes back shorter than asked, or the list's total is reached).
 */
export interface PageAnswer<T> {
  items: T[];
  more: boolean;
}

/**
 * A paged list of the API. Iterate it with `for await (const item of list)`: pages are fetched
 * one at a time, as the loop needs them, until a page comes back shorter than `count`; `break`
 * stops the fetching. `page(n)` fetches one page, `pages()` iterates page by page.
 *
 * Lists are newest first and read page by page, so an item added while a loop runs may push an
 * item of a page already read onto the next one (it then comes twice), as with any paged API.
 */
export class Paged<T> implements AsyncIterable<T> {
  readonly #fetchPage: (page: number, count: number) => Promise<PageAnswer<T>>;
  /** items per request, 1–100 */
  readonly count: number;

  /**
   * @param fetchPage fetches page `page` (from 1) of `count` items
   * @param count items per request, 1–100 (default 30, the API's)
   * @throws RangeError when `count` is not an integer from 1 to 100 (the API would answer 400)
   */
  constructor(fetchPage: (page: number, count: number) => Promise<PageAnswer<T>>, count = DEFAULT_COUNT) {
    if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) {
      throw new RangeError(`count must be an integer from 1 to ${MAX_COUNT}, not ${count}`);
    }
    this.#fetchPage = fetchPage;
    this.count = count;
  }

  /**
   * The items of page `page` (from 1; default 1); `[]` past the last page.
   * @throws TipjarError as the list's endpoint answers (e.g. `not_found` for an unknown user)
   */
  async page(page = 1): Promise<T[]> {
    return (await this.#fetchPage(page, this.count)).items;
  }

  /** The pages in order, each a non-empty array of items, fetched one at a time. */
  async *pages(): AsyncGenerator<T[], void, undefined> {
    for (let page = 1; ; page++) {
      const answer = await this.#fetchPage(page, this.count);
      if (answer.items.length > 0) yield answer.items;
      if (!answer.more || answer.items.length < this.count) return;
    }
  }

  /** Every item of every page, in the list's order. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const items of this.pages()) yield* items;
  }
}
