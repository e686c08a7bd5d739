/**
 * An owner's earnings as the website's `/earnings` page shows them beyond the settled periods
 * (src/domain/money/account.ts): this period's estimate and the supporters.
 */
import { listPeriodTipsOfOwnersTippers, listSupporters } from '../../db/repositories/earnings.ts';
import { findMeansOfUsers } from '../../db/repositories/users.ts';
import { periodOf } from '../periods.ts';
import type { Services } from '../services.ts';
import { periodBudget } from './means.ts';
import { settlementAmount, splitEvenly } from './settlement.ts';

export interface PeriodEstimate {
  /** the current period, 'YYYY-MM' (by the injected clock) */
  period: string;
  /** what the owner would be credited if the period were settled now, in cents */
  cents: number;
  /** tips the owner's things received in the period */
  tips: number;
  /** distinct tippers of those tips */
  tippers: number;
}

/**
 * This period's estimate for `userId` as an owner (DECISIONS.md "Money"): for every tipper of the
 * user's things this period, the tipper's settlement amount (the period's fixed budget, or the
 * balance if lower: settlementAmount with the balance as it is now) split evenly over all of that
 * tipper's tips so far (splitEvenly, in settlement order: remainders to the first tips), summing
 * the shares of the user's things. Settling the period with no further tips, budgets or balance
 * changes credits exactly this. Cents; 0 with no tips.
 */
export async function estimatePeriodEarnings(s: Services, userId: number): Promise<PeriodEstimate> {
  const db = s.database.db;
  const period = periodOf(s.clock.now());
  const rows = await listPeriodTipsOfOwnersTippers(db, userId, period);
  const byTipper = new Map<number, { ownerUserId: number | null }[]>();
  for (const r of rows) {
    const list = byTipper.get(r.tipperId) ?? [];
    list.push({ ownerUserId: r.ownerUserId });
    byTipper.set(r.tipperId, list);
  }
  const meansOf = await findMeansOfUsers(db, [...byTipper.keys()], period);
  let cents = 0;
  let tips = 0;
  for (const [tipperId, list] of byTipper) {
    const means = meansOf.get(tipperId);
    const amount = means ? settlementAmount({ balanceCents: means.balanceCents, budgetCents: periodBudget(means) }) : 0;
    const shares = splitEvenly(amount, list.length);
    list.forEach((t, i) => {
      if (t.ownerUserId !== userId) return;
      cents += shares[i]!;
      tips++;
    });
  }
  return { period, cents, tips, tippers: byTipper.size };
}

/** How many supporters each list shows at most. */
export const SUPPORTERS_SHOWN = 50;

export interface Supporter {
  username: string;
  /** tips given to the owner's things (in the period, or all time) */
  tips: number;
}

/**
 * The supporters of `userId`: tippers of the user's things that are not deleted, this period and
 * all time, most tips first (then by username), at most SUPPORTERS_SHOWN each. Tippers who hide
 * their tips (DECISIONS.md "Tips") and deleted accounts are never listed.
 */
export async function getSupporters(
  s: Services,
  userId: number,
): Promise<{ period: string; thisPeriod: Supporter[]; allTime: Supporter[] }> {
  const period = periodOf(s.clock.now());
  const [thisPeriod, allTime] = await Promise.all([
    listSupporters(s.database.db, userId, period, SUPPORTERS_SHOWN),
    listSupporters(s.database.db, userId, undefined, SUPPORTERS_SHOWN),
  ]);
  return { period, thisPeriod, allTime };
}
