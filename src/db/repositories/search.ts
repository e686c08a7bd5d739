/**
 * The search query behind `GET /things/search` (DECISIONS.md "Search"), on both engines: the
 * full-text part uses the index of migration 0002_search (SQLite FTS5 + bm25, PostgreSQL
 * tsvector + GIN + ts_rank); filters and sorts are portable SQL. Deleted things never match;
 * hidden things match only for their owner (`viewerUserId`).
 */
import { sql, type RawBuilder } from 'kysely';
import { precompiled } from '../precompiled.ts';
import { turnBatched } from '../batched.ts';
import type { Executor } from '../transaction.ts';
import type { Database, Engine } from '../connect.ts';
import type { PageRequest } from '../../domain/records.ts';
import type { TagExpression } from '../../domain/tag-expression.ts';
import { RANKED_INDEX } from '../migrations/0011_search_ranked.ts';

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

/** One page of a search as thing ids (the caller reads the things, which change more often). */
export interface SearchPage {
  /** things matching, over all pages */
  total: number;
  /** the ids of this page's things, in order */
  ids: number[];
  /**
   * Windowed sorts and `trend` only (see windowEdge): the first Unix second at which the same
   * search may order differently with no write in between, as the clock moves its window; absent
   * when no tip is near enough to do so (only a write can change the page then).
   */
  changesAt?: number;
}

/** Window lengths (seconds) of the windowed sorts: the last 30, 7 and 1 days before `now`. */
export const SORT_WINDOWS = { tips_month: 30 * 86400, tips_week: 7 * 86400, tips_day: 86400 } as const;
/** `trend`: each tip weighs 2^(-age / TREND_HALF_LIFE); tips older than TREND_WINDOW are left out (weight < 0.001). */
export const TREND_HALF_LIFE = 3 * 86400;
export const TREND_WINDOW = 30 * 86400;

/** bm25 column weights (title, description, tags, url) on SQLite, like the A/C/B/D weights on PostgreSQL. */
const BM25_WEIGHTS = '10.0, 2.0, 5.0, 1.0';

/** The FTS5 MATCH string for words: each one quoted (so no word is ever read as FTS5 syntax), all required. */
export function fts5Query(words: string[]): string {
  return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
}

/**
 * How a tags expression is tested: `probe`, one index probe of the thing_tags primary key per
 * candidate (EXISTS), best when the candidates are few (full-text matches); `set`, each tag a set
 * of ids from the thing_tags_tag index (IN); `row`, PostgreSQL's thing_search row itself, whose
 * `tag_keys` holds the thing's tags (migration 0016_search_table), with no other table read.
 */
type TagTest = 'probe' | 'set' | 'row';

/** SQL for a tags expression over the thing `id` (a column reference; its table is `things` for `row`). */
function tagCondition(e: TagExpression, id: RawBuilder<unknown>, test: TagTest): RawBuilder<unknown> {
  switch (e.kind) {
    case 'tag':
      if (test === 'row') return sql`things.tag_keys @> array[${e.tag}]::text[]`;
      return test === 'probe'
        ? sql`exists (select 1 from thing_tags where thing_tags.thing_id = ${id} and thing_tags.tag = ${e.tag})`
        : sql`${id} in (select thing_tags.thing_id from thing_tags where thing_tags.tag = ${e.tag})`;
    case 'not':
      return sql`not (${tagCondition(e.operand, id, test)})`;
    case 'and':
      return sql`(${sql.join(
        e.operands.map((o) => tagCondition(o, id, test)),
        sql` and `,
      )})`;
    case 'or':
      return sql`(${sql.join(
        e.operands.map((o) => tagCondition(o, id, test)),
        sql` or `,
      )})`;
  }
}

/**
 * The relation a PostgreSQL search reads, named `things`: thing_search (migration
 * 0016_search_table), the searched and filtered columns of every thing, apart from its counters.
 */
const PG_SEARCHED = sql`thing_search as things`;

/** The conditions on `things` columns other than visibility, full text and tags. */
function columnConditions(c: SearchCriteria): RawBuilder<unknown>[] {
  const where: RawBuilder<unknown>[] = [];
  if (c.urlKey !== undefined) where.push(sql`things.url_key = ${c.urlKey}`);
  if (c.ownerUserId !== undefined) where.push(sql`things.owner_user_id = ${c.ownerUserId}`);
  if (c.languages?.length) where.push(sql`things.language in (${sql.join(c.languages)})`);
  if (c.categories?.length) where.push(sql`things.category in (${sql.join(c.categories)})`);
  return where;
}

const and = (conditions: RawBuilder<unknown>[]) => sql.join(conditions, sql` and `);

