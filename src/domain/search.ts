/**
 * Search (api-v2.md "Things" `GET /things/search`, "Search result"; DECISIONS.md "Search"):
 * validates the query parameters and runs the one search query of db/repositories/search.ts
 * (through the search cache when there is one), then reads the page's things.
 */
import { LRUCache } from 'lru-cache';
import { searchThingIds, type SearchCriteria, type SearchPage, type SearchSort } from '../db/repositories/search.ts';
import { findThingsByIds } from '../db/repositories/things.ts';
import { findUserByUsername } from '../db/repositories/users.ts';
import { InvalidParametersError } from './errors.ts';
import { hasForbiddenCharacters, single } from './input.ts';
import type { PageRequest, Principal, ThingRecord } from './records.ts';
import { isCategory, isLanguage } from './reference.ts';
import type { Services } from './services.ts';
import { parseTagExpression } from './tag-expression.ts';
import { parseHttpUrl, urlKey } from './urls.ts';

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

/** A page of thing ids and the total (`page`), and whether the search cache answered it (`hit`). */
export interface FoundPage {
  page: SearchPage;
  hit: boolean;
  /** SQLite with the search cache: `Database.externalChanges()` as read when the cache was asked */
  external?: number;
}

/** The raw query parameters of `GET /things/search` (strings, possibly repeated). */
export type SearchParameters = Record<string, unknown>;

function text(params: SearchParameters, name: string): string | undefined {
  const v = single(params[name]);
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new InvalidParametersError(`${name} must be a string`, 'search');
  return v;
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

/**
 * `GET /things/search`, first step: validates the parameters and finds one page of thing ids,
 * from the search cache when it has it.
 * @param params `query` (words, all required, over title, description, tags and url), `url`
 *   (absolute http/https URL: only the thing registered for it), `tags` (boolean expression, see
 *   tag-expression.ts), `language` and `category` (comma lists of ids), `user` (username: only
 *   their things), `sort` (`relevance` default | `trend` | `tips` | `tips_month` | `tips_week` |
 *   `tips_day`). Empty values mean "not given". Unknown parameters are ignored.
 * @param page `count` and 1-based `page` (already validated by the HTTP layer).
 * @param viewer the caller, whose own hidden things are included (DECISIONS.md "Things").
 * Criteria made from the same parameters before are reused (parsedSearches).
 * @throws InvalidParametersError (400 `invalid_parameters`): malformed tags expression (naming the
 *   problem and position), unknown language/category id or user, unknown sort, bad url, query too
 *   long. Nothing is written.
 */
export async function findSearchPage(
  s: Services,
  params: SearchParameters,
  page: PageRequest,
  viewer?: Principal,
): Promise<FoundPage> {
  const now = s.clock.now();
  const key = parsedKey(params, page);
  let parsed = key === undefined ? undefined : parsedSearches.get(key);
  if (!parsed) {
    parsed = Object.freeze(await parseCriteria(s, params, page, now));
    if (key !== undefined) parsedSearches.set(key, parsed);
  }
  const criteria: SearchCriteria = { ...parsed, now };
  if (viewer) criteria.viewerUserId = viewer.userId;
  const run = () => searchThingIds(s.database, criteria);
  if (s.searchCache) return s.searchCache.page(criteria, run);
  return { page: await run(), hit: false };
}

/** The parameters a search's criteria are made from, but `user` (see parsedKey). */
const PARSED_PARAMETERS = ['query', 'url', 'tags', 'language', 'category', 'sort'] as const;

/**
 * Criteria already made from the same parameters (LRU, at most 2,000): a search asked again skips
 * their validation and parsing (≈ 20 µs of the server's thread on the benchmark machine, about a
 * tenth of a cached answer). Only valid searches are kept, so every invalid one is refused anew;
 * the kept criteria are never changed (each request copies them).
 */
const parsedSearches = new LRUCache<string, Readonly<SearchCriteria>>({ max: 2000 });

/**
 * The key of `params` and `page` in parsedSearches: their values, each after a NUL, or undefined —
 * the search is then parsed every time — when a value holds a NUL, is repeated or is not a string,
 * or `user` is given (a name looked up in the database, and users come and go).
 */
function parsedKey(params: SearchParameters, page: PageRequest): string | undefined {
  if (params.user !== undefined) return undefined;
  let key = `${page.page}\u0000${page.count}`;
  for (const name of PARSED_PARAMETERS) {
    const v = params[name];
    if (v === undefined) key += '\u0000\u0001';
    else if (typeof v === 'string' && !v.includes('\u0000')) key += `\u0000=${v}`;
    else return undefined;
  }
  return key;
}

/** Validates and parses the parameters of a search but the viewer (see findSearchPage); `now` in Unix seconds. */
async function parseCriteria(
  s: Services,
  params: SearchParameters,
  page: PageRequest,
  now: number,
): Promise<SearchCriteria> {
  const criteria: SearchCriteria = { ...page, sort: 'relevance', now };

  const words = queryWords(text(params, 'query'));
  if (words) criteria.words = words;

  const rawUrl = text(params, 'url')?.trim();
  if (rawUrl) {
    const parsed = parseHttpUrl(rawUrl);
    if (!parsed)
      throw new InvalidParametersError(
        'url must be an absolute http or https URL of at most 2048 characters',
        'search',
      );
    criteria.urlKey = urlKey(parsed);
  }

  const tags = text(params, 'tags');
  if (tags !== undefined) {
    const expression = parseTagExpression(tags);
    if (expression) criteria.tags = expression;
  }

  const languages = idList(text(params, 'language'), 'language', isLanguage);
  if (languages) criteria.languages = languages;
  const categories = idList(text(params, 'category'), 'category', isCategory);
  if (categories) criteria.categories = categories;

  const sort = text(params, 'sort')?.trim();
  if (sort) {
    if (!(SEARCH_SORTS as readonly string[]).includes(sort)) {
      throw new InvalidParametersError(`sort must be one of ${SEARCH_SORTS.join(', ')}`, 'search');
    }
    criteria.sort = sort as SearchSort;
  }

  const username = text(params, 'user')?.trim();
  if (username) {
    const user =
      hasForbiddenCharacters(username) || username.length > 64
        ? undefined
        : await findUserByUsername(s.database.db, username);
    if (!user) throw new InvalidParametersError(`Unknown user ${JSON.stringify(username.slice(0, 64))}`, 'search');
    criteria.ownerUserId = user.id;
  }
  return criteria;
}

/**
 * The things of a found page, in its order, read fresh: their counters change with every tip, the
 * ids only with the ranking. A cached page may predate a change made by another instance
 * (SEARCH_CACHE_SECONDS): a thing hidden since then is still left out, unless it is the viewer's.
 */
export async function readSearchThings(s: Services, found: SearchPage, viewer?: Principal): Promise<ThingRecord[]> {
  const byId = new Map((await findThingsByIds(s.database.db, found.ids)).map((t) => [t.id, t]));
  const shown = (t: ThingRecord) => !t.hidden || (t.owner.kind === 'user' && t.owner.userId === viewer?.userId);
  return found.ids.flatMap((id) => byId.get(id) ?? []).filter(shown);
}
