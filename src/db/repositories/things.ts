/** Things and their tags. Deleted things (deleted_at set) are invisible to every read here. */
import { sql } from 'kysely';
import { recordChange, type Database, type Executor } from '../transaction.ts';
import { RAW_ROWS } from '../raw-rows.ts';
import { precompiled } from '../precompiled.ts';
import { batchedReads } from '../batched.ts';
import { pgDirect, sqliteDirect } from '../direct.ts';
import type { OwnerRef, PageRequest, ThingRecord } from '../../domain/records.ts';
import type { NewThing, ThingFields } from '../../domain/thing-input.ts';

/** The columns of a ThingRecord (things joined with the owner as `users`), for every thing read. */
export const THING_COLUMNS = [
  'things.id',
  'things.url',
  'things.title',
  'things.description',
  'things.category',
  'things.language',
  'things.tags',
  'things.image',
  'things.hidden',
  'things.owner_user_id',
  'things.owner_identity',
  'things.tips',
  'things.tips_user_count',
  'things.last_tip_at',
  'things.created_at',
  'things.updated_at',
  'users.username as owner_username',
] as const;

export interface ThingRow {
  id: number;
  url: string;
  title: string;
  description: string;
  category: string;
  language: string;
  tags: string;
  image: string;
  hidden: number;
  owner_user_id: number | null;
  owner_identity: string | null;
  tips: number;
  tips_user_count: number;
  last_tip_at: number | null;
  created_at: number;
  updated_at: number;
  owner_username: string | null;
}