/**
 * The matching things as a relation `(id, rank)`: the visible things, plus (with a viewer) the
 * viewer's own hidden things; with `ranked`, `rank` orders by relevance ascending (bm25 on SQLite,
 * -ts_rank on PostgreSQL), else it is 0.
 *
 * SQLite has no statistics, so the plans are spelled out: with words the FTS table drives and
 * `things` is joined only when a column filter needs it, through the covering things_visible
 * index; without words things_visible is named (else the planner may take things_url_key and
 * read every row), unless the url filter makes things_url_key the right one.
 */
function matches(engine: Engine, c: SearchCriteria, words: string[] | undefined, ranked: boolean): RawBuilder<unknown> {
  const columns = columnConditions(c);
  const parts: RawBuilder<unknown>[] = [];
  if (engine === 'sqlite' && words) {
    const part = (table: 'things_fts' | 'things_fts_hidden') => {
      const fts = sql.raw(table);
      const where = [sql`${fts} match ${fts5Query(words)}`];
      let join = sql``;
      if (table === 'things_fts_hidden') {
        join = sql`join things on things.id = ${fts}.rowid`;
        where.push(sql`things.owner_user_id = ${c.viewerUserId}`, ...columns);
      } else if (columns.length) {
        // Rows of things_fts are visible things: the condition only lets SQLite use things_visible.
        join =
          c.urlKey === undefined
            ? sql`join things indexed by things_visible on things.id = ${fts}.rowid`
            : sql`join things on things.id = ${fts}.rowid`;
        where.push(sql`things.deleted_at is null and things.hidden = 0`, ...columns);
      }
      if (c.tags) where.push(tagCondition(c.tags, sql`${fts}.rowid`, 'probe'));
      const rank = ranked ? sql`bm25(${fts}, ${sql.raw(BM25_WEIGHTS)})` : sql`0`;
      return sql`select ${fts}.rowid as id, ${rank} as rank from ${fts} ${join} where ${and(where)}`;
    };
    parts.push(part('things_fts'));
    if (c.viewerUserId !== undefined) parts.push(part('things_fts_hidden'));
  } else {
    const full = words ? sql`plainto_tsquery('english', ${words.join(' ')})` : undefined;
    const rank = full && ranked ? sql`-ts_rank(things.search_vector, ${full})` : sql`0`;
    const filters = [...(full ? [sql`things.search_vector @@ ${full}`] : []), ...columns];
    const test: TagTest = engine === 'postgres' ? 'row' : 'set';
    if (c.tags) filters.push(tagCondition(c.tags, sql`things.id`, test));
    const part = (from: RawBuilder<unknown>, visibility: RawBuilder<unknown>[]) =>
      sql`select things.id as id, ${rank} as rank from ${from} where ${and([sql`things.deleted_at is null`, ...visibility, ...filters])}`;
    const all = engine === 'postgres' ? PG_SEARCHED : sql`things`;
    const visible = engine === 'sqlite' && c.urlKey === undefined ? sql`things indexed by things_visible` : all;
    parts.push(part(visible, [sql`things.hidden = 0`]));
    if (c.viewerUserId !== undefined)
      parts.push(part(all, [sql`things.owner_user_id = ${c.viewerUserId}`, sql`things.hidden <> 0`]));
  }
  return parts.length === 1 ? parts[0]! : sql`${parts[0]!} union all ${parts[1]!}`;
}

/** `power(2.0, <seconds> / TREND_HALF_LIFE)` with the division in floating point on both engines. */
function pow2(engine: Engine, seconds: RawBuilder<unknown>): RawBuilder<unknown> {
  return engine === 'postgres'
    ? sql`power(2.0, (${seconds})::float8 / ${TREND_HALF_LIFE})`
    : sql`power(2.0, (${seconds}) * 1.0 / ${TREND_HALF_LIFE})`;
}

/** The window (since, now] of a windowed sort or `trend`, and whether it is `trend`; undefined for the others. */
function windowOf(c: SearchCriteria): { since: number; trend: boolean } | undefined {
  if (c.sort === 'trend') return { since: c.now - TREND_WINDOW, trend: true };
  if (c.sort === 'tips_month' || c.sort === 'tips_week' || c.sort === 'tips_day')
    return { since: c.now - SORT_WINDOWS[c.sort], trend: false };
  return undefined;
}

/**
 * The score one row `h` of tip_hours (migration 0005_tip_hours) adds for a window (since, now]:
 * an hour whose tips all lie inside counts whole — its `tips`, or for `trend` its `weight` moved
 * to `now` (Σ 2^((t − now)/H) = 2^((hour·3600 − now)/H) · Σ 2^((t − hour·3600)/H)); an hour cut by
 * the window's edge counts its tips inside the window one by one, from `tips`. Exact either way.
 */
