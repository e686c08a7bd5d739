/**
 * Ledger invariants (DECISIONS.md "Money"): what `tipjar ledger check` verifies. Every
 * check is one aggregate query, so it runs on a large ledger in seconds.
 *
 * Accounts (`ledger_accounts.kind`): `balance` (a user's funds, never negative), `earnings` (a
 * user's settled shares, never negative), `held` (shares of a pending identity, never negative),
 * `funding` (the platform's incoming funds: money that entered, so never positive), `forfeited` (what
 * deleted accounts left behind, src/domain/account-data.ts; never negative).
 */
import {
  ledgerTotals,
  listDoubledShares,
  listDriftedAccounts,
  listDriftedUserBalances,
  listMisplacedShares,
  listOverBudgetDebits,
  listSettlementPeriods,
  listUnbalancedTransactions,
  listUnevenShares,
  listUnsettledTips,
  listWrongSettlementDebits,
  listWrongSignAccounts,
} from '../../db/repositories/ledger-audit.ts';
import { listPeriods } from '../../db/repositories/periods.ts';
import type { Services } from '../services.ts';

/** Most breaches of one kind listed per check (the rest are of the same kind). */
const LISTED = 100;

export interface LedgerBreach {
  /** which invariant: 'sum', 'transaction', 'account', 'user_balance', 'sign', 'period' */
  invariant: string;
  /** one line for an operator */
  message: string;
}

/**
 * Verifies every invariant of the ledger:
 * 1. the balances of all accounts sum to 0;
 * 2. each transaction has entries and its entries sum to 0;
 * 3. each account's balance equals the sum of its entries;
 * 4. each user's `balance_cents` equals their balance account (0 without one);
 * 5. no balance, earnings, held or forfeited account is negative, no funding account positive;
 * 6. settled periods are consistent: status `settled` has `settled_at`; every tipper of the period
 *    has exactly one settlement transaction and every tip exactly one share entry; the shares of
 *    one tipper differ by at most one cent and none is negative; each share pays for a tip of that
 *    tipper in that period and each debit is the tipper's balance; no settlement transaction
 *    exists for a period that was never claimed for settlement;
 * 7. no settlement debits a tipper more than the budget fixed for them in that period
 *    (`period_budgets`, fixed at their first tip of the period).
 * @returns every breach found (empty when the ledger is sound); reading only.
 */
export async function checkLedger(s: Services): Promise<LedgerBreach[]> {
  const db = s.database.db;
  const breaches: LedgerBreach[] = [];
  const add = (invariant: string, message: string) => breaches.push({ invariant, message });

  const totals = await ledgerTotals(db);
  if (totals.accountsCents !== 0) add('sum', `the accounts sum to ${totals.accountsCents} cents, not 0`);
  if (totals.entriesCents !== 0) add('sum', `the entries sum to ${totals.entriesCents} cents, not 0`);

  for (const t of await listUnbalancedTransactions(db)) {
    add(
      'transaction',
      t.entries === 0
        ? `transaction ${t.id} (${t.reference}) has no entries`
        : `transaction ${t.id} (${t.reference}) entries sum to ${t.sumCents} cents, not 0`,
    );
  }

  for (const a of await listDriftedAccounts(db))
    add('account', `account ${a.accountKey} says ${a.balanceCents} cents but its entries sum to ${a.entriesCents}`);

  for (const u of await listDriftedUserBalances(db))
    add(
      'user_balance',
      `user ${u.username} (id ${u.userId}) has balance_cents ${u.balanceCents} but the balance account holds ${u.accountCents}`,
    );

  for (const a of await listWrongSignAccounts(db))
    add(
      'sign',
      `${a.kind} account ${a.accountKey} is ${a.balanceCents < 0 ? 'negative' : 'positive'}: ${a.balanceCents} cents`,
    );

  await checkPeriods(s, add);
  return breaches;
}

async function checkPeriods(s: Services, add: (invariant: string, message: string) => void): Promise<void> {
  const db = s.database.db;
  const periods = await listPeriods(db);
  const status = new Map(periods.map((p) => [p.period, p.status]));
  for (const p of periods)
    if (p.status === 'settled' && p.settledAt === null)
      add('period', `period ${p.period} is settled but has no settled_at`);

  for (const period of await listSettlementPeriods(db)) {
    const st = period === null ? undefined : status.get(period);
    if (st !== 'settling' && st !== 'settled')
      add(
        'period',
        `settlement transactions exist for period ${period ?? '(none)'}, which was never claimed for settlement`,
      );
  }

  for (const m of await listMisplacedShares(db, LISTED))
    add('period', `${m.reference} pays for tip ${m.tipId}, which is not a tip of that tipper in that period`);

  for (const w of await listWrongSettlementDebits(db, LISTED))
    add('period', `${w.reference} debits ${w.accountKey}, not the tipper's balance`);

  for (const o of await listOverBudgetDebits(db, LISTED))
    add('period', `${o.reference} debits ${o.debitCents} cents, more than the period's budget of ${o.budgetCents}`);

  for (const p of periods.filter((x) => x.status === 'settled')) {
    for (const t of await listUnsettledTips(db, p.period, LISTED))
      add('period', `period ${p.period} is settled but tip ${t.tipId} (user ${t.tipperId}) has no settlement share`);

    for (const d of await listDoubledShares(db, p.period))
      add('period', `tip ${d.tipId} of period ${p.period} has ${d.shares} settlement shares`);

    for (const u of await listUnevenShares(db, p.period))
      add(
        'period',
        `${u.reference}: shares range from ${u.lowCents} to ${u.highCents} cents (must be ≥ 0 and differ by at most 1)`,
      );
  }
}
