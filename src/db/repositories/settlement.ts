/**
 * The reads of settlement (DECISIONS.md "Money"; src/domain/money/settlement.ts): which tippers of a
 * period are still to settle, their tips with the things' owners, and which periods are due.
 * The writes are ledger transactions (ledger.ts) and the period's claim (periods.ts).
 */
import { sql } from 'kysely';
import type { Engine } from '../connect.ts';
import type { Executor } from '../transaction.ts';

/** A tip to pay a share for, and who receives it: a user, or (pending thing) an identity. */
export interface TipToSettle {
  id: number;
  ownerUserId: number | null;
  ownerIdentity: string | null;
  /** the owner's account was deleted (its shares are forfeited) */
  ownerDeleted: boolean;
}

/**
 * The tips of a tipper in a period in settlement order (time, then id), deleted things included,
 * with whether the thing's owner deleted their account.
 * On PostgreSQL the things' rows are share-locked, so a concurrent claim of a pending thing's
 * identity (which updates the thing's owner, then moves `held:<identity>`) either happens before
 * (the share goes to the new owner's earnings) or waits for this transaction (and then moves the
 * share just held). SQLite's write transactions are serial already.
 */
export async function listTipsToSettle(
  ex: Executor,
  engine: Engine,
  tipperId: number,
  period: string,
): Promise<TipToSettle[]> {
  const query = ex
    .selectFrom('tips')
    .innerJoin('things', 'things.id', 'tips.thing_id')
    .leftJoin('users as owner', 'owner.id', 'things.owner_user_id')
    .select(['tips.id', 'things.owner_user_id', 'things.owner_identity', 'owner.deleted_at as owner_deleted_at'])
    .where('tips.tipper_id', '=', tipperId)
    .where('tips.period', '=', period)
    .orderBy('tips.created_at')
    .orderBy('tips.id');
  const rows = await (engine === 'postgres' ? query.forShare(['things']) : query).execute();
  return rows.map((r) => ({
    id: r.id,
    ownerUserId: r.owner_user_id,
    ownerIdentity: r.owner_identity,
    ownerDeleted: r.owner_deleted_at !== null && r.owner_deleted_at !== undefined,
  }));
}

/**
 * Tippers of `period` without a settlement transaction yet (reference `<referencePrefix><id>`,
 * e.g. `settle:2026-05:`), by id.
 */
export async function listPendingTippers(ex: Executor, period: string, referencePrefix: string): Promise<number[]> {
  const rows = await ex
    .selectFrom('tips')
    .select('tips.tipper_id')
    .distinct()
    .where('tips.period', '=', period)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('ledger_transactions')
            .select('ledger_transactions.id')
            .where(
              'ledger_transactions.reference',
              '=',
              sql<string>`cast(${referencePrefix} as text) || cast(${sql.ref('tips.tipper_id')} as text)`,
            ),
        ),
      ),
    )
    .orderBy('tips.tipper_id')
    .execute();
  return rows.map((r) => r.tipper_id);
}

/** How many settlement transactions (one per tipper) the period has. */
export async function countSettlementTransactions(ex: Executor, period: string): Promise<number> {
  const r = await ex
    .selectFrom('ledger_transactions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('kind', '=', 'settlement')
    .where('period', '=', period)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Periods before `current` ('YYYY-MM') that have tips and are not settled, oldest first. */
export async function listUnsettledPeriods(ex: Executor, current: string): Promise<string[]> {
  const rows = await ex
    .selectFrom('tips')
    .select('tips.period')
    .distinct()
    .where('tips.period', '<', current)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('periods')
            .select('periods.period')
            .whereRef('periods.period', '=', 'tips.period')
            .where('periods.status', '=', 'settled'),
        ),
      ),
    )
    .orderBy('tips.period')
    .execute();
  return rows.map((r) => r.period);
}

/** What a settled period credited to one owner's earnings for one thing (cents), with the thing's title and URL. */
export interface EarnedOnThing {
  userId: number;
  thingId: number;
  title: string;
  url: string;
  cents: number;
}

/**
 * What the settlement of `period` credited to users' earnings, per owner and thing (shares held
 * for pending things are not earnings yet; deleted things count), by owner then thing: one grouped
 * pass over the period's tips and their shares.
 */
export async function listEarnedInPeriod(ex: Executor, period: string): Promise<EarnedOnThing[]> {
  const rows = await ex
    .selectFrom('tips')
    .innerJoin('ledger_entries as e', 'e.tip_id', 'tips.id')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .innerJoin('things', 'things.id', 'tips.thing_id')
    .select((eb) => [
      'a.user_id',
      'tips.thing_id',
      'things.title',
      'things.url',
      eb.fn.sum<number | string>('e.amount_cents').as('cents'),
    ])
    .where('tips.period', '=', period)
    .where('a.kind', '=', 'earnings')
    .groupBy(['a.user_id', 'tips.thing_id', 'things.title', 'things.url'])
    .orderBy('a.user_id')
    .orderBy('tips.thing_id')
    .execute();
  return rows.map((r) => ({
    userId: r.user_id!,
    thingId: r.thing_id,
    title: r.title,
    url: r.url,
    cents: Number(r.cents),
  }));
}

/** Up to `limit` ids of users who tipped in `period`, above `afterId`, ascending. */
export async function listTippersAfter(
  ex: Executor,
  period: string,
  afterId: number,
  limit: number,
): Promise<number[]> {
  const rows = await ex
    .selectFrom('tips')
    .select('tipper_id')
    .distinct()
    .where('period', '=', period)
    .where('tipper_id', '>', afterId)
    .orderBy('tipper_id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.tipper_id);
}

/** One settled tip: the share its tipper's budget paid for it (cents), with the thing's title and URL. */
export interface PaidShare {
  tipperId: number;
  thingId: number;
  title: string;
  url: string;
  cents: number;
}

/**
 * The shares the settlement of `period` paid for the tips of `tipperIds` (deleted things
 * included), by tipper, then in settlement order (time, then id). Tips not settled yet are left out.
 */
export async function listPaidShares(ex: Executor, period: string, tipperIds: number[]): Promise<PaidShare[]> {
  if (tipperIds.length === 0) return [];
  const rows = await ex
    .selectFrom('tips')
    .innerJoin('ledger_entries as e', 'e.tip_id', 'tips.id')
    .innerJoin('things', 'things.id', 'tips.thing_id')
    .select(['tips.tipper_id', 'tips.thing_id', 'things.title', 'things.url', 'e.amount_cents'])
    .where('tips.period', '=', period)
    .where('tips.tipper_id', 'in', tipperIds)
    .orderBy('tips.tipper_id')
    .orderBy('tips.created_at')
    .orderBy('tips.id')
    .execute();
  return rows.map((r) => ({
    tipperId: r.tipper_id,
    thingId: r.thing_id,
    title: r.title,
    url: r.url,
    cents: r.amount_cents,
  }));
}

/** The budgets fixed for `period` (cents) of those of `userIds` who have one, by user id. */
export async function listPeriodBudgets(ex: Executor, period: string, userIds: number[]): Promise<Map<number, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await ex
    .selectFrom('period_budgets')
    .select(['user_id', 'budget_cents'])
    .where('period', '=', period)
    .where('user_id', 'in', userIds)
    .execute();
  return new Map(rows.map((r) => [r.user_id, r.budget_cents]));
}
