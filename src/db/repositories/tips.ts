/** Tips and the per-thing counters kept in step with them (same transaction). */
import { sql } from 'kysely';
import { inStatement, isRetryableConflict, recordChange, type Database, type Executor } from '../transaction.ts';
import { precompiled } from '../precompiled.ts';
import { turnBatched } from '../batched.ts';
import { TREND_HALF_LIFE } from './search.ts';
import type { PageRequest, ThingRecord, TipRecord } from '../../domain/records.ts';
import { THING_COLUMNS, toThingRecord, type ThingRow } from './things.ts';

/**
 * Inserts a tip unless the tipper already tipped the thing in `period` (unique constraint, so
 * concurrent tips cannot both succeed), and counts it in its thing's hour of tip_hours (the
 * windows of the search sorts).
 * @returns the new tip's id, or undefined when it already existed (the caller answers tip_once).
 */
export async function insertTipOnce(
  ex: Executor,
  tip: {
    thingId: number;
    tipperId: number;
    period: string;
    now: number;
    source: 'api' | 'subscription';
    clientId: number | null;
  },
): Promise<number | undefined> {
  const [r] = await insertTipStatement(ex, tip.thingId, tip.tipperId, tip.period, tip.now, tip.source, tip.clientId);
  if (!r) return undefined;
  const hour = Math.floor(tip.now / 3600);
  await countTipHourStatement(
    ex,
    tip.thingId,
    hour,
    tip.now,
    tip.now,
    2 ** ((tip.now - hour * 3600) / TREND_HALF_LIFE),
  );
  recordChange(ex, { kind: 'tip', thingId: tip.thingId });
  return r.id;
}

/**
 * PostgreSQL: locks the thing's row for the rest of the transaction (as an update of its counters
 * would), before anything else of a tip is written. Every tip locks its thing first — here, or in
 * the one statement of tipAtOnce — and only then its `tip_hours` row and its counters, so two
 * tips of one thing wait for each other instead of deadlocking. SQLite has one writer at a time:
 * nothing to do.
 */
export async function lockThingForTip(ex: Executor, engine: 'sqlite' | 'postgres', thingId: number): Promise<void> {
  if (engine === 'postgres')
    await ex.selectFrom('things').select('id').where('id', '=', thingId).forNoKeyUpdate().execute();
}

/** One statement: the tip in its thing's hour of tip_hours (migration 0005_tip_hours). */
const countTipHourStatement = precompiled(
  (ex: Executor, thingId: number, hour: number, firstAt: number, lastAt: number, weight: number) =>
    ex
      .insertInto('tip_hours')
      .values({ thing_id: thingId, hour, tips: 1, first_at: firstAt, last_at: lastAt, weight })
      .onConflict((oc) =>
        oc.columns(['thing_id', 'hour']).doUpdateSet({
          tips: sql`tip_hours.tips + 1`,
          first_at: sql`case when excluded.first_at < tip_hours.first_at then excluded.first_at else tip_hours.first_at end`,
          last_at: sql`case when excluded.last_at > tip_hours.last_at then excluded.last_at else tip_hours.last_at end`,
          weight: sql`tip_hours.weight + excluded.weight`,
        }),
      ),
);

const insertTipStatement = precompiled(
  (
    ex: Executor,
    thingId: number,
    tipperId: number,
    period: string,
    now: number,
    source: string,
    clientId: number | null,
  ) =>
    ex
      .insertInto('tips')
      .values({ thing_id: thingId, tipper_id: tipperId, period, created_at: now, source, client_id: clientId })
      .onConflict((oc) => oc.columns(['thing_id', 'tipper_id', 'period']).doNothing())
      .returning('id'),
);

/** What tipAtOnce did: the outcome and, when the thing exists, the thing (with its counters after the tip). */
export type TipAtOnce =
  | { outcome: 'not_found' }
  | { outcome: 'tip_owner' | 'no_means' | 'tip_once' | 'pending'; thing: ThingRecord }
  | { outcome: 'tipped'; thing: ThingRecord; tipId: number };

