/**
 * The reads of an owner's earnings page (src/domain/money/earnings.ts): the tips that decide this
 * period's shares of the owner's things, and who supports the owner.
 */
import type { Executor } from '../transaction.ts';

/** A tip of a period with its tipper and its thing's owning user (null: an identity owns it). */
export interface PeriodTip {
  tipperId: number;
  tipId: number;
  ownerUserId: number | null;
}

/**
 * Every tip of `period` ('YYYY-MM') given by the tippers who tipped at least one thing of
 * `ownerUserId` in it, deleted things included (settlement pays for them too), ordered by tipper,
 * then in settlement order (time, then id; as listTipsToSettle).
 */
export async function listPeriodTipsOfOwnersTippers(
  ex: Executor,
  ownerUserId: number,
  period: string,
): Promise<PeriodTip[]> {
  const rows = await ex
    .selectFrom('tips')
    .innerJoin('things', 'things.id', 'tips.thing_id')
    .select(['tips.tipper_id', 'tips.id', 'things.owner_user_id'])
    .where('tips.period', '=', period)
    .where('tips.tipper_id', 'in', (eb) =>
      eb
        .selectFrom('tips as mine')
        .innerJoin('things as my_things', 'my_things.id', 'mine.thing_id')
        .select('mine.tipper_id')
        .where('mine.period', '=', period)
        .where('my_things.owner_user_id', '=', ownerUserId),
    )
    .orderBy('tips.tipper_id')
    .orderBy('tips.created_at')
    .orderBy('tips.id')
    .execute();
  return rows.map((r) => ({ tipperId: r.tipper_id, tipId: r.id, ownerUserId: r.owner_user_id }));
}

/** A supporter: a tipper of an owner's things and how many tips they gave them. */
export interface SupporterRow {
  username: string;
  tips: number;
}

/**
 * The tippers of `ownerUserId`'s things that are not deleted — in `period` ('YYYY-MM') when
 * given, else all time — most tips first, then by username; at most `limit`. Tippers who hide their
 * tips and deleted accounts are left out.
 */
export async function listSupporters(
  ex: Executor,
  ownerUserId: number,
  period: string | undefined,
  limit: number,
): Promise<SupporterRow[]> {
  let query = ex
    .selectFrom('tips')
    .innerJoin('things', 'things.id', 'tips.thing_id')
    .innerJoin('users as tipper', 'tipper.id', 'tips.tipper_id')
    .where('things.owner_user_id', '=', ownerUserId)
    .where('things.deleted_at', 'is', null)
    .where('tipper.hide_tips', '=', 0)
    .where('tipper.deleted_at', 'is', null);
  if (period !== undefined) query = query.where('tips.period', '=', period);
  const rows = await query
    .select((eb) => ['tipper.username', eb.fn.countAll<number | string>().as('tips')])
    .groupBy(['tipper.id', 'tipper.username'])
    .orderBy('tips', 'desc')
    .orderBy('tipper.username')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ username: r.username, tips: Number(r.tips) }));
}
