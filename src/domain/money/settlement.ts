/**
 * Settlement of a period (DECISIONS.md "Money"): at the close of a calendar month every
 * tipper's monthly budget (or balance, if lower) is split evenly over that tipper's tips of the
 * period, to the cent, and credited to the things' owners — `earnings:user:<id>` for registered
 * owners, `held:<identity>` for pending things — as ledger transactions.
 *
 * Safety, by construction:
 * - one ledger transaction per tipper, posted in one database transaction with the reference
 *   `settle:<period>:<userId>`: a tipper is settled completely or not at all, never twice, so a
 *   re-run changes nothing and a crash at any point leaves a state a re-run completes;
 * - the period is claimed with one atomic `UPDATE periods … WHERE status <> 'settled' AND (no live
 *   claim)`, renewed in every tipper's transaction: of two concurrent runs only one does the work;
 *   a claim left by a crashed run expires after SETTLEMENT_CLAIM_SECONDS;
 * - tips on deleted things count (tips are never deleted; the thing's owner is still known); the
 *   shares of an owner who deleted the account go to the platform's `forfeited` account;
 * - once every tipper is settled the monthly receipts are queued (receipts.ts: in batches, each
 *   receipt once even when a run dies midway and another completes it), then the period is marked
 *   settled.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { inTransaction, type Executor } from '../../db/transaction.ts';
import { hasTransaction, postTransaction, type AccountRef } from '../../db/repositories/ledger.ts';
import {
  claimPeriod,
  ensurePeriod,
  findPeriod,
  markPeriodSettled,
  renewPeriodClaim,
} from '../../db/repositories/periods.ts';
import {
  countSettlementTransactions,
  listPendingTippers,
  listTipsToSettle,
  listUnsettledPeriods,
  type TipToSettle,
} from '../../db/repositories/settlement.ts';
import { findMeans, lockUser } from '../../db/repositories/users.ts';
import { InvalidParametersError, PeriodNotEndedError } from '../errors.ts';
import { isPeriod, periodBounds, periodOf } from '../periods.ts';
import { periodBudget } from './means.ts';
import { queueReceipts } from './receipts.ts';
import type { Services } from '../services.ts';

/** How long a settlement claim lasts without renewal (seconds); each settled tipper renews it. */
export const SETTLEMENT_CLAIM_SECONDS = 300;

/** The period before `period`, e.g. '2026-01' → '2025-12'. */
export function previousPeriod(period: string): string {
  return periodOf(periodBounds(period).start - 1);
}

/** The last period that has ended at Unix time `now`: the month before the current one. */
export function lastClosedPeriod(now: number): string {
  return previousPeriod(periodOf(now));
}

/** The idempotency reference of a tipper's settlement transaction. */
export function settlementReference(period: string, userId: number): string {
  return `${settlementReferencePrefix(period)}${userId}`;
}

/** What every settlement reference of `period` starts with (the tipper's id follows). */
function settlementReferencePrefix(period: string): string {
  return `settle:${period}:`;
}

/**
 * Splits `totalCents` over `n` shares as evenly as possible: every share is ⌊total/n⌋ or one cent
 * more, the extra cents going to the first shares, so the shares sum to `totalCents` exactly.
 * @param totalCents whole cents ≥ 0; n ≥ 0 (n = 0 gives [] and is only valid with total 0).
 * @throws Error on a negative or fractional total, or a positive total over no shares.
 */
export function splitEvenly(totalCents: number, n: number): number[] {
  if (!Number.isSafeInteger(totalCents) || totalCents < 0) throw new Error(`cannot split ${totalCents} cents`);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`cannot split into ${n} shares`);
  if (n === 0) {
    if (totalCents !== 0) throw new Error(`cannot split ${totalCents} cents over no shares`);
    return [];
  }
  const base = Math.floor(totalCents / n);
  const extra = totalCents - base * n;
  return Array.from({ length: n }, (_, i) => base + (i < extra ? 1 : 0));
}

/**
 * What a tipper pays for a period: the period's budget, or the balance if lower, never below 0.
 * The budget is the one fixed at the tipper's first tip of the period (a change made later applies
 * from the next period); the balance is read when the tipper is settled.
 */
export function settlementAmount(m: { balanceCents: number; budgetCents: number }): number {
  return Math.max(0, Math.min(m.budgetCents, m.balanceCents));
}

export interface SettlementReport {
  period: string;
  /** settled: this run finished the period (or found it finished: `alreadySettled`);
   *  busy: another run holds a live claim on the period and does the work. */
  status: 'settled' | 'busy';
  alreadySettled: boolean;
  /** tippers settled by this run */
  tippersSettled: number;
  /** tippers found already settled by an earlier (interrupted or concurrent) run */
  tippersSkipped: number;
  /** cents moved by this run */
  centsMoved: number;
  /** monthly receipts queued by this run (src/domain/money/receipts.ts); 0 when it did not finish the period */
  receiptsQueued: number;
  /** with status busy: who holds the claim and until when (Unix seconds) */
  claimedBy?: string;
  claimedUntil?: number;
}

export interface SettleOptions {
  /** 'YYYY-MM'; default the last closed period */
  period?: string;
  /** identifies this run in `periods.locked_by` (default host:pid:random) */
  worker?: string;
  /** users per batch of the receipts' queueing (default RECEIPT_BATCH; tests use small ones) */
  receiptBatch?: number;
  /** called after each tipper's transaction has committed, with the count so far (tests, progress) */
  onTipperSettled?: (settledSoFar: number) => void | Promise<void>;
}

/** A fresh worker id: host, process id and a random suffix. */
export function workerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

