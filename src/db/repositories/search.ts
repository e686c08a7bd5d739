/**
 * The search query behind `GET /things/search` (DECISIONS.md "Search"), on both engines: the
 * full-text part uses the index of migration 0002_search (SQLite FTS5 + bm25, PostgreSQL
 * tsvector + GIN + ts_rank); filters and sorts are portable SQL. Deleted things never match;
 * hidden things match only for their owner (`viewerUserId`).
 */
import { sql, type RawBuilder } from 'kysely';
import type { Engine } from '../connect.ts';
import type { Executor } from '../transaction.ts';
import type { PageRequest, ThingRecord } from '../../domain/records.ts';
import type { TagExpression } from '../../domain/tag-expression.ts';
import { toThingRecord } from './things.ts';

/** The orders of the spec's `sort` parameter. */
export type SearchSort = 'relevance' | 'trend' | 'tips' | 'tips_month' | 'tips_week' | 'tips_day';

/** What a search asks for; every field but `sort`, `now` and the page is optional. */
export interface SearchCriteria extends PageRequest {
  /**
   * Words to find (already split, each a run of letters and digits); all must occur in title,
   * description, tags or url. `[]` means the query had no words at all: nothing matches.
   * Undefined: no full-text condition.
   */
  words?: string[];
  /** normalised url (domain/urls.ts urlKey): only the thing registered for it */
  urlKey?: string;
  tags?: TagExpression;
  languages?: string[];
  categories?: string[];
  ownerUserId?: number;
  /** the caller's user id: their own hidden things are included */
  viewerUserId?: number;
  sort: SearchSort;
  /** Unix seconds: the end of the tip windows */
  now: number;
}

export interface SearchPage {
  /** things matching, over all pages */
  total: number;
  /** this page, in order */
  things: ThingRecord[];
}

/** Window lengths (seconds) of the windowed sorts: the last 30, 7 and 1 days before `now`. */
export const SORT_WINDOWS = { tips_month: 30 * 86400, tips_week: 7 * 86400, tips_day: 86400 } as const;
/** `trend`: each tip weighs 2^(-age / TREND_HALF_LIFE); tips older than TREND_WINDOW are left out (weight < 0.001). */
export const TREND_HALF_LIFE = 3 * 86400;
export const TREND_WINDOW = 30 * 86400;

/** bm25 column weights (title, description, tags, url) on SQLite, like the A/C/B/D weights on PostgreSQL. */
const BM25 = sql.raw('bm25(things_fts, 10.0, 2.0, 5.0, 1.0)');

const COLUMNS = sql.raw(`things.id, things.url, things.title, things.description, things.category, things.language,
  things.tags, things.image, things.hidden, things.owner_user_id, things.owner_identity, things.tips,
  things.tips_user_count, things.last_tip_at, things.created_at, things.updated_at, users.username as owner_username`);

/** The FTS5 MATCH string for words: each one quoted (so no word is ever read as FTS5 syntax), all required. */
export function fts5Query(words: string[]): string {
  return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
}

/** SQL for a tags expression: each tag is a set of thing ids (index thing_tags_tag). */
function tagCondition(e: TagExpression): RawBuilder<unknown> {
  switch (e.kind) {
    case 'tag':
      return sql`things.id in (select thing_tags.thing_id from thing_tags where thing_tags.tag = ${e.tag})`;
    case 'not':
      return sql`not (${tagCondition(e.operand)})`;
    case 'and':
      return sql`(${sql.join(e.operands.map(tagCondition), sql` and `)})`;
    case 'or':
      return sql`(${sql.join(e.operands.map(tagCondition), sql` or `)})`;
  }
}

/** Every condition but the full-text one. */
function filterConditions(c: SearchCriteria): RawBuilder<unknown>[] {
  const where: RawBuilder<unknown>[] = [sql`things.deleted_at is null`];
  where.push(c.viewerUserId === undefined ? sql`things.hidden = 0` : sql`(things.hidden = 0 or things.owner_user_id = ${c.viewerUserId})`);
  if (c.urlKey !== undefined) where.push(sql`things.url_key = ${c.urlKey}`);
  if (c.ownerUserId !== undefined) where.push(sql`things.owner_user_id = ${c.ownerUserId}`);
  if (c.languages?.length) where.push(sql`things.language in (${sql.join(c.languages)})`);
  if (c.categories?.length) where.push(sql`things.category in (${sql.join(c.categories)})`);
  if (c.tags) where.push(tagCondition(c.tags));
  return where;
}