export function toThingRecord(r: ThingRow): ThingRecord {
  const owner: OwnerRef =
    r.owner_user_id !== null
      ? { kind: 'user', userId: r.owner_user_id, username: r.owner_username ?? '' }
      : { kind: 'identity', identity: r.owner_identity ?? '' };
  return {
    id: r.id,
    url: r.url,
    title: r.title,
    description: r.description,
    category: r.category,
    language: r.language,
    tags: r.tags ? r.tags.split(',') : [],
    image: r.image,
    hidden: r.hidden === 1,
    owner,
    tips: r.tips,
    tipsUserCount: r.tips_user_count,
    lastTipAt: r.last_tip_at ?? 0,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function selectThings(ex: Executor) {
  return ex
    .selectFrom('things')
    .leftJoin('users', 'users.id', 'things.owner_user_id')
    .select(THING_COLUMNS)
    .where('things.deleted_at', 'is', null);
}

const thingById = precompiled((ex: Executor, id: number) => selectThings(ex).where('things.id', '=', id));
const thingsByIds = precompiled((ex: Executor, ids: number[]) =>
  selectThings(ex).where(sql<boolean>`things.id = any(${ids}::bigint[])`),
);
const thingByIdBatched = batchedReads(thingById, thingsByIds, (r) => r.id);

/**
 * The live thing with this id (the hot read of GET /things/:id and of every tip); on
 * PostgreSQL's own handle read together with the other requests' of the same moment (db/batched.ts).
 */
export async function findThingById(ex: Executor, id: number): Promise<ThingRecord | undefined> {
  const r = await thingByIdBatched(ex, id);
  return r && toThingRecord(r);
}

const thingVersionById = precompiled((ex: Executor, id: number) =>
  ex
    .selectFrom('things')
    .select(['things.id', sql<string>`things.xmin::text`.as('version')])
    .where('things.deleted_at', 'is', null)
    .where('things.id', '=', id),
);
const thingVersionsByIds = precompiled((ex: Executor, ids: number[]) =>
  ex
    .selectFrom('things')
    .select(['things.id', sql<string>`things.xmin::text`.as('version')])
    .where('things.deleted_at', 'is', null)
    .where(sql<boolean>`things.id = any(${ids}::bigint[])`),
);
const thingVersionBatched = batchedReads(thingVersionById, thingVersionsByIds, (r) => r.id);

/**
 * PostgreSQL: the version of each live thing's row among `ids` (its `xmin`, as text: it moves with
 * every committed write of the row, by any instance, its counters included), in the order of
 * `ids`, undefined for a deleted or unknown id. On the database's own handle each id joins the
 * point reads of the same moment (db/batched.ts).
 * @throws Error on SQLite, which has no row versions (domain/search/change-log.ts keeps its own)
 */
export async function findThingVersions(ex: Executor, ids: readonly number[]): Promise<(string | undefined)[]> {
  const rows = await Promise.all(ids.map((id) => thingVersionBatched(ex, id)));
  return rows.map((r) => r?.version);
}

/** The position of each ThingRow field in THING_COLUMNS (in a raw row's values). */
const AT = Object.fromEntries(
  THING_COLUMNS.map((c, i) => [c.replace(/^.* as /, '').replace(/^.*\./, ''), i]),
) as Record<keyof ThingRow, number>;

/** The live things' select (THING_COLUMNS) as SQL, for raw-row reads. */
const THING_SELECT_SQL = `select ${THING_COLUMNS.join(', ')} from things left join users on users.id = things.owner_user_id where things.deleted_at is null`;

/**
 * A row of a RAW_ROWS query (an array on SQLite, an object on PostgreSQL) as a ThingRow; written
 * as one object literal, so every row has the same shape (the hot reads of GET /things/:id and of
 * search pages).
 */
function thingRow(r: unknown): ThingRow {
  if (!Array.isArray(r)) return r as ThingRow;
  return {
    id: r[AT.id],
    url: r[AT.url],
    title: r[AT.title],
    description: r[AT.description],
    category: r[AT.category],
    language: r[AT.language],
    tags: r[AT.tags],
    image: r[AT.image],
    hidden: r[AT.hidden],
    owner_user_id: r[AT.owner_user_id],
    owner_identity: r[AT.owner_identity],
    tips: r[AT.tips],
    tips_user_count: r[AT.tips_user_count],
    last_tip_at: r[AT.last_tip_at],
    created_at: r[AT.created_at],
    updated_at: r[AT.updated_at],
    owner_username: r[AT.owner_username],
  };
}

/** The SQL of one live thing by id, in raw rows (RAW_ROWS). */
const THING_BY_ID_RAW_SQL = `${RAW_ROWS}${THING_SELECT_SQL} and things.id = ?`;

/**
 * findThingById, answered at once where the read can run at once: on a SQLite database's own
 * handle while no transaction is open on its connection (db/direct.ts), the record or undefined;
 * anywhere else a promise of findThingById's answer.
 */
export function findThingByIdNow(ex: Executor, id: number): ThingRecord | undefined | Promise<ThingRecord | undefined> {
  const direct = sqliteDirect(ex);
  if (!direct || direct.inTransaction()) return findThingById(ex, id);
  const row = direct.statement(THING_BY_ID_RAW_SQL).all([id])[0];
  return row === undefined ? undefined : toThingRecord(thingRow(row));
}

/**
 * Things by id, each once, in no particular order, deleted and unknown ids left out (the hot
 * read of list and search pages). On PostgreSQL's own handle each id joins the point reads of the
 * same moment (findThingById: one statement for every request of the turn); elsewhere one
 * statement of raw rows (see RAW_ROWS).
 */
export async function findThingsByIds(ex: Executor, ids: number[]): Promise<ThingRecord[]> {
  if (ids.length === 0) return [];
  if (pgDirect(ex)) {
    const rows = await Promise.all([...new Set(ids)].map((id) => thingByIdBatched(ex, id)));
    return rows.filter((r) => r !== undefined).map(toThingRecord);
  }
  const r = await sql<unknown>`${sql.raw(RAW_ROWS + THING_SELECT_SQL)} and things.id in (${sql.join(ids)})`.execute(ex);
  return r.rows.map((row) => toThingRecord(thingRow(row)));
}

export async function findThingByUrlKey(ex: Executor, key: string): Promise<ThingRecord | undefined> {
  const r = await selectThings(ex).where('things.url_key', '=', key).executeTakeFirst();
  return r && toThingRecord(r);
}

/** A user's things, newest first; hidden ones only when `includeHidden`. */
export async function listThingsByOwner(
  ex: Executor,
  ownerUserId: number,
  opts: PageRequest & { includeHidden: boolean },
): Promise<ThingRecord[]> {
  let q = selectThings(ex).where('things.owner_user_id', '=', ownerUserId);
  if (!opts.includeHidden) q = q.where('things.hidden', '=', 0);
  const rows = await q
    .orderBy('things.created_at', 'desc')
    .orderBy('things.id', 'desc')
    .limit(opts.count)
    .offset((opts.page - 1) * opts.count)
    .execute();
  return rows.map(toThingRecord);
}

/**
 * The most used tags (thing_tags, lower-cased) over things that are neither hidden nor deleted, with
 * how many such things carry each: most first, then by tag; at most `limit`. A scan of thing_tags
 * joined to things (≈ 0.45 s on SQLite, 0.2 s on PostgreSQL for 200,000 things of 3 tags): on
 * SQLite it runs on the read thread (Database.offThread), beside the event loop.
 */
export async function listPopularTags(database: Database, limit: number): Promise<{ tag: string; things: number }[]> {
  const { db, offThread } = database;
  const query = db
    .selectFrom('thing_tags')
    .innerJoin('things', 'things.id', 'thing_tags.thing_id')
    .select(['thing_tags.tag as tag', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('things.hidden', '=', 0)
    .where('things.deleted_at', 'is', null)
    .groupBy('thing_tags.tag')
    .orderBy('n', 'desc')
    .orderBy('thing_tags.tag')
    .limit(limit);
  const rows = offThread ? await offThread(query.compile()) : await query.execute();
  return rows.map((r) => ({ tag: r.tag, things: Number(r.n) }));
}

/** Tags as stored in the things row (one string) and in thing_tags (one lower-cased row each). */
export const joinTags = (tags: string[]): string => tags.join(',');

async function writeTags(ex: Executor, thingId: number, tags: string[]): Promise<void> {
  const keys = [...new Set(tags.map((t) => t.toLowerCase()))];
  if (keys.length)
    await ex
      .insertInto('thing_tags')
      .values(keys.map((tag) => ({ thing_id: thingId, tag })))
      .execute();
}

/**
 * Inserts a thing with its tags (in a transaction: the change is announced after its commit).
 * @throws a unique violation when a live thing already has the same url_key.
 */
export async function insertThing(
  ex: Executor,
  t: NewThing,
  owner: { userId: number } | { identity: string },
  now: number,
): Promise<number> {
  const r = await ex
    .insertInto('things')
    .values({
      url: t.url,
      url_key: t.urlKey,
      title: t.title,
      description: t.description,
      category: t.category,
      language: t.language,
      tags: joinTags(t.tags),
      image: '',
      hidden: t.hidden ? 1 : 0,
      owner_user_id: 'userId' in owner ? owner.userId : null,
      owner_identity: 'identity' in owner ? owner.identity : null,
      created_at: now,
      updated_at: 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await writeTags(ex, r.id, t.tags);
  recordChange(ex, { kind: 'things', ids: [r.id], matching: true });
  return r.id;
}

/** Applies validated changes and sets updated_at. */
export async function updateThing(ex: Executor, id: number, changes: Partial<ThingFields>, now: number): Promise<void> {
  const values: Record<string, unknown> = { updated_at: now };
  for (const k of ['title', 'description', 'category', 'language'] as const)
    if (changes[k] !== undefined) values[k] = changes[k];
  if (changes.hidden !== undefined) values.hidden = changes.hidden ? 1 : 0;
  if (changes.tags !== undefined) values.tags = joinTags(changes.tags);
  await ex.updateTable('things').set(values).where('id', '=', id).execute();
  if (changes.tags !== undefined) {
    await ex.deleteFrom('thing_tags').where('thing_id', '=', id).execute();
    await writeTags(ex, id, changes.tags);
  }
  recordChange(ex, { kind: 'things', ids: [id], matching: true });
}

/** Marks a thing deleted; its tips stay (DECISIONS.md: a deleted thing's tips stay in the ledger). */
export async function softDeleteThing(ex: Executor, id: number, now: number): Promise<void> {
  await ex.updateTable('things').set({ deleted_at: now }).where('id', '=', id).execute();
  await ex.deleteFrom('thing_tags').where('thing_id', '=', id).execute();
  recordChange(ex, { kind: 'things', ids: [id], matching: true });
}

/**
 * Inserts many visible things of one owner with their tags (a bulk load), skipping those whose
 * url_key a live thing already has (also within `things`: the first one wins).
 * @param now Unix seconds, the things' `created_at`
 * @returns the ids of the things inserted (none for the skipped ones), in no particular order.
 */
export async function insertThingsIfNew(
  ex: Executor,
  things: NewThing[],
  ownerUserId: number,
  now: number,
): Promise<number[]> {
  if (things.length === 0) return [];
  const inserted = await ex
    .insertInto('things')
    .values(
      things.map((t) => ({
        url: t.url,
        url_key: t.urlKey,
        title: t.title,
        description: t.description,
        category: t.category,
        language: t.language,
        tags: joinTags(t.tags),
        hidden: 0,
        owner_user_id: ownerUserId,
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.column('url_key').where('deleted_at', 'is', null).doNothing())
    .returning(['id', 'url_key'])
    .execute();
  if (inserted.length === 0) return [];
  recordChange(ex, { kind: 'things', ids: inserted.map((r) => r.id), matching: true });
  const byKey = new Map(things.map((t) => [t.urlKey, t]));
  const tagRows = inserted.flatMap((r) =>
    [...new Set(byKey.get(r.url_key)!.tags.map((t) => t.toLowerCase()))].map((tag) => ({ thing_id: r.id, tag })),
  );
  for (let i = 0; i < tagRows.length; i += TAG_ROWS_PER_INSERT)
    await ex
      .insertInto('thing_tags')
      .values(tagRows.slice(i, i + TAG_ROWS_PER_INSERT))
      .execute();
  return inserted.map((r) => r.id);
}

/** Rows of thing_tags per insert statement in a bulk load (within both engines' parameter limits). */
const TAG_ROWS_PER_INSERT = 2000;