class ClaimLostError extends Error {
  constructor(period: string) {
    super(`settlement claim on ${period} was lost to another run`);
  }
}

/** Who a share goes to: the owner's earnings, the identity's held account, or (the owner deleted the account since) `forfeited`. */
function shareAccount(t: TipToSettle): AccountRef {
  if (t.ownerUserId !== null)
    return t.ownerDeleted ? { kind: 'forfeited' } : { kind: 'earnings', userId: t.ownerUserId };
  return { kind: 'held', identity: t.ownerIdentity ?? '' };
}

/**
 * Settles one tipper inside `trx`: one balanced ledger transaction debiting the tipper's balance by
 * settlementAmount() and crediting one share per tip (entries carry `tip_id`). Zero shares are
 * posted too, so every tip of a settled period has exactly one settlement entry.
 * @returns cents moved, or undefined when the tipper was already settled.
 */
async function settleTipper(trx: Executor, s: Services, period: string, tipperId: number): Promise<number | undefined> {
  const reference = settlementReference(period, tipperId);
  if (await hasTransaction(trx, reference)) return undefined;
  const tips = await listTipsToSettle(trx, s.database.engine, tipperId, period);
  if (tips.length === 0) return undefined;
  // The balance read here is the one debited: a concurrent deletion of the tipper's account
  // (which forfeits the balance) waits, or is waited for.
  await lockUser(trx, s.database.engine, tipperId);
  const means = await findMeans(trx, tipperId, period);
  const amount = means ? settlementAmount({ balanceCents: means.balanceCents, budgetCents: periodBudget(means) }) : 0;
  const shares = splitEvenly(amount, tips.length);
  const posted = await postTransaction(
    trx,
    {
      kind: 'settlement',
      reference,
      period,
      description: `settlement of ${period}: ${tips.length} tips of user ${tipperId}`,
      now: s.clock.now(),
    },
    [
      { account: { kind: 'balance', userId: tipperId }, amountCents: -amount },
      ...tips.map((t, i) => ({ account: shareAccount(t), amountCents: shares[i]!, tipId: t.id })),
    ],
  );
  return posted ? amount : undefined;
}

/**
 * `tipjar settle [--period YYYY-MM]`: closes a period (see the module comment).
 * @returns what this run did; status `busy` when another run holds the claim.
 * @throws InvalidParametersError for a malformed period, PeriodNotEndedError when the period has
 *   not ended by the injected clock.
 */
export async function settlePeriod(s: Services, opts: SettleOptions = {}): Promise<SettlementReport> {
  const period = opts.period ?? lastClosedPeriod(s.clock.now());
  if (!isPeriod(period)) throw new InvalidParametersError(`Not a period: "${period}" (expected YYYY-MM)`);
  if (s.clock.now() < periodBounds(period).end) throw new PeriodNotEndedError(period);
  const worker = opts.worker ?? workerId();
  const db = s.database.db;
  const report: SettlementReport = {
    period,
    status: 'settled',
    alreadySettled: false,
    tippersSettled: 0,
    tippersSkipped: 0,
    centsMoved: 0,
    receiptsQueued: 0,
  };

  await ensurePeriod(db, period);
  const now = s.clock.now();
  if (!(await claimPeriod(db, { period, worker, now, until: now + SETTLEMENT_CLAIM_SECONDS }))) {
    const row = (await findPeriod(db, period))!;
    if (row.status === 'settled') return { ...report, alreadySettled: true };
    return {
      ...report,
      status: 'busy',
      claimedBy: row.lockedBy ?? undefined,
      claimedUntil: row.lockedUntil ?? undefined,
    };
  }

  try {
    for (;;) {
      const tippers = await listPendingTippers(db, period, settlementReferencePrefix(period));
      if (tippers.length === 0) break;
      const settledBeforePass = report.tippersSettled + report.tippersSkipped;
      for (const tipperId of tippers) {
        const moved = await inTransaction(s.database, async (trx) => {
          if (!(await renewPeriodClaim(trx, period, worker, s.clock.now() + SETTLEMENT_CLAIM_SECONDS)))
            throw new ClaimLostError(period);
          return settleTipper(trx, s, period, tipperId);
        });
        if (moved === undefined) report.tippersSkipped++;
        else {
          report.tippersSettled++;
          report.centsMoved += moved;
          await opts.onTipperSettled?.(report.tippersSettled);
        }
      }
      if (report.tippersSettled + report.tippersSkipped === settledBeforePass)
        throw new Error(`settlement of ${period} made no progress`);
    }
    // The last stages: the receipts, in batches (each queued once, whatever runs again), then the
    // period flips to settled.
    report.receiptsQueued = await queueReceipts(s, period, opts.receiptBatch);
    const flipped = await inTransaction(s.database, (trx) => markPeriodSettled(trx, period, worker, s.clock.now()));
    if (!flipped) throw new ClaimLostError(period);
  } catch (err) {
    if (err instanceof ClaimLostError) {
      const row = (await findPeriod(db, period))!;
      return {
        ...report,
        status: row.status === 'settled' ? 'settled' : 'busy',
        claimedBy: row.lockedBy ?? undefined,
        claimedUntil: row.lockedUntil ?? undefined,
      };
    }
    throw err;
  }
  // Tippers an earlier (interrupted) run had settled.
  report.tippersSkipped = (await countSettlementTransactions(db, period)) - report.tippersSettled;
  return report;
}

/**
 * Periods that have ended by `now`, have tips and are not settled, oldest first: what the
 * scheduler settles (a server that was down for months catches up in order).
 */
export async function unsettledPeriods(s: Services): Promise<string[]> {
  return listUnsettledPeriods(s.database.db, periodOf(s.clock.now()));
}