/** A tip for tipAtOnce: times in Unix seconds, `period` 'YYYY-MM'. */
export interface TipAtOnceInput {
  thingId: number;
  tipperId: number;
  period: string;
  now: number;
  source: 'api';
  clientId: number | null;
}

/**
 * PostgreSQL: a tip on a thing owned by a user in one call of the function `tips_at_once`
 * (migration 0015_tips_at_once: one statement of data-modifying common table expressions per tip,
 * one implicit transaction), with what tipThing's transaction writes — the tip (ON CONFLICT on
 * tips_once_per_period: concurrent tips cannot both win), its hour of tip_hours, the period's
 * budget on the tipper's first tip of the period, the thing's counters, the `like` activity — and
 * the same checks in the same order: the thing exists and is not deleted (`not_found`), the tipper
 * is not its owner (`tip_owner`), the tipper has means (`no_means`: the rule of
 * domain/money/means.ts hasMeans), one tip per thing, tipper and period (`tip_once`). Nothing is
 * written unless every check passes. The tips asked during one turn of the event loop go in one
 * call (db/batched.ts), ordered by thing so that batches lock things in one order; it commits them
 * all before any is answered. A thing owned by an identity (pending) is left to the transaction
 * (`pending`, nothing written): its tip queues a partner webhook too.
 * Serialization failures and deadlocks are retried like a transaction's (db/transaction.ts); a
 * batch failing otherwise is run again tip by tip, so each tip gets its own outcome or error.
 * @returns the outcome, or undefined on SQLite (its group commit already writes a tip's statements
 *   without a round trip each: the caller runs the transaction).
 */
export async function tipAtOnce(database: Database, t: TipAtOnceInput): Promise<TipAtOnce | undefined> {
  if (database.engine !== 'postgres') return undefined;
  const r = await inStatement(database, (ex) => tipBatched(ex, t));
  if (!r || r.id === null) return { outcome: 'not_found' };
  const thing = toThingRecord(r as ThingRow);
  if (r.owner_user_id === null) return { outcome: 'pending', thing };
  if (r.owner_user_id === t.tipperId) return { outcome: 'tip_owner', thing };
  if (!r.has_means) return { outcome: 'no_means', thing };
  if (r.tip_id === null || r.tips_after === null) return { outcome: 'tip_once', thing };
  recordChange(database.db, { kind: 'tip', thingId: t.thingId });
  recordChange(database.db, { kind: 'things', ids: [t.thingId], matching: false });
  return { outcome: 'tipped', thing: { ...thing, tips: r.tips_after, lastTipAt: t.now }, tipId: r.tip_id };
}

type TipAtOnceRow = { [K in keyof ThingRow]: ThingRow[K] | null } & {
  ord: number;
  has_means: boolean | null;
  tip_id: number | null;
  tips_after: number | null;
};

const tipsAtOnceStatement = precompiled(
  (
    ex: Executor,
    thingIds: number[],
    tipperIds: number[],
    periods: string[],
    ats: number[],
    sources: string[],
    clientIds: (number | null)[],
    hours: number[],
    weights: number[],
  ) => {
    const query = sql<TipAtOnceRow>`select * from tips_at_once(${thingIds}::bigint[], ${tipperIds}::bigint[],
      ${periods}::text[], ${ats}::bigint[], ${sources}::text[], ${clientIds}::bigint[], ${hours}::bigint[],
      ${weights}::float8[])`;
    return { compile: () => query.compile(ex) };
  },
);

