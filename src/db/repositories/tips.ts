/** Tips and the per-thing counters kept in step with them (same transaction). */
import { sql } from 'kysely';
import { recordChange, type Executor } from '../transaction.ts';
import { precompiled } from '../precompiled.ts';
import { TREND_HALF_LIFE } from './search.ts';
import type { PageRequest, TipRecord } from '../../domain/records.ts';
import { THING_COLUMNS, toThingRecord } from './things.ts';

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