function hourScore(engine: Engine, c: SearchCriteria, w: { since: number; trend: boolean }): RawBuilder<unknown> {
  const inside = sql`h.first_at > ${w.since} and h.last_at <= ${c.now}`;
  const cut = sql`tips.thing_id = h.thing_id and tips.created_at > ${w.since} and tips.created_at <= ${c.now}
    and tips.created_at >= h.hour * 3600 and tips.created_at < h.hour * 3600 + 3600`;
  if (w.trend) {
    return sql`case when ${inside} then ${pow2(engine, sql`h.hour * 3600 - ${c.now}`)} * h.weight
      else (select coalesce(sum(${pow2(engine, sql`tips.created_at - ${c.now}`)}), 0) from tips where ${cut}) end`;
  }
  return sql`case when ${inside} then h.tips else (select count(*) from tips where ${cut}) end`;
}

/** The tip_hours rows a window can touch: hours from the one holding `since` to the one holding `now`. */
const hoursOf = (c: SearchCriteria, w: { since: number }) =>
  sql`h.hour >= ${Math.floor(w.since / 3600)} and h.hour <= ${Math.floor(c.now / 3600)}`;

/**
 * The per-thing scores of a tip-based sort as a relation `(thing_id, score)` holding only things
 * with a score above 0 (few, next to the catalogue): the tip_hours rows of the window (one per
 * thing and hour with tips), or the `things.tips` counter of things that have tips (found through
 * tip_hours, one row per thing and hour, not through every tip).
 */
function scores(engine: Engine, c: SearchCriteria): RawBuilder<unknown> | undefined {
  const w = windowOf(c);
  if (w) {
    return sql`select s.thing_id as thing_id, s.score as score from (
      select h.thing_id as thing_id, sum(${hourScore(engine, c, w)}) as score from tip_hours as h where ${hoursOf(c, w)} group by h.thing_id
    ) as s where s.score > 0`;
  }
  if (c.sort === 'tips') {
    return sql`select things.id as thing_id, things.tips as score from things
      where things.id in (select distinct tip_hours.thing_id from tip_hours) and things.tips > 0`;
  }
  return undefined;
}

/**
 * The score of one thing (`thingId`, an SQL expression) for the tip sorts: for the windowed sorts
 * and `trend` a correlated subquery over its tip_hours rows in the window (0 when none), for
 * `tips` the sum of all its tip_hours rows (its number of tip rows, like its `tips` counter: both
 * are written in the tip's transaction) — a probe of the tip_hours key, ≈ 4 times cheaper per
 * match than reading the counter from the thing's row; undefined for `relevance`.
 * Orders exactly as `scores` does: scored things by score, the others (score 0) after them.
 */
function matchScore(engine: Engine, c: SearchCriteria, thingId: RawBuilder<unknown>): RawBuilder<unknown> | undefined {
  const w = windowOf(c);
  if (w)
    return sql`(select coalesce(sum(${hourScore(engine, c, w)}), 0) from tip_hours as h where h.thing_id = ${thingId} and ${hoursOf(c, w)})`;
  if (c.sort === 'tips')
    return sql`(select coalesce(sum(h.tips), 0) from tip_hours as h where h.thing_id = ${thingId})`;
  return undefined;
}

/** Runs a read and resolves to its rows: on SQLite's read thread when there is one (Database.offThread). */
type Read = <R>(query: RawBuilder<R>) => Promise<R[]>;

function reader(database: Database): Read {
  const { db, offThread } = database;
  if (offThread) return (query) => offThread(query.compile(db));
  return async (query) => (await query.execute(db)).rows;
}

/**
 * The ids of one page of `m` in `order`, and the total: when the page is neither empty nor full
 * it is the last one and tells the total (most searches, a narrow word, need no count); otherwise
 * the matches are counted, on SQLite's read thread right after the page (Database.offThreadThen:
 * one wait in the threads' queue, not two). A SQLite word search with a filter takes both from
 * one statement instead (filteredWordPage). With `knownTotal` (searchThingIds) only the page is read.
 */
async function pageAndTotal(
  database: Database,
  c: SearchCriteria,
  m: RawBuilder<unknown>,
  order: RawBuilder<unknown>,
  offset: number,
  knownTotal: number | undefined,
): Promise<SearchPage> {
  const counted = countOf(m);
  if (database.engine === 'sqlite' && c.words && (c.tags || columnConditions(c).length > 0)) {
    return filteredWordPage(reader(database), c, m, order, offset, counted);
  }
  const page = sql<{
    id: number | string;
  }>`select m.id as id from (${m}) as m order by ${order} limit ${c.count} offset ${offset}`;
  if (knownTotal !== undefined) return { total: knownTotal, ids: await ids(reader(database), page) };
  const when = { minRows: c.count, ifEmpty: offset > 0 };
  const needsCount = (found: number) => found >= when.minRows || (when.ifEmpty && found === 0);
  const { db, offThreadThen } = database;
  let rows: { id: number | string }[];
  let countRows: { n: number | string }[] | undefined;
  if (offThreadThen) {
    ({ rows, followUpRows: countRows } = await offThreadThen(page.compile(db), {
      query: counted.compile(db),
      ...when,
    }));
  } else {
    rows = (await page.execute(db)).rows;
    if (needsCount(rows.length)) countRows = (await counted.execute(db)).rows;
  }
  const pageIds = rows.map((row) => Number(row.id));
  if (!needsCount(pageIds.length)) return { total: offset + pageIds.length, ids: pageIds };
  if (!countRows) throw new Error('search: the matches were not counted');
  return { total: Number(countRows[0]?.n ?? 0), ids: pageIds };
}

