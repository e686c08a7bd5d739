/**
 * Periods (DECISIONS.md "Money"): one row per calendar month 'YYYY-MM' once something happened to
 * it — its settlement status and claim (settlement runs claim a period so only one does the work)
 * and when the scheduler renewed its subscriptions. Times are Unix seconds.
 */
import type { Executor } from '../transaction.ts';

/** 'open' (no settlement yet) | 'settling' (claimed by a run) | 'settled' */
export type PeriodStatus = 'open' | 'settling' | 'settled';

export interface PeriodRecord {
  /** 'YYYY-MM' */
  period: string;
  status: PeriodStatus;
  settledAt: number | null;
  /** the settlement run holding the claim (`workerId`), null when none */
  lockedBy: string | null;
  /** when the claim lapses unless renewed */
  lockedUntil: number | null;
  /** when the period's subscriptions were renewed */
  renewedAt: number | null;
}

type PeriodRow = {
  period: string;
  status: string;
  settled_at: number | null;
  locked_by: string | null;
  locked_until: number | null;
  renewed_at: number | null;
};

function toPeriodRecord(r: PeriodRow): PeriodRecord {
  return {
    period: r.period,
    status: r.status as PeriodStatus,
    settledAt: r.settled_at,
    lockedBy: r.locked_by,
    lockedUntil: r.locked_until,
    renewedAt: r.renewed_at,
  };
}

/** Creates the period's row (status 'open') unless it exists. */
export async function ensurePeriod(ex: Executor, period: string): Promise<void> {
  await ex
    .insertInto('periods')
    .values({ period })
    .onConflict((oc) => oc.column('period').doNothing())
    .execute();
}

/** The period's row, or undefined when nothing happened to it yet. */
export async function findPeriod(ex: Executor, period: string): Promise<PeriodRecord | undefined> {
  const r = await ex.selectFrom('periods').selectAll().where('period', '=', period).executeTakeFirst();
  return r && toPeriodRecord(r);
}

/** Every period's row, oldest first. */
export async function listPeriods(ex: Executor): Promise<PeriodRecord[]> {
  const rows = await ex.selectFrom('periods').selectAll().orderBy('period').execute();
  return rows.map(toPeriodRecord);
}

/**
 * Claims a period for settlement by `worker` until `until`, in one atomic update: only when it is
 * not settled and no other run holds a live claim (none, lapsed before `now`, or this worker's).
 * The period's row must exist (ensurePeriod).
 * @returns whether this worker holds the claim now.
 */
export async function claimPeriod(
  ex: Executor,
  c: { period: string; worker: string; now: number; until: number },
): Promise<boolean> {
  const r = await ex
    .updateTable('periods')
    .set({ status: 'settling', locked_by: c.worker, locked_until: c.until })
    .where('period', '=', c.period)
    .where('status', '<>', 'settled')
    .where((eb) =>
      eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', c.now), eb('locked_by', '=', c.worker)]),
    )
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Extends `worker`'s claim on a period to `until`. @returns false when the worker no longer holds it. */
export async function renewPeriodClaim(ex: Executor, period: string, worker: string, until: number): Promise<boolean> {
  const r = await ex
    .updateTable('periods')
    .set({ locked_until: until })
    .where('period', '=', period)
    .where('locked_by', '=', worker)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Marks a period settled at `now` and releases `worker`'s claim. @returns false when the worker no longer held it. */
export async function markPeriodSettled(ex: Executor, period: string, worker: string, now: number): Promise<boolean> {
  const r = await ex
    .updateTable('periods')
    .set({ status: 'settled', settled_at: now, locked_by: null, locked_until: null })
    .where('period', '=', period)
    .where('locked_by', '=', worker)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Records that the period's subscriptions were renewed at `now` (the first record stays). */
export async function markPeriodRenewed(ex: Executor, period: string, now: number): Promise<void> {
  await ensurePeriod(ex, period);
  await ex
    .updateTable('periods')
    .set({ renewed_at: now })
    .where('period', '=', period)
    .where('renewed_at', 'is', null)
    .execute();
}
