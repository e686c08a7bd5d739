/**
 * Ledger invariants (DECISIONS.md "Money", issue 4): what `tipjar ledger check` verifies. Every
 * check is one aggregate query, so it runs on a large ledger in seconds.
 *
 * Accounts (`ledger_accounts.kind`): `balance` (a user's funds, never negative), `earnings` (a
 * user's settled shares, never negative), `held` (shares of a pending identity, never negative),
 * `funding` (the platform's incoming funds: money that entered, so never positive).
 */
import { sql } from 'kysely';
import type { Services } from '../services.ts';

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
 * 5. no balance, earnings or held account is negative, no funding account positive;
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

  const total = await db
    .selectFrom('ledger_accounts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('balance_cents'), sql<number>`0`).as('total'))
    .executeTakeFirstOrThrow();
  if (Number(total.total) !== 0) add('sum', `the accounts sum to ${Number(total.total)} cents, not 0`);
  const entriesTotal = await db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('amount_cents'), sql<number>`0`).as('total'))
    .executeTakeFirstOrThrow();
  if (Number(entriesTotal.total) !== 0) add('sum', `the entries sum to ${Number(entriesTotal.total)} cents, not 0`);

  const unbalanced = await db
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
  for (const t of unbalanced) {
    add(
      'transaction',
      Number(t.n) === 0
        ? `transaction ${t.id} (${t.reference}) has no entries`
        : `transaction ${t.id} (${t.reference}) entries sum to ${Number(t.sum)} cents, not 0`,
    );
  }

  const drifted = await db
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
  for (const a of drifted)
    add('account', `account ${a.account_key} says ${a.balance_cents} cents but its entries sum to ${Number(a.sum)}`);

  const users = await db
    .selectFrom('users as u')
    .leftJoin('ledger_accounts as a', (j) => j.onRef('a.user_id', '=', 'u.id').on('a.kind', '=', 'balance'))
    .select(['u.id', 'u.username', 'u.balance_cents', 'a.balance_cents as account_cents'])
    .where((eb) => eb(eb.fn.coalesce('a.balance_cents', sql<number>`0`), '<>', eb.ref('u.balance_cents')))
    .orderBy('u.id')
    .execute();
  for (const u of users)
    add(
      'user_balance',
      `user ${u.username} (id ${u.id}) has balance_cents ${u.balance_cents} but the balance account holds ${u.account_cents ?? 0}`,
    );

  const wrongSign = await db
    .selectFrom('ledger_accounts')
    .select(['account_key', 'kind', 'balance_cents'])
    .where((eb) =>
      eb.or([
        eb.and([eb('kind', 'in', ['balance', 'earnings', 'held']), eb('balance_cents', '<', 0)]),
        eb.and([eb('kind', '=', 'funding'), eb('balance_cents', '>', 0)]),
      ]),
    )
    .orderBy('account_key')
    .execute();
  for (const a of wrongSign)
    add(
      'sign',
      `${a.kind} account ${a.account_key} is ${a.balance_cents < 0 ? 'negative' : 'positive'}: ${a.balance_cents} cents`,
    );

  await checkPeriods(s, add);
  return breaches;
}

async function checkPeriods(s: Services, add: (invariant: string, message: string) => void): Promise<void> {
  const db = s.database.db;
  const periods = await db.selectFrom('periods').selectAll().orderBy('period').execute();
  const status = new Map(periods.map((p) => [p.period, p.status]));
  for (const p of periods)
    if (p.status === 'settled' && p.settled_at === null)
      add('period', `period ${p.period} is settled but has no settled_at`);

  const settlementPeriods = await db
    .selectFrom('ledger_transactions')
    .select('period')
    .distinct()
    .where('kind', '=', 'settlement')
    .execute();
  for (const { period } of settlementPeriods) {
    const st = period === null ? undefined : status.get(period);
    if (st !== 'settling' && st !== 'settled')
      add(
        'period',
        `settlement transactions exist for period ${period ?? '(none)'}, which was never claimed for settlement`,
      );
  }

  const misplaced = await db
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
    .limit(100)
    .execute();
  for (const m of misplaced)
    add('period', `${m.reference} pays for tip ${m.tip_id}, which is not a tip of that tipper in that period`);

  const wrongDebit = await db
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
    .limit(100)
    .execute();
  for (const w of wrongDebit) add('period', `${w.reference} debits ${w.account_key}, not the tipper's balance`);

  const overBudget = await db
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
    .limit(100)
    .execute();
  for (const o of overBudget)
    add('period', `${o.reference} debits ${-o.amount_cents} cents, more than the period's budget of ${o.budget_cents}`);

  for (const p of periods.filter((x) => x.status === 'settled')) {
    const unsettled = await db
      .selectFrom('tips')
      .select(['tips.id', 'tips.tipper_id'])
      .where('tips.period', '=', p.period)
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
      .limit(100)
      .execute();
    for (const t of unsettled)
      add('period', `period ${p.period} is settled but tip ${t.id} (user ${t.tipper_id}) has no settlement share`);

    const doubled = await db
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
      .select((eb) => ['e.tip_id', eb.fn.count<number | string>('e.id').as('n')])
      .where('t.kind', '=', 'settlement')
      .where('t.period', '=', p.period)
      .where('e.tip_id', 'is not', null)
      .groupBy('e.tip_id')
      .having((eb) => eb.fn.count('e.id'), '>', 1)
      .execute();
    for (const d of doubled)
      add('period', `tip ${d.tip_id} of period ${p.period} has ${Number(d.n)} settlement shares`);

    const uneven = await db
      .selectFrom('ledger_entries as e')
      .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
      .select((eb) => [
        't.reference',
        eb.fn.min<number>('e.amount_cents').as('lo'),
        eb.fn.max<number>('e.amount_cents').as('hi'),
      ])
      .where('t.kind', '=', 'settlement')
      .where('t.period', '=', p.period)
      .where('e.tip_id', 'is not', null)
      .groupBy('t.reference')
      .having((eb) =>
        eb.or([eb(eb.fn.min('e.amount_cents'), '<', 0), eb(sql`max(e.amount_cents) - min(e.amount_cents)`, '>', 1)]),
      )
      .execute();
    for (const u of uneven)
      add('period', `${u.reference}: shares range from ${u.lo} to ${u.hi} cents (must be ≥ 0 and differ by at most 1)`);
  }
}