/**
 * pageAndTotal for a SQLite word search with a filter (tags, category, language, owner, url): the
 * filter's probes and joins run once per match, so the matches are gathered once (a materialized
 * CTE) and both ordered into the page and counted from there, in one statement; a page beyond the
 * last one (no row to carry the count) is followed by a count.
 */
async function filteredWordPage(
  read: Read,
  c: SearchCriteria,
  m: RawBuilder<unknown>,
  order: RawBuilder<unknown>,
  offset: number,
  counted: RawBuilder<{ n: number | string }>,
): Promise<SearchPage> {
  const rows = await read(
    sql<{ id: number | string; n: number | string }>`with m as materialized (${m})
      select m.id as id, (select count(*) from m) as n from m order by ${order} limit ${c.count} offset ${offset}`,
  );
  if (rows.length > 0) return { total: Number(rows[0]!.n), ids: rows.map((row) => Number(row.id)) };
  if (offset === 0) return { total: 0, ids: [] };
  const [r] = await read(counted);
  return { total: Number(r?.n ?? 0), ids: [] };
}

async function ids(read: Read, query: RawBuilder<unknown>): Promise<number[]> {
  const rows = await read(sql<{ id: number | string }>`${query}`);
  return rows.map((row) => Number(row.id));
}

/** How many rows `query` has, as a one-row relation `(n)`. */
const countOf = (query: RawBuilder<unknown>) =>
  sql<{ n: number | string }>`select count(*) as n from (${query}) as counted`;

async function count(read: Read, query: RawBuilder<unknown>): Promise<number> {
  const rows = await read(countOf(query));
  return Number(rows[0]?.n ?? 0);
}

/**
 * The ids of one page of things matching `c`, and how many match in all.
 *
 * Orders: `relevance` with words: full-text rank (bm25 / ts_rank), best first; `relevance`
 * without words: newest first; `tips`: the all-time tip count; `tips_month|week|day`: tips in the
 * last 30/7/1 days before `c.now`; `trend`: tips in the last 30 days, each weighing
 * 2^(-age / 3 days). Ties, and things without a score, are newest first (the most recently
 * registered first, by id). A tip sort is two index-friendly queries: the scored things (few)
 * in score order, then the others newest first. On PostgreSQL a word search reads its matches
 * once (see postgresWordSearch).
 * On SQLite the queries run on the read thread (Database.offThread), beside the event loop.
 * The windowed sorts and `trend` also tell when the clock alone may change the page (`changesAt`,
 * see windowEdge), for the search cache.
 * @param knownTotal how many things match `c`, when the caller knows it from a search of the same
 *   matches (another sort or page, no write to things since): the plans that would count the
 *   matches with a statement of its own take it instead; those that count in the page's own
 *   statement ignore it. It must be exact: it is the answer's total.
 */
export async function searchThingIds(database: Database, c: SearchCriteria, knownTotal?: number): Promise<SearchPage> {
  if (c.words !== undefined && c.words.length === 0) return { total: 0, ids: [] };
  const w = windowOf(c);
  if (database.engine === 'postgres' && c.words && c.sort !== 'relevance') {
    const page = await scoredMatchesPage(reader(database), c, w);
    if (page) return page;
  }
  if (!w) return findPage(database, c, knownTotal);
  const [page, changesAt] = await Promise.all([findPage(database, c, knownTotal), windowEdge(database, c, w)]);
  return changesAt === undefined ? page : { ...page, changesAt };
}

/**
 * When a windowed sort or `trend` of a search made at `c.now` may first order differently, the
 * database unchanged: its window (since, now] moves with the clock, so the oldest tip inside it
 * leaves at its `created_at` + the window's length, and a tip dated after `now` (another
 * instance's clock ahead) enters at its `created_at`. Nothing else does: a windowed score counts
 * the tips inside, and `trend`'s weights 2^((t − now)/H) all shrink by the same factor as `now`
 * grows, which keeps their order (up to floating-point rounding). Over all tips, not only the
 * matches' (two probes of the tips_created index).
 * @returns Unix seconds, or undefined when no tip lies after `since`.
 */
async function windowEdge(database: Database, c: SearchCriteria, w: { since: number }): Promise<number | undefined> {
  const { rows } = await sql<EdgeTips>`select ${edgeColumns(c, w)}`.execute(database.db);
  return rows[0] && edgeOf(c, w, rows[0]);
}

/** The tips windowEdge reads: the oldest inside the window and the first after it (Unix seconds), null when none. */
interface EdgeTips {
  oldest: number | string | null;
  next: number | string | null;
}

