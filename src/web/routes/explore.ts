/**
 * Finding things on the website: `/search` (the API's search, api-v2.md "Things"
 * `GET /things/search`, through src/domain/search), `/explore` (popular this month, trending,
 * newest, recent public tips, every category and the most used tags), and the paged lists
 * `/category/:id` and `/tag/:tag`. Hidden things are never listed to anyone but their owner
 * (the search's own rule); `/explore` lists only what everyone sees.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidParametersError, NotFoundError } from '../../domain/errors.ts';
import { CATEGORIES, LANGUAGES, isCategory } from '../../domain/reference.ts';
import { SEARCH_SORTS, type SearchFilters } from '../../domain/search/index.ts';
import { tagDelimiterIn } from '../../domain/tag-expression.ts';
import { listPopularTags } from '../../domain/things.ts';
import { listRecentTips } from '../../domain/tips.ts';
import type { Principal, ThingRecord } from '../../domain/records.ts';
import type { Services } from '../../domain/services.ts';
import type { WebContext } from '../context.ts';
import { sessionPrincipal } from '../sessions.ts';
import { BadPageError, LIST_PAGE_SIZE, pageNumber, pagerOf } from '../paging.ts';
import { field } from './form.ts';

/** The sorts offered on the website, in the order of the select, with their names. */
export const SORT_NAMES: Record<string, string> = {
  relevance: 'Best match',
  trend: 'Trending',
  tips_month: 'Most tips, last 30 days',
  tips_week: 'Most tips, last 7 days',
  tips_day: 'Most tips, last 24 hours',
  tips: 'Most tips of all time',
};

/** Things per section of `/explore`, and tags and tips listed there. */
const EXPLORE_COUNT = 10;
const EXPLORE_TAGS = 40;
const EXPLORE_TIPS = 15;
/** The window of "popular this month" and "trending" (the search's tips_month window), seconds. */
const MONTH_SECONDS = 30 * 86400;
/** Longest tag shown as a page (longer ones are no tag: 404). */
const MAX_TAG_LENGTH = 64;

const categoryNames = new Map(CATEGORIES.map((c) => [c.id, c.name]));
/** A category's name by id (the id itself when unknown). */
const categoryName = (id: string): string => categoryNames.get(id) ?? id;

/** The select options of the search form. */
const FILTER_OPTIONS = {
  categories: CATEGORIES,
  languages: LANGUAGES,
  sorts: SEARCH_SORTS.map((id) => ({ id, name: SORT_NAMES[id] ?? id })),
};

/**
 * The reason a search was refused, in the website's words: the API's pointers to its reference
 * lists (": see /categories") become a hint to pick from the form's list.
 */
function refusal(err: BadPageError | InvalidParametersError): string {
  const m = /^(.*): see \/(categories|languages)$/.exec(err.message);
  return m ? `${m[1]}. Pick one from the list.` : err.message;
}

/** One page of a search, as the website lists it. */
interface Found {
  total: number;
  things: ThingRecord[];
}

/**
 * Page `page` (LIST_PAGE_SIZE a page) of `username`'s things, newest first, as `viewer` sees them
 * (hidden ones only for their owner), with how many there are in all.
 */
export async function findUserThings(
  s: Services,
  username: string,
  viewer: Principal | undefined,
  page: number,
): Promise<Found> {
  return findThings(s, { user: username }, page, viewer);
}

/** Page `page` (`count` a page) of the things matching `params`, as `viewer` sees them. */
async function findThings(
  s: Services,
  params: SearchFilters,
  page: number,
  viewer: Principal | undefined,
  count = LIST_PAGE_SIZE,
): Promise<Found> {
  const search = s.search;
  if (!search) throw new Error('the search module is not configured');
  const answer = await search.find(params, { count, page }, viewer, { full: false });
  return { total: answer.total, things: await answer.things() };
}