/** Runs `tips` in one call of tips_at_once, in thing order; the row of each tip, in the order of `tips`. */
async function tipsAtOnce(ex: Executor, tips: readonly TipAtOnceInput[]): Promise<TipAtOnceRow[]> {
  const order = tips.map((_, i) => i).sort((a, b) => tips[a]!.thingId - tips[b]!.thingId);
  const sorted = order.map((i) => tips[i]!);
  const hours = sorted.map((t) => Math.floor(t.now / 3600));
  const rows = await tipsAtOnceStatement(
    ex,
    sorted.map((t) => t.thingId),
    sorted.map((t) => t.tipperId),
    sorted.map((t) => t.period),
    sorted.map((t) => t.now),
    sorted.map((t) => t.source),
    sorted.map((t) => t.clientId),
    hours,
    sorted.map((t, i) => 2 ** ((t.now - hours[i]! * 3600) / TREND_HALF_LIFE)),
  );
  const answers: TipAtOnceRow[] = [];
  for (const r of rows) answers[order[r.ord - 1]!] = r;
  return answers;
}

const tipBatched = turnBatched<TipAtOnceInput, TipAtOnceRow>(
  async (ex, tips) => {
    try {
      return await tipsAtOnce(ex, tips);
    } catch (err) {
      // A deadlock or serialization failure fails the whole batch: each tip's inStatement asks again.
      if (isRetryableConflict(err)) throw err;
      return Promise.all(
        tips.map((t) =>
          tipsAtOnce(ex, [t]).then(
            (rows) => rows[0]!,
            (e: unknown) => toError(e),
          ),
        ),
      );
    }
  },
  async (ex, tip) => (await tipsAtOnce(ex, [tip]))[0]!,
);

const toError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

/** One statement: the counters of a thing after a new tip (see countTipOnThing). */
const countTipStatement = precompiled((ex: Executor, thingId: number, tipperId: number, period: string, now: number) =>
  ex
    .updateTable('things')
    .set({
      tips: sql`tips + 1`,
      tips_user_count: sql`tips_user_count + case when exists (select 1 from tips as earlier where earlier.thing_id = ${thingId} and earlier.tipper_id = ${tipperId} and earlier.period <> ${period}) then 0 else 1 end`,
      last_tip_at: now,
    })
    .where('id', '=', thingId)
    .returning('tips'),
);

/**
 * Counts a new tip on its thing: `tips` + 1, `tips_user_count` + 1 when it is the tipper's first
 * tip on the thing in any period, `last_tip_at` = now.
 * @returns the thing's tip count after this tip.
 */
export async function countTipOnThing(
  ex: Executor,
  thingId: number,
  tipperId: number,
  period: string,
  now: number,
): Promise<number> {
  const [r] = await countTipStatement(ex, thingId, tipperId, period, now);
  if (!r) throw new Error(`thing ${thingId} vanished while being tipped`);
  recordChange(ex, { kind: 'things', ids: [thingId], matching: false }); // its counters, not what a search matches
  return r.tips;
}

/** Of `thingIds`, those `userId` tipped in `period` (the per-viewer `tipped` field). */
export async function tippedThingIds(
  ex: Executor,
  userId: number,
  thingIds: number[],
  period: string,
): Promise<Set<number>> {
  if (thingIds.length === 0) return new Set();
  const rows = await ex
    .selectFrom('tips')
    .select('thing_id')
    .where('tipper_id', '=', userId)
    .where('period', '=', period)
    .where('thing_id', 'in', thingIds)
    .execute();
  return new Set(rows.map((r) => r.thing_id));
}

/**
 * Tips joined with their thing and tipper. Deleted things are left out for everyone; hidden things
 * for everyone but their owner `viewerId` (DECISIONS.md "Things": filtered here, before paging).
 */