/** The columns `oldest` and `next` of EdgeTips, each one probe of the tips_created index. */
const edgeColumns = (c: SearchCriteria, w: { since: number }) =>
  sql`(select min(created_at) from tips where created_at > ${w.since} and created_at <= ${c.now}) as oldest,
    (select min(created_at) from tips where created_at > ${c.now}) as next`;

/** windowEdge's answer from the tips it read. */
function edgeOf(c: SearchCriteria, w: { since: number }, tips: EdgeTips): number | undefined {
  const edges: number[] = [];
  if (tips.oldest != null) edges.push(Number(tips.oldest) + (c.now - w.since));
  if (tips.next != null) edges.push(Number(tips.next));
  return edges.length ? Math.min(...edges) : undefined;
}

/**
 * PostgreSQL, a tip sort of a word search, in one statement: every match scored through its
 * tip_hours rows, ordered, counted (`count(*) over ()`) and paged, with the window's edge
 * (windowEdge) read beside it. Without filters it runs only when scoring each match is the
 * cheaper plan (see PER_MATCH_FLOOR: the bound on the matches from search_word_counts against
 * the window's tip_hours rows), else reads nothing: the scored things are then read first (findPage).
 * Undefined when the page came back empty (no match, a page past the end, or the other plan):
 * the caller then searches as findPage does.
 */
async function scoredMatchesPage(
  read: Read,
  c: SearchCriteria,
  w: { since: number; trend: boolean } | undefined,
): Promise<SearchPage | undefined> {
  const m = matches('postgres', c, c.words, false);
  const order = matchOrder(c, matchScore('postgres', c, sql`m.id`));
  const bound = matchBound(c);
  const few = bound
    ? sql` where ${bound} <= ${PER_MATCH_FLOOR}
        or ${bound} <= least(${SCORE_EACH_MATCH_UP_TO}, ${PER_MATCH_FLOOR} + ${scoredRows(c)})`
    : sql``;
  const edge = w ? sql`, ${edgeColumns(c, w)}` : sql``;
  const rows = await read(
    sql<{ id: number | string; total: number | string } & EdgeTips>`select m.id as id, count(*) over () as total${edge}
      from (${m}) as m${few} order by ${order} limit ${c.count} offset ${(c.page - 1) * c.count}`,
  );
  if (rows.length === 0) return undefined;
  const page: SearchPage = { total: Number(rows[0]!.total), ids: rows.map((row) => Number(row.id)) };
  const changesAt = w && edgeOf(c, w, rows[0]!);
  return changesAt === undefined ? page : { ...page, changesAt };
}

/** searchThingIds but the window's edge. */
async function findPage(database: Database, c: SearchCriteria, knownTotal: number | undefined): Promise<SearchPage> {
  const { engine } = database;
  const read = reader(database);
  const m = matches(engine, c, c.words, c.sort === 'relevance' && c.words !== undefined);
  const offset = (c.page - 1) * c.count;
  if (engine === 'postgres' && c.words) {
    if (c.sort === 'relevance') {
      const operator = await searchRanking(database);
      const ranked = operator ? await rankedWordSearch(read, c, operator, offset, knownTotal) : undefined;
      return ranked ?? postgresWordSearch(read, engine, c, m, offset);
    }
    // A tip sort: the bound on the matches against PER_MATCH_FLOOR says which plan is cheaper.
    const scored = scores(engine, c);
    const bound = matchBound(c);
    if (scored && bound) {
      const [r] = await read(sql<{ bound: number | string; rows: number | string | null }>`select ${bound} as bound,
        case when ${bound} > ${PER_MATCH_FLOOR} then ${scoredRows(c)} end as rows`);
      const most = Number(r?.bound ?? 0);
      if (most > Math.min(SCORE_EACH_MATCH_UP_TO, PER_MATCH_FLOOR + Number(r?.rows ?? 0))) {
        const total = knownTotal ?? (await wordCount(read, engine, c)) ?? (await count(read, m));
        return { total, ids: await scoredFirstIds(read, c, m, scored, offset) };
      }
    }
    return postgresWordSearch(read, engine, c, m, offset);
  }
  const perMatch = c.words ? matchScore(engine, c, sql`m.id`) : undefined;
  const scored = perMatch ? undefined : scores(engine, c);
  if (scored) return scoredSearch(read, c, m, scored, offset, knownTotal);
  return pageAndTotal(database, c, m, matchOrder(c, perMatch), offset, knownTotal);
}

/**
 * The order of the matches `m` of a page query: by `perMatch` score — a word search with a tip
 * sort scores each match through its tip_hours rows: the matches are few next to the
 * tips of a window — else by rank for a word search by relevance, else newest first.
 */
