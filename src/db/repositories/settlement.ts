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