function selectTips(ex: Executor, viewerId: number | undefined) {
  return ex
    .selectFrom('tips')
    .innerJoin('things', 'things.id', 'tips.thing_id')
    .innerJoin('users as tipper', 'tipper.id', 'tips.tipper_id')
    .leftJoin('users', 'users.id', 'things.owner_user_id')
    .select([
      'tips.id as tip_id',
      'tips.created_at as tip_created_at',
      'tips.period as tip_period',
      'tipper.id as tipper_id',
      'tipper.username as tipper_username',
      ...THING_COLUMNS,
    ])
    .where('things.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('things.hidden', '=', 0), eb('things.owner_user_id', '=', viewerId ?? -1)]));
}

type TipRow = Awaited<ReturnType<ReturnType<typeof selectTips>['execute']>>[number];

function toTipRecord(r: TipRow): TipRecord {
  return {
    id: r.tip_id,
    createdAt: r.tip_created_at,
    period: r.tip_period,
    thing: toThingRecord(r),
    tipper: { id: r.tipper_id, username: r.tipper_username },
  };
}

/**
 * Tips given by a user, newest first. Tips on deleted things are left out, and tips on hidden
 * things unless `viewerId` (undefined: anonymous) owns the thing.
 */
export async function listTipsByTipper(
  ex: Executor,
  tipperId: number,
  viewerId: number | undefined,
  page: PageRequest,
): Promise<TipRecord[]> {
  const rows = await selectTips(ex, viewerId)
    .where('tips.tipper_id', '=', tipperId)
    .orderBy('tips.created_at', 'desc')
    .orderBy('tips.id', 'desc')
    .limit(page.count)
    .offset((page.page - 1) * page.count)
    .execute();
  return rows.map(toTipRecord);
}

/** How many tips listTipsByTipper lists over all its pages for `viewerId` (same filters). */
export async function countTipsByTipper(ex: Executor, tipperId: number, viewerId: number | undefined): Promise<number> {
  const r = await ex
    .selectFrom('tips')
    .innerJoin('things', 'things.id', 'tips.thing_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tips.tipper_id', '=', tipperId)
    .where('things.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('things.hidden', '=', 0), eb('things.owner_user_id', '=', viewerId ?? -1)]))
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/**
 * Tips a thing received, newest first. Tips of users who hide their tips are left out, except the
 * viewer's own; none at all when the thing is hidden and `viewerId` (undefined: anonymous) does
 * not own it. `opts.period` ('YYYY-MM'): only the tips of that period.
 */
export async function listTipsOnThing(
  ex: Executor,
  thingId: number,
  viewerId: number | undefined,
  page: PageRequest,
  opts: { period?: string } = {},
): Promise<TipRecord[]> {
  let query = selectTips(ex, viewerId).where('tips.thing_id', '=', thingId);
  if (opts.period !== undefined) query = query.where('tips.period', '=', opts.period);
  const rows = await query
    .where((eb) => eb.or([eb('tipper.hide_tips', '=', 0), eb('tipper.id', '=', viewerId ?? -1)]))
    .orderBy('tips.created_at', 'desc')
    .orderBy('tips.id', 'desc')
    .limit(page.count)
    .offset((page.page - 1) * page.count)
    .execute();
  return rows.map(toTipRecord);
}

/**
 * The newest public tips over all things, newest first: tips of live users who do not hide their
 * tips, on things that are neither hidden nor deleted (for anyone, their owner included).
 */
export async function listRecentPublicTips(ex: Executor, count: number): Promise<TipRecord[]> {
  const rows = await selectTips(ex, undefined)
    .where('tipper.hide_tips', '=', 0)
    .where('tipper.deleted_at', 'is', null)
    .orderBy('tips.created_at', 'desc')
    .orderBy('tips.id', 'desc')
    .limit(count)
    .execute();
  return rows.map(toTipRecord);
}

/** How many tips `tipperId` gave in `period` ('YYYY-MM'). */
export async function countTipsInPeriod(ex: Executor, tipperId: number, period: string): Promise<number> {
  const r = await ex
    .selectFrom('tips')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tipper_id', '=', tipperId)
    .where('period', '=', period)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The id of `tipperId`'s tip on `thingId` in `period`, if there is one (at most one: tip_once). */
export async function findTipId(
  ex: Executor,
  t: { thingId: number; tipperId: number; period: string },
): Promise<number | undefined> {
  const r = await ex
    .selectFrom('tips')
    .select('id')
    .where('thing_id', '=', t.thingId)
    .where('tipper_id', '=', t.tipperId)
    .where('period', '=', t.period)
    .executeTakeFirst();
  return r?.id;
}