function matchOrder(c: SearchCriteria, perMatch: RawBuilder<unknown> | undefined): RawBuilder<unknown> {
  if (perMatch) return sql`${perMatch} desc, m.id desc`;
  return c.words && c.sort === 'relevance' ? sql`m.rank, m.id desc` : sql`m.id desc`;
}

/**
 * A tip sort without words: the scored things (few) drive, the matches are one set to probe (not
 * a join per match); then the unscored matches, newest first.
 */
async function scoredSearch(
  read: Read,
  c: SearchCriteria,
  m: RawBuilder<unknown>,
  scored: RawBuilder<unknown>,
  offset: number,
  knownTotal: number | undefined,
): Promise<SearchPage> {
  const total = knownTotal ?? (await count(read, m));
  if (total <= offset) return { total, ids: [] };
  const scoredMatches = sql`select s.thing_id as id, s.score as score from (${scored}) as s where s.thing_id in (select m.id from (${m}) as m)`;
  const scoredTotal = await count(read, scoredMatches);
  const pageIds =
    offset < scoredTotal
      ? await ids(read, sql`${scoredMatches} order by s.score desc, s.thing_id desc limit ${c.count} offset ${offset}`)
      : [];
  if (pageIds.length < c.count) {
    const rest = sql`select m.id as id from (${m}) as m where m.id not in (select thing_id from (${scored}) as s)`;
    pageIds.push(
      ...(await ids(
        read,
        sql`${rest} order by m.id desc limit ${c.count - pageIds.length} offset ${Math.max(0, offset - scoredTotal)}`,
      )),
    );
  }
  return { total, ids: pageIds };
}

/**
 * PostgreSQL, one statement: the ids of one page of the matches `m` ordered as scoredSearch
 * orders them — the scored matches by score, then the other matches newest first. The scores are
 * computed once (a materialized CTE); each part reads at most `offset + count` rows in its order
 * (the unscored part walks the newest matches first), and the page is cut from their union.
 */
async function scoredFirstIds(
  read: Read,
  c: SearchCriteria,
  m: RawBuilder<unknown>,
  scored: RawBuilder<unknown>,
  offset: number,
): Promise<number[]> {
  const reach = offset + c.count;
  return ids(
    read,
    sql`with s as materialized (${scored})
      select x.id as id from (
        (select s.thing_id as id, s.score::float8 as score from s
          where s.thing_id in (select m.id from (${m}) as m)
          order by s.score desc, s.thing_id desc limit ${reach})
        union all
        (select m.id as id, 0::float8 as score from (${m}) as m
          where m.id not in (select s.thing_id from s)
          order by m.id desc limit ${reach})
      ) as x order by x.score desc, x.id desc limit ${c.count} offset ${offset}`,
  );
}

/**
 * PostgreSQL: how many things a search of one word without filters matches, read from
 * search_word_counts (migration 0013: the visible things holding each word, kept by the database)
 * plus, with a viewer, their own hidden matches; undefined when that does not answer it (SQLite, no
 * words, several words or a word PostgreSQL splits into several, any filter), and the caller
 * counts the matches. Exact: the same lexeme the search's tsquery holds (a stop word has none, and
 * matches nothing).
 */
async function wordCount(read: Read, engine: Engine, c: SearchCriteria): Promise<number | undefined> {
  if (engine !== 'postgres' || c.words?.length !== 1 || columnConditions(c).length > 0 || c.tags) return undefined;
  const word = c.words[0]!;
  const own =
    c.viewerUserId === undefined
      ? sql`0`
      : sql`(select count(*) from ${PG_SEARCHED} where things.owner_user_id = ${c.viewerUserId} and things.hidden <> 0
          and things.deleted_at is null and things.search_vector @@ plainto_tsquery('english', ${word}))`;
  const [r] = await read(
    sql<{ nodes: number | string; n: number | string | null; own: number | string }>`select
      numnode(plainto_tsquery('english', ${word})) as nodes,
      (select w.things from search_word_counts as w where w.word = (tsvector_to_array(to_tsvector('english', ${word})))[1]) as n,
      ${own} as own`,
  );
  if (!r || Number(r.nodes) > 1) return undefined;
  return Number(r.n ?? 0) + Number(r.own);
}

/**
 * PostgreSQL: an upper bound of the visible things a word search without filters matches, as SQL
 * (a scalar): the fewest things holding any one of its lexemes (search_word_counts; the words must
 * all occur, and the tsquery holds the lexemes to_tsvector makes of them), 0 when a lexeme is
 * held by none or the words make none (stop words). For one word of one lexeme, the count itself.
 * Undefined with a filter (tags, category, language, owner, url), whose matches it cannot bound.
 */
function matchBound(c: SearchCriteria): RawBuilder<number | string> | undefined {
  if (!c.words?.length || columnConditions(c).length > 0 || c.tags) return undefined;
  return sql<number | string>`(select coalesce(min(coalesce(w.things, 0)), 0)
    from unnest(tsvector_to_array(to_tsvector('english', ${c.words.join(' ')}))) as l(word)
    left join search_word_counts as w on w.word = l.word)`;
}

