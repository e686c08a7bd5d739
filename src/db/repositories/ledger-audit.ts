/**
 * The ledger's invariants as aggregate reads (DECISIONS.md "Money"; `tipjar ledger check`,
 * src/domain/money/ledger.ts). Each function is one query returning what breaks one invariant
 * (empty when it holds), so a large ledger is checked in seconds. Amounts are cents.
 */
import { sql } from 'kysely';
import type { Executor } from '../transaction.ts';

/** The sum of every account's running balance, and of every entry (both 0 in a sound ledger). */
export async function ledgerTotals(ex: Executor): Promise<{ accountsCents: number; entriesCents: number }> {
  const accounts = await ex
    .selectFrom('ledger_accounts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('balance_cents'), sql<number>`0`).as('total'))
    .executeTakeFirstOrThrow();
  const entries = await ex
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('amount_cents'), sql<number>`0`).as('total'))
    .executeTakeFirstOrThrow();
  return { accountsCents: Number(accounts.total), entriesCents: Number(entries.total) };
}

/** Transactions without entries or whose entries do not sum to 0, by id. */
export async function listUnbalancedTransactions(
  ex: Executor,
): Promise<{ id: number; reference: string; entries: number; sumCents: number }[]> {
  const rows = await ex
    .selectFrom('ledger_transactions as t')
    .leftJoin('ledger_entries as e', 'e.transaction_id', 't.id')
    .select((eb) => [
      't.id',
      't.reference',
      eb.fn.count<number | string>('e.id').as('n'),
      eb.fn.coalesce(eb.fn.sum<number | string>('e.amount_cents'), sql<number>`0`).as('sum'),
    ])
    .groupBy(['t.id', 't.reference'])
    .having((eb) =>
      eb.or([eb(eb.fn.count('e.id'), '=', 0), eb(eb.fn.coalesce(eb.fn.sum('e.amount_cents'), sql`0`), '<>', 0)]),
    )
    .orderBy('t.id')
    .execute();
  return rows.map((r) => ({ id: r.id, reference: r.reference, entries: Number(r.n), sumCents: Number(r.sum) }));
}

/** Accounts whose running balance differs from the sum of their entries, by key. */
export async function listDriftedAccounts(
  ex: Executor,
): Promise<{ accountKey: string; balanceCents: number; entriesCents: number }[]> {
  const rows = await ex
    .selectFrom('ledger_accounts as a')
    .leftJoin('ledger_entries as e', 'e.account_id', 'a.id')
    .select((eb) => [
      'a.account_key',
      'a.balance_cents',
      eb.fn.coalesce(eb.fn.sum<number | string>('e.amount_cents'), sql<number>`0`).as('sum'),
    ])
    .groupBy(['a.id', 'a.account_key', 'a.balance_cents'])
    .having((eb) => eb(eb.fn.coalesce(eb.fn.sum('e.amount_cents'), sql`0`), '<>', eb.ref('a.balance_cents')))
    .orderBy('a.account_key')
    .execute();
  return rows.map((r) => ({ accountKey: r.account_key, balanceCents: r.balance_cents, entriesCents: Number(r.sum) }));
}

/** Users whose `balance_cents` differs from their balance account (0 without one), by id. */
export async function listDriftedUserBalances(
  ex: Executor,
): Promise<{ userId: number; username: string; balanceCents: number; accountCents: number }[]> {
  const rows = await ex
    .selectFrom('users as u')
    .leftJoin('ledger_accounts as a', (j) => j.onRef('a.user_id', '=', 'u.id').on('a.kind', '=', 'balance'))
    .select(['u.id', 'u.username', 'u.balance_cents', 'a.balance_cents as account_cents'])
    .where((eb) => eb(eb.fn.coalesce('a.balance_cents', sql<number>`0`), '<>', eb.ref('u.balance_cents')))
    .orderBy('u.id')
    .execute();
  return rows.map((r) => ({
    userId: r.id,
    username: r.username,
    balanceCents: r.balance_cents,
    accountCents: r.account_cents ?? 0,
  }));
}

/** Balance, earnings, held and forfeited accounts below 0 and funding accounts above 0, by key. */
export async function listWrongSignAccounts(
  ex: Executor,
): Promise<{ accountKey: string; kind: string; balanceCents: number }[]> {
  const rows = await ex
    .selectFrom('ledger_accounts')
    .select(['account_key', 'kind', 'balance_cents'])
    .where((eb) =>
      eb.or([
        eb.and([eb('kind', 'in', ['balance', 'earnings', 'held', 'forfeited']), eb('balance_cents', '<', 0)]),
        eb.and([eb('kind', '=', 'funding'), eb('balance_cents', '>', 0)]),
      ]),
    )
    .orderBy('account_key')
    .execute();
  return rows.map((r) => ({ accountKey: r.account_key, kind: r.kind, balanceCents: r.balance_cents }));
}

