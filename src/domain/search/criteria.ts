/**
 * The criteria of a search (api-v2.md "Things" `GET /things/search`; DECISIONS.md "Search"):
 * the query parameters validated and parsed into db/repositories/search.ts SearchCriteria, and the
 * criteria already made from the same parameters, kept so a search asked again skips the work.
 */
import { LRUCache } from 'lru-cache';
import type { Database } from '../../db/transaction.ts';
import type { SearchCriteria, SearchSort } from '../../db/repositories/search.ts';
import { findUserByUsername } from '../../db/repositories/users.ts';
import { InvalidParametersError } from '../errors.ts';
import { hasForbiddenCharacters } from '../input.ts';
import type { PageRequest } from '../records.ts';
import { isCategory, isLanguage } from '../reference.ts';
import { parseTagExpression } from '../tag-expression.ts';
import { parseHttpUrl, urlKey } from '../urls.ts';

export const SEARCH_SORTS: readonly SearchSort[] = [
  'relevance',
  'trend',
  'tips',
  'tips_month',
  'tips_week',
  'tips_day',
];
/** Longest `query` accepted, in characters. */
export const MAX_QUERY_LENGTH = 500;
/** Most words one `query` may hold. */
export const MAX_QUERY_WORDS = 32;
/** Most ids in the `language` or `category` list. */
const MAX_LIST_IDS = 50;

/** A word of `query`: a run of letters, combining marks and digits (what both full-text indexes tokenise as one word). */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * What a search asks for, as given (api-v2.md `GET /things/search`; each value text, validated and
 * parsed by CriteriaMaker.make; undefined or empty: not given).
 */
export interface SearchFilters {
  /** words, all required, over title, description, tags and url */
  query?: string;
  /** an absolute http(s) URL: only the thing registered for it */
  url?: string;
  /** a tag expression (tag-expression.ts) */
  tags?: string;
  /** a comma list of language ids */
  language?: string;
  /** a comma list of category ids */
  category?: string;
  /** a username: only their things */
  user?: string;
  /** one of SEARCH_SORTS (default `relevance`) */
  sort?: string;
}

/**
 * The words of a `query` value.
 * @returns undefined when the value is absent or blank (no full-text condition); otherwise its
 *   words, possibly `[]` when it holds none (only punctuation or symbols: nothing matches).
 * @throws InvalidParametersError over MAX_QUERY_LENGTH characters or MAX_QUERY_WORDS words.
 */
export function queryWords(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  if ([...raw].length > MAX_QUERY_LENGTH)
    throw new InvalidParametersError(`query must be at most ${MAX_QUERY_LENGTH} characters`, 'search');
  const words = raw.match(WORD) ?? [];
  if (words.length > MAX_QUERY_WORDS)
    throw new InvalidParametersError(`query must have at most ${MAX_QUERY_WORDS} words`, 'search');
  return words;
}

/** A comma list of reference ids (`language`, `category`). @throws InvalidParametersError naming an unknown id */
function idList(
  raw: string | undefined,
  name: 'language' | 'category',
  known: (id: string) => boolean,
): string[] | undefined {
  if (raw === undefined) return undefined;
  const ids = [
    ...new Set(
      raw
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    ),
  ];
  if (ids.length === 0) return undefined;
  if (ids.length > MAX_LIST_IDS)
    throw new InvalidParametersError(`${name} must list at most ${MAX_LIST_IDS} ids`, 'search');
  const unknown = ids.find((id) => !known(id));
  if (unknown !== undefined) {
    const shown = JSON.stringify(
      hasForbiddenCharacters(unknown) ? unknown.replace(/[^\x20-\x7e]/g, '?') : unknown.slice(0, 64),
    );
    throw new InvalidParametersError(
      `Unknown ${name} ${shown}: see /${name === 'language' ? 'languages' : 'categories'}`,
      'search',
    );
  }
  return ids;
}

/** The parameters a search's criteria are made from, but `user` (see parsedKey). */
const PARSED_PARAMETERS = ['query', 'url', 'tags', 'language', 'category', 'sort'] as const;

/** Criteria kept, at most (LRU). */
const KEPT_CRITERIA = 2000;