/**
 * PostgreSQL: the RUM distance operator (`OPERATOR(<schema>.<=>)`) when this database's things
 * have the ranked index of migration 0011_search_ranked, else null. Asked once per database and
 * kept: an index created later is used after a restart.
 */
const rankings = new WeakMap<Database, Promise<RawBuilder<unknown> | null>>();

function searchRanking(database: Database): Promise<RawBuilder<unknown> | null> {
  let ranking = rankings.get(database);
  if (!ranking) {
    ranking = sql<{ schema: string }>`select n.nspname as schema
        from pg_extension e join pg_namespace n on n.oid = e.extnamespace
        where e.extname = 'rum'
          and exists (select 1 from pg_indexes where schemaname = current_schema() and indexname = ${RANKED_INDEX})`
      .execute(database.db)
      .then(({ rows }) => (rows[0] ? sql.raw(`operator("${rows[0].schema.replaceAll('"', '""')}".<=>)`) : null));
    // A failed look-up is asked again next time.
    ranking.catch(() => rankings.delete(database));
    rankings.set(database, ranking);
  }
  return ranking;
}

/**
 * PostgreSQL, the plan of a tip sort of a word search without filters, whose matches M are at
 * most the bound B of matchBound (M itself for one word). Scoring each match costs a visit of its
 * row and a probe of tip_hours, in proportion to M; reading the scored things first costs three
 * statements in a row (B and the window's rows, the count of the matches — one word's comes from
 * search_word_counts —, scoredFirstIds: together as much as scoring a few thousand matches whose
 * rows are in shared buffers, a few hundred read from the OS) plus a visit of each tip_hours row
 * R of the window. Each match is scored when B ≤ PER_MATCH_FLOOR + R and B ≤
 * SCORE_EACH_MATCH_UP_TO; R is counted up to SCORE_EACH_MATCH_UP_TO + 1 only (scoredRows), and
 * only when B > PER_MATCH_FLOOR. With filters no bound is known: each match is scored.
 */
const PER_MATCH_FLOOR = 2_000;
const SCORE_EACH_MATCH_UP_TO = 10_000;

/**
 * How many tip_hours rows the scores of a tip sort read (scores): those of the window, or for
 * `tips` all of them; counted up to SCORE_EACH_MATCH_UP_TO + 1 (an index-only range of tip_hours_hour).
 */
function scoredRows(c: SearchCriteria): RawBuilder<unknown> {
  const w = windowOf(c);
  const rows = w
    ? sql`select 1 from tip_hours as h where ${hoursOf(c, w)} limit ${SCORE_EACH_MATCH_UP_TO + 1}`
    : sql`select 1 from tip_hours limit ${SCORE_EACH_MATCH_UP_TO + 1}`;
  return sql`(select count(*) from (${rows}) as r)`;
}

/**
 * Rows a ranked search reads beyond the end of its page, so that ties at the page's edge are seen
 * whole. RUM ranks every match on each read whatever its limit, so each row read ahead costs only
 * its heap visit, while a tie group longer than the read-ahead costs ranking every match again
 * (rankedWordSearch); a broad word's groups of equal distance run to hundreds of rows.
 */
export const RANKED_SLACK = 1000;

/**
 * PostgreSQL with the ranked index: a word search by relevance reads the first
 * `offset + count + RANKED_SLACK` visible matches in rank order from the index (RUM's distance,
 * the inverse of ts_rank for one word), plus the viewer's own hidden matches (few, ranked one by
 * one), and orders them by distance, then newest first. That page is exact when the index had no
 * more matches, or when the page's last distance is below the last one read (every match at or
 * before it was read, ties included); otherwise undefined: the caller ranks every match. The
 * matches are counted only when the index had more than were read.
 */