/**
 * The per-thing score of a tip-based sort, as a derived table `(thing_id, score)` holding only
 * things with a score (tips in the window, through the tips(created_at) index), or undefined for
 * `tips` (the things.tips counter) and `relevance`.
 */
function scoreTable(engine: Engine, c: SearchCriteria): RawBuilder<unknown> | undefined {
  if (c.sort === 'trend') {
    const since = c.now - TREND_WINDOW;
    const weight =
      engine === 'postgres'
        ? sql`power(2.0, (tips.created_at - ${c.now})::float8 / ${TREND_HALF_LIFE})`
        : sql`power(2.0, (tips.created_at - ${c.now}) * 1.0 / ${TREND_HALF_LIFE})`;
    return sql`(select tips.thing_id, sum(${weight}) as score from tips
      where tips.created_at > ${since} and tips.created_at <= ${c.now} group by tips.thing_id)`;
  }
  if (c.sort === 'tips_month' || c.sort === 'tips_week' || c.sort === 'tips_day') {
    const since = c.now - SORT_WINDOWS[c.sort];
    return sql`(select tips.thing_id, count(*) as score from tips
      where tips.created_at > ${since} and tips.created_at <= ${c.now} group by tips.thing_id)`;
  }
  return undefined;
}

/**
 * One page of things matching `c`, and how many match in all.
 *
 * Orders: `relevance` with words: full-text rank (bm25 / ts_rank), best first; `relevance`
 * without words: newest first; `tips`: the all-time tip count; `tips_month|week|day`: tips in the
 * last 30/7/1 days before `c.now`; `trend`: tips in the last 30 days, each weighing
 * 2^(-age / 3 days). Ties (and things without tips in a window) are newest first: created_at,
 * then id, descending.
 * @param engine the dialect of `ex` (the full-text SQL differs).
 */
export async function searchThings(ex: Executor, engine: Engine, c: SearchCriteria): Promise<SearchPage> {
  if (c.words !== undefined && c.words.length === 0) return { total: 0, things: [] };
  const where = filterConditions(c);
  const words = c.words;
  let from = sql`things`;
  let rank: RawBuilder<unknown> | undefined;
  if (words) {
    if (engine === 'sqlite') {
      from = sql`things_fts join things on things.id = things_fts.rowid`;
      where.push(sql`things_fts match ${fts5Query(words)}`);
      rank = sql`${BM25} asc`;
    } else {
      const query = sql`plainto_tsquery('english', ${words.join(' ')})`;
      where.push(sql`things.search_vector @@ ${query}`);
      rank = sql`ts_rank(things.search_vector, ${query}) desc`;
    }
  }
  const condition = sql.join(where, sql` and `);
  const newest = sql`things.created_at desc, things.id desc`;

  const totalRow = await sql<{ total: number | string }>`select count(*) as total from ${from} where ${condition}`.execute(ex);
  const total = Number(totalRow.rows[0]?.total ?? 0);
  const offset = (c.page - 1) * c.count;
  if (total <= offset) return { total, things: [] };

  let order: RawBuilder<unknown>;
  let join = sql``;
  const scores = scoreTable(engine, c);
  if (scores) {
    join = sql`left join ${scores} as scores on scores.thing_id = things.id`;
    order = sql`coalesce(scores.score, 0) desc, ${newest}`;
  } else if (c.sort === 'tips') {
    order = sql`things.tips desc, ${newest}`;
  } else {
    order = rank ? sql`${rank}, ${newest}` : newest;
  }
  const rows = await sql<Parameters<typeof toThingRecord>[0]>`select ${COLUMNS}
    from ${from}
    left join users on users.id = things.owner_user_id
    ${join}
    where ${condition}
    order by ${order}
    limit ${c.count} offset ${offset}`.execute(ex);
  return { total, things: rows.rows.map(toThingRecord) };
}