/**
 * Makes the criteria of searches and keeps those made from the same parameters (LRU, at most
 * 2,000): a search asked again skips their validation and parsing (≈ 20 µs of the server's thread
 * on the benchmark machine, about a tenth of a cached answer). Only valid searches are kept, so
 * every invalid one is refused anew; the kept criteria are never changed (each search copies them).
 */
export class CriteriaMaker {
  private readonly kept = new LRUCache<string, Readonly<SearchCriteria>>({ max: KEPT_CRITERIA });

  constructor(private readonly database: Database) {}

  /**
   * The criteria of a search made at `now` (Unix seconds) by `viewerUserId` (their own hidden
   * things are included).
   * @param params `query` (words, all required, over title, description, tags and url), `url`
   *   (absolute http/https URL: only the thing registered for it), `tags` (boolean expression, see
   *   tag-expression.ts), `language` and `category` (comma lists of ids), `user` (username: only
   *   their things), `sort` (`relevance` default | `trend` | `tips` | `tips_month` | `tips_week` |
   *   `tips_day`). Empty values mean "not given". Unknown parameters are ignored.
   * @param page `count` and 1-based `page` (already validated by the HTTP layer).
   * @throws InvalidParametersError (400 `invalid_parameters`): malformed tags expression (naming
   *   the problem and position), unknown language/category id or user, unknown sort, bad url,
   *   query too long.
   */
  async make(
    params: SearchFilters,
    page: PageRequest,
    now: number,
    viewerUserId: number | undefined,
  ): Promise<SearchCriteria> {
    const key = parsedKey(params, page);
    let parsed = key === undefined ? undefined : this.kept.get(key);
    if (!parsed) {
      parsed = Object.freeze(await parseCriteria(this.database, params, page, now));
      if (key !== undefined) this.kept.set(key, parsed);
    }
    const criteria: SearchCriteria = { ...parsed, now };
    if (viewerUserId !== undefined) criteria.viewerUserId = viewerUserId;
    return criteria;
  }
}

/**
 * The key of `params` and `page` among the kept criteria: their values, each after a NUL, or
 * undefined — the search is then parsed every time — when a value holds a NUL, or `user` is given (a name looked up in the database, and users come and go).
 */
function parsedKey(params: SearchFilters, page: PageRequest): string | undefined {
  if (params.user !== undefined) return undefined;
  let key = `${page.page}\u0000${page.count}`;
  for (const name of PARSED_PARAMETERS) {
    const v = params[name];
    if (v === undefined) key += '\u0000\u0001';
    else if (!v.includes('\u0000')) key += `\u0000=${v}`;
    else return undefined;
  }
  return key;
}

/** Validates and parses the parameters of a search but the viewer (see CriteriaMaker.make); `now` in Unix seconds. */
async function parseCriteria(
  database: Database,
  params: SearchFilters,
  page: PageRequest,
  now: number,
): Promise<SearchCriteria> {
  const criteria: SearchCriteria = { ...page, sort: 'relevance', now };

  const words = queryWords(params.query);
  if (words) criteria.words = words;

  const rawUrl = params.url?.trim();
  if (rawUrl) {
    const parsed = parseHttpUrl(rawUrl);
    if (!parsed)
      throw new InvalidParametersError(
        'url must be an absolute http or https URL of at most 2048 characters',
        'search',
      );
    criteria.urlKey = urlKey(parsed);
  }

  const tags = params.tags;
  if (tags !== undefined) {
    const expression = parseTagExpression(tags);
    if (expression) criteria.tags = expression;
  }

  const languages = idList(params.language, 'language', isLanguage);
  if (languages) criteria.languages = languages;
  const categories = idList(params.category, 'category', isCategory);
  if (categories) criteria.categories = categories;

  const sort = params.sort?.trim();
  if (sort) {
    if (!(SEARCH_SORTS as readonly string[]).includes(sort)) {
      throw new InvalidParametersError(`sort must be one of ${SEARCH_SORTS.join(', ')}`, 'search');
    }
    criteria.sort = sort as SearchSort;
  }

  const username = params.user?.trim();
  if (username) {
    const user =
      hasForbiddenCharacters(username) || username.length > 64
        ? undefined
        : await findUserByUsername(database.db, username);
    if (!user || user.deletedAt !== null)
      throw new InvalidParametersError(`Unknown user ${JSON.stringify(username.slice(0, 64))}`, 'search');
    criteria.ownerUserId = user.id;
  }
  return criteria;
}