async function rankedWordSearch(
  read: Read,
  c: SearchCriteria,
  operator: RawBuilder<unknown>,
  offset: number,
  knownTotal: number | undefined,
): Promise<SearchPage | undefined> {
  const full = sql`plainto_tsquery('english', ${c.words!.join(' ')})`;
  const distance = sql`(things.search_vector ${operator} ${full})`;
  const filters = [sql`things.search_vector @@ ${full}`, ...columnConditions(c)];
  if (c.tags) filters.push(tagCondition(c.tags, sql`things.id`, 'row'));
  const limit = offset + c.count + RANKED_SLACK;
  const visible = sql`select things.id as id, ${distance} as d, 0 as hidden from ${PG_SEARCHED}
    where ${and([sql`things.deleted_at is null`, sql`things.hidden = 0`, ...filters])}
    order by ${distance} limit ${limit}`;
  const own =
    c.viewerUserId === undefined
      ? sql``
      : sql` union all select things.id as id, ${distance} as d, 1 as hidden from ${PG_SEARCHED}
    where ${and([sql`things.deleted_at is null`, sql`things.owner_user_id = ${c.viewerUserId}`, sql`things.hidden <> 0`, ...filters])}`;
  const rows = await read(
    sql<{
      id: number | string;
      d: number;
      hidden: number;
    }>`select r.id as id, r.d as d, r.hidden as hidden from (${visible}) as r${own}`,
  );
  const visibleRead = rows.filter((r) => r.hidden === 0);
  const complete = visibleRead.length < limit;
  const ordered = rows.map((r) => ({ id: Number(r.id), d: Number(r.d) })).sort((a, b) => a.d - b.d || b.id - a.id);
  const page = ordered.slice(offset, offset + c.count);
  if (!complete) {
    const edge = Math.max(...visibleRead.map((r) => Number(r.d)));
    const last = page.length ? page[page.length - 1]!.d : Infinity;
    if (!(last < edge)) return undefined;
  }
  const total = complete
    ? rows.length
    : (knownTotal ??
      (await wordCount(read, 'postgres', c)) ??
      (await count(read, matches('postgres', c, c.words, false))));
  return { total, ids: page.map((r) => r.id) };
}

/**
 * PostgreSQL with words: the tsquery test (and the rank) is the cost, so the matches are read once
 * — count, score and page in one query (`count(*) over ()`); the matches of a word search are
 * few enough to order whole. A second query counts only when the page is past the end.
 */
async function postgresWordSearch(
  read: Read,
  engine: Engine,
  c: SearchCriteria,
  m: RawBuilder<unknown>,
  offset: number,
): Promise<SearchPage> {
  const order = matchOrder(c, matchScore(engine, c, sql`m.id`));
  const rows = await read(
    sql<{
      id: number | string;
      total: number | string;
    }>`select m.id as id, count(*) over () as total from (${m}) as m order by ${order} limit ${c.count} offset ${offset}`,
  );
  if (rows.length === 0) return { total: offset === 0 ? 0 : await count(read, m), ids: [] };
  return { total: Number(rows[0]!.total), ids: rows.map((row) => Number(row.id)) };
}

const searchChangesStatement = precompiled((ex: Executor) => ({
  compile: () => sql<{ things: number }>`select things from search_changes where id = 1`.compile(ex),
}));

/**
 * The counter of committed writes that can change what a search matches, by any instance or
 * process (`search_changes`: migration 0012 on PostgreSQL, 0014 on SQLite); undefined when its
 * row is missing. A value read before a search is never newer than what the search then sees.
 * On PostgreSQL's own handle one read answers every caller of the same turn of the event loop,
 * sent after all of them asked (db/batched.ts).
 */
export function readSearchChanges(database: Database): Promise<number | undefined> {
  return searchChangesBatched(database.db, 0);
}

const readSearchChangesOnce = async (ex: Executor): Promise<number | undefined> => {
  const [r] = await searchChangesStatement(ex);
  return r ? Number(r.things) : undefined;
};

const searchChangesBatched = turnBatched<0, number | undefined>(async (ex, asked) => {
  const value = await readSearchChangesOnce(ex);
  return asked.map(() => value);
}, readSearchChangesOnce);

/** Most pages (4 KiB) FTS5 writes in one step of mergeSearchIndex: one step is one short write transaction. */
const MERGE_STEP_PAGES = 2000;
/** A bound on mergeSearchIndex's steps per index (far above what any catalogue needs: ≈ 12 at 1M things). */
const MERGE_MAX_STEPS = 10_000;

/**
 * SQLite, after a bulk load of things: merges each full-text index (things_fts, things_fts_hidden)
 * into one segment. FTS5 writes a segment per transaction and merges them only in groups, so
 * after a load a word's lookup reads every segment left. The merge runs in steps of at most
 * MERGE_STEP_PAGES pages, each its own transaction, so other writers (a running server's tips)
 * wait at most one step; it stops when a step merged nothing (FTS5's 'merge' command with a
 * negative page count, which merges across levels). Searches find the same things before and
 * after. Nothing on PostgreSQL (its GIN index has no segments).
 * @returns how many steps wrote something, over both indexes
 */
export async function mergeSearchIndex(database: Database): Promise<number> {
  if (database.engine !== 'sqlite') return 0;
  const changes = async () =>
    Number((await sql<{ n: number }>`select total_changes() as n`.execute(database.db)).rows[0]!.n);
  let steps = 0;
  for (const table of ['things_fts', 'things_fts_hidden']) {
    const fts = sql.raw(table);
    for (let i = 0; i < MERGE_MAX_STEPS; i++) {
      const before = await changes();
      await sql`insert into ${fts}(${fts}, rank) values ('merge', ${-MERGE_STEP_PAGES})`.execute(database.db);
      // FTS5 counts two or more changes for a step that merged something, fewer for one that found nothing.
      if ((await changes()) - before < 2) break;
      steps++;
    }
  }
  return steps;
}