/** The periods that settlement transactions name (null for one without a period). */
export async function listSettlementPeriods(ex: Executor): Promise<(string | null)[]> {
  const rows = await ex
    .selectFrom('ledger_transactions')
    .select('period')
    .distinct()
    .where('kind', '=', 'settlement')
    .execute();
  return rows.map((r) => r.period);
}

/**
 * Settlement shares paying for a tip that is not one of that transaction's tipper in its period
 * (reference `settle:<period>:<tipper id>`), at most `limit`, by entry id.
 */
export async function listMisplacedShares(
  ex: Executor,
  limit: number,
): Promise<{ entryId: number; tipId: number | null; reference: string }[]> {
  const rows = await ex
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .innerJoin('tips', 'tips.id', 'e.tip_id')
    .select(['e.id', 'e.tip_id', 't.reference'])
    .where('t.kind', '=', 'settlement')
    .where((eb) =>
      eb.or([
        eb('tips.period', '<>', eb.ref('t.period')),
        eb(
          't.reference',
          '<>',
          sql<string>`cast('settle:' as text) || tips.period || cast(':' as text) || cast(tips.tipper_id as text)`,
        ),
      ]),
    )
    .orderBy('e.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ entryId: r.id, tipId: r.tip_id, reference: r.reference }));
}

/**
 * Settlement debits (entries without a tip) of an account other than the tipper's balance named
 * by the reference (`settle:YYYY-MM:<id>` → `balance:user:<id>`), at most `limit`.
 */
export async function listWrongSettlementDebits(
  ex: Executor,
  limit: number,
): Promise<{ reference: string; accountKey: string }[]> {
  const rows = await ex
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select(['t.reference', 'a.account_key'])
    .where('t.kind', '=', 'settlement')
    .where('e.tip_id', 'is', null)
    .where(
      'a.account_key',
      '<>',
      sql<string>`cast('balance:user:' as text) || substr(t.reference, ${'settle:YYYY-MM:'.length + 1})`,
    )
    .limit(limit)
    .execute();
  return rows.map((r) => ({ reference: r.reference, accountKey: r.account_key }));
}

/** Settlement debits larger than the budget fixed for the tipper in that period, at most `limit`, by entry id. */
export async function listOverBudgetDebits(
  ex: Executor,
  limit: number,
): Promise<{ reference: string; debitCents: number; budgetCents: number }[]> {
  const rows = await ex
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .innerJoin('period_budgets as b', (join) =>
      join.onRef('b.user_id', '=', 'a.user_id').onRef('b.period', '=', 't.period'),
    )
    .select(['t.reference', 'e.amount_cents', 'b.budget_cents'])
    .where('t.kind', '=', 'settlement')
    .where('e.tip_id', 'is', null)
    .where(sql<boolean>`-e.amount_cents > b.budget_cents`)
    .orderBy('e.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ reference: r.reference, debitCents: -r.amount_cents, budgetCents: r.budget_cents }));
}

/** Tips of `period` without a settlement share, at most `limit`, by id. */
export async function listUnsettledTips(
  ex: Executor,
  period: string,
  limit: number,
): Promise<{ tipId: number; tipperId: number }[]> {
  const rows = await ex
    .selectFrom('tips')
    .select(['tips.id', 'tips.tipper_id'])
    .where('tips.period', '=', period)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('ledger_entries as e')
            .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
            .select('e.id')
            .whereRef('e.tip_id', '=', 'tips.id')
            .where('t.kind', '=', 'settlement'),
        ),
      ),
    )
    .orderBy('tips.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ tipId: r.id, tipperId: r.tipper_id }));
}

/** Tips of `period` with more than one settlement share. */
export async function listDoubledShares(ex: Executor, period: string): Promise<{ tipId: number; shares: number }[]> {
  const rows = await ex
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .select((eb) => ['e.tip_id', eb.fn.count<number | string>('e.id').as('n')])
    .where('t.kind', '=', 'settlement')
    .where('t.period', '=', period)
    .where('e.tip_id', 'is not', null)
    .groupBy('e.tip_id')
    .having((eb) => eb.fn.count('e.id'), '>', 1)
    .execute();
  return rows.map((r) => ({ tipId: r.tip_id!, shares: Number(r.n) }));
}

/** Settlement transactions of `period` with a negative share or shares more than one cent apart. */
export async function listUnevenShares(
  ex: Executor,
  period: string,
): Promise<{ reference: string; lowCents: number; highCents: number }[]> {
  const rows = await ex
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .select((eb) => [
      't.reference',
      eb.fn.min<number>('e.amount_cents').as('lo'),
      eb.fn.max<number>('e.amount_cents').as('hi'),
    ])
    .where('t.kind', '=', 'settlement')
    .where('t.period', '=', period)
    .where('e.tip_id', 'is not', null)
    .groupBy('t.reference')
    .having((eb) =>
      eb.or([eb(eb.fn.min('e.amount_cents'), '<', 0), eb(sql`max(e.amount_cents) - min(e.amount_cents)`, '>', 1)]),
    )
    .execute();
  return rows.map((r) => ({ reference: r.reference, lowCents: Number(r.lo), highCents: Number(r.hi) }));
}
