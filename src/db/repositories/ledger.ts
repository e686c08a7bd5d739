/**
 * The double-entry ledger (DECISIONS.md "Money"): accounts with a running balance and immutable
 * entries; every transaction's entries sum to zero, so the sum over all accounts is always zero.
 */
import { sql } from 'kysely';
import type { Executor } from '../transaction.ts';

/**
 * `balance` and `earnings` of a user, `held` of a pending identity, and two of the platform's:
 * `funding` (money that entered) and `forfeited` (money of deleted accounts, src/domain/account-data.ts).
 */
export type AccountKind = 'balance' | 'earnings' | 'held' | 'funding' | 'forfeited';

export interface AccountRef {
  kind: AccountKind;
  userId?: number;
  identity?: string;
}

export function accountKey(a: AccountRef): string {
  if (a.kind === 'funding') return 'platform:funding';
  if (a.kind === 'forfeited') return 'platform:forfeited';
  if (a.userId !== undefined) return `${a.kind}:user:${a.userId}`;
  return `${a.kind}:${a.identity}`;
}

/** The id of the account, created on first use. */
export async function ensureAccount(ex: Executor, a: AccountRef, now: number): Promise<number> {
  const key = accountKey(a);
  await ex
    .insertInto('ledger_accounts')
    .values({
      account_key: key,
      kind: a.kind,
      user_id: a.userId ?? null,
      identity: a.identity ?? null,
      created_at: now,
    })
    .onConflict((oc) => oc.column('account_key').doNothing())
    .execute();
  const r = await ex
    .selectFrom('ledger_accounts')
    .select('id')
    .where('account_key', '=', key)
    .executeTakeFirstOrThrow();
  return r.id;
}

/**
 * Posts one balanced transaction. Idempotent by `reference`: a second post with the same reference
 * changes nothing and returns false. Entries may name the tip they pay for (`tipId`, settlement
 * shares). Amounts are cents: positive credits the account, negative debits it; zero is allowed
 * (a settlement share of 0 still records that the tip was settled).
 * @throws Error when the entries do not sum to zero.
 */
export async function postTransaction(
  ex: Executor,
  tx: { kind: string; reference: string; period?: string | null; description?: string; now: number },
  entries: { account: AccountRef; amountCents: number; tipId?: number }[],
): Promise<boolean> {
  const sum = entries.reduce((s, e) => s + e.amountCents, 0);
  if (sum !== 0 || entries.some((e) => !Number.isSafeInteger(e.amountCents))) {
    throw new Error(`unbalanced ledger transaction ${tx.reference}: entries sum to ${sum}`);
  }
  const inserted = await ex
    .insertInto('ledger_transactions')
    .values({
      kind: tx.kind,
      reference: tx.reference,
      period: tx.period ?? null,
      description: tx.description ?? '',
      created_at: tx.now,
    })
    .onConflict((oc) => oc.column('reference').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return false;
  if (entries.length === 0) return true;
  // Accounts: created on first use, then looked up all at once.
  const refs = new Map<string, AccountRef>();
  for (const e of entries) refs.set(accountKey(e.account), e.account);
  await ex
    .insertInto('ledger_accounts')
    .values(
      [...refs].map(([key, a]) => ({
        account_key: key,
        kind: a.kind,
        user_id: a.userId ?? null,
        identity: a.identity ?? null,
        created_at: tx.now,
      })),
    )
    .onConflict((oc) => oc.column('account_key').doNothing())
    .execute();
  const rows = await ex
    .selectFrom('ledger_accounts')
    .select(['id', 'account_key'])
    .where('account_key', 'in', [...refs.keys()])
    .execute();
  const ids = new Map(rows.map((r) => [r.account_key, r.id]));
  await ex
    .insertInto('ledger_entries')
    .values(
      entries.map((e) => ({
        transaction_id: inserted.id,
        account_id: ids.get(accountKey(e.account))!,
        amount_cents: e.amountCents,
        created_at: tx.now,
        tip_id: e.tipId ?? null,
      })),
    )
    .execute();
  // Running balances, kept in step in the same transaction: one update per account touched.
  const deltas = new Map<string, number>();
  for (const e of entries) deltas.set(accountKey(e.account), (deltas.get(accountKey(e.account)) ?? 0) + e.amountCents);
  const changed = [...deltas]
    .filter(([, delta]) => delta !== 0)
    .map(([key, delta]) => ({ id: ids.get(key)!, delta, account: refs.get(key)! }));
  if (changed.length > 0) {
    const cases = sql.join(
      changed.map((c) => sql`when ${c.id} then cast(${c.delta} as bigint)`),
      sql` `,
    );
    await ex
      .updateTable('ledger_accounts')
      .set({ balance_cents: sql`balance_cents + case id ${cases} end` })
      .where(
        'id',
        'in',
        changed.map((c) => c.id),
      )
      .execute();
  }
  for (const c of changed) {
    if (c.account.kind === 'balance' && c.account.userId !== undefined) {
      await ex
        .updateTable('users')
        .set({ balance_cents: sql`balance_cents + ${c.delta}` })
        .where('id', '=', c.account.userId)
        .execute();
    }
  }
  return true;
}

/** True when a transaction with this idempotency `reference` has been posted. */
export async function hasTransaction(ex: Executor, reference: string): Promise<boolean> {
  const r = await ex
    .selectFrom('ledger_transactions')
    .select('id')
    .where('reference', '=', reference)
    .executeTakeFirst();
  return r !== undefined;
}

/** An account's balance in cents (0 when the account was never used). */
export async function accountBalance(ex: Executor, a: AccountRef): Promise<number> {
  const r = await ex
    .selectFrom('ledger_accounts')
    .select('balance_cents')
    .where('account_key', '=', accountKey(a))
    .executeTakeFirst();
  return r?.balance_cents ?? 0;
}

/**
 * Earnings of a user per period: the settlement shares credited to `earnings:user:<id>`, grouped
 * by the period of their transaction (null for transactions without a period, e.g. claims of held
 * shares), oldest first. `tips` counts the tips paid for.
 */
export async function earningsByPeriod(
  ex: Executor,
  userId: number,
): Promise<{ period: string | null; cents: number; tips: number }[]> {
  const rows = await ex
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .where('a.account_key', '=', accountKey({ kind: 'earnings', userId }))
    .select((eb) => [
      't.period as period',
      eb.fn.sum<number | string>('e.amount_cents').as('cents'),
      eb.fn.count<number | string>('e.tip_id').as('tips'),
    ])
    .groupBy('t.period')
    .orderBy('t.period')
    .execute();
  return rows.map((r) => ({ period: r.period, cents: Number(r.cents), tips: Number(r.tips) }));
}