/** Registers GET /search, GET /explore, GET /category/:id and GET /tag/:tag on the website plugin. */
export function exploreRoutes(app: FastifyInstance, ctx: WebContext): void {
  const s = ctx.services;

  const viewerOf = (request: FastifyRequest): Principal | undefined =>
    request.webSession && sessionPrincipal(request.webSession);

  const find = (params: SearchFilters, page: number, viewer: Principal | undefined, count?: number) =>
    findThings(s, params, page, viewer, count);

  /**
   * A paged list of things (`/category/:id`, `/tag/:tag`): search `params` with the `sort` and
   * `page` of the query; a bad sort or page re-renders the page with the reason (400).
   */
  async function listPage(
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    heading: string,
    params: SearchFilters,
    searchHref: string | undefined,
  ) {
    const query = request.query as Record<string, unknown>;
    const sort = field(query, 'sort');
    const data = { title: heading, heading, path, sort, searchHref, sorts: FILTER_OPTIONS.sorts, categoryName };
    try {
      const page = pageNumber(query.page);
      const found = await find({ ...params, sort }, page, viewerOf(request));
      const pager = pagerOf(path, { sort }, page, found.total);
      return ctx.page(request, reply, './thing-page', { ...data, things: found.things, pager });
    } catch (err) {
      if (!(err instanceof BadPageError || err instanceof InvalidParametersError)) throw err;
      return ctx.page(request, reply, './thing-page', { ...data, error: refusal(err), things: [] }, 400);
    }
  }

  /**
   * GET /search — query `q` (words, all required; at most 500 characters and 32 words), `category`
   * and `language` (one id each, see /rest/v2/categories and /rest/v2/languages), `sort`
   * (relevance | trend | tips | tips_month | tips_week | tips_day) and `page` (1-based, 20 a page).
   * Without words, filters or sort: the form and a link to /explore (with only a sort: every thing). Results link to `/thing/:id`, with
   * "N things" and "page N of M". Bad filters or page: the page with the reason, 400.
   */
  app.get('/search', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const form = {
      q: field(query, 'q'),
      category: field(query, 'category'),
      language: field(query, 'language'),
      sort: field(query, 'sort'),
    };
    const base = {
      title: form.q.trim() ? `Search: ${form.q.trim().slice(0, 80)}` : 'Search',
      searchQuery: form.q,
      form,
      options: FILTER_OPTIONS,
      categoryName,
    };
    if (!form.q.trim() && !form.category && !form.language && !form.sort) {
      return ctx.page(request, reply, './search', { ...base, asked: false });
    }
    try {
      const page = pageNumber(query.page);
      const found = await find(
        { query: form.q, category: form.category, language: form.language, sort: form.sort },
        page,
        viewerOf(request),
      );
      const pager = pagerOf('/search', form, page, found.total);
      return ctx.page(request, reply, './search', { ...base, asked: true, things: found.things, pager });
    } catch (err) {
      if (!(err instanceof BadPageError || err instanceof InvalidParametersError)) throw err;
      return ctx.page(request, reply, './search', { ...base, asked: false, error: refusal(err) }, 400);
    }
  });

  /**
   * GET /explore — ten things each: popular this month (most tips in the last 30 days), trending
   * (recent tips weigh more), newest; the newest public tips (of users who do not hide their tips);
   * links to every category and the 40 most used tags. Only things everyone sees (never hidden
   * ones, not even to their owner); things without a tip in the last 30 days are not "popular" or
   * "trending".
   */
  app.get('/explore', async (request, reply) => {
    const since = s.clock.now() - MONTH_SECONDS;
    const recent = (things: ThingRecord[]) => things.filter((t) => t.lastTipAt > since);
    const [popular, trending, newest, tips, tags] = await Promise.all([
      find({ sort: 'tips_month' }, 1, undefined, EXPLORE_COUNT),
      find({ sort: 'trend' }, 1, undefined, EXPLORE_COUNT),
      find({}, 1, undefined, EXPLORE_COUNT),
      listRecentTips(s, EXPLORE_TIPS),
      listPopularTags(s, EXPLORE_TAGS),
    ]);
    return ctx.page(request, reply, './explore', {
      title: 'Explore',
      popular: recent(popular.things),
      trending: recent(trending.things),
      newest: newest.things,
      tips,
      tags,
      categories: CATEGORIES,
      categoryName,
    });
  });

  /**
   * GET /category/:id — the things of a category (ids of /rest/v2/categories), newest first or by
   * `sort`, 20 a page (`page`). Unknown category → 404 page.
   */
  app.get<{ Params: { id: string } }>('/category/:id', async (request, reply) => {
    const id = request.params.id;
    if (!isCategory(id)) throw new NotFoundError('There is no such category.', 'things');
    return listPage(
      request,
      reply,
      `/category/${id}`,
      categoryName(id),
      { category: id },
      `/search?category=${encodeURIComponent(id)}`,
    );
  });

  /**
   * GET /tag/:tag — the things tagged `tag` (case-insensitive), newest first or by `sort`, 20 a
   * page (`page`). A value no thing could carry as a tag (white space, `& | ! ( ) ,`, control
   * characters, over 64 characters) → 404 page.
   */
  app.get<{ Params: { tag: string } }>('/tag/:tag', async (request, reply) => {
    const tag = request.params.tag.toLowerCase();
    if (!tag || [...tag].length > MAX_TAG_LENGTH || tagDelimiterIn(tag) !== undefined || /\p{Cc}/u.test(tag))
      throw new NotFoundError('There is no such tag.', 'things');
    return listPage(request, reply, `/tag/${encodeURIComponent(tag)}`, `Tagged “${tag}”`, { tags: tag }, undefined);
  });
}
