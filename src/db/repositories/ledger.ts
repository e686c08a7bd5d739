/**
 * The double-entry ledger (DECISIONS.md "Money"): accounts with a running balance and immutable
 * entries; every transaction's entries sum to zero, so the sum over all accounts is always zero.
 */
import { sql } from 'kysely';
import type { Executor } from '../transaction.ts';

export type AccountKind = 'balance' | 'earnings' | 'held' | 'funding';

export interface AccountRef {
  kind: AccountKind;
  userId?: number;
  identity?: string;
}

export function accountKey(a: AccountRef): string {
  if (a.kind === 'funding') return 'platform:funding';
  if (a.userId !== undefined) return `${a.kind}:user:${a.userId}`;
  return `${a.kind}:${a.identity}`;
}

/** The id of the account, created on first use. */
export async function ensureAccount(ex: Executor, a: AccountRef, now: number): Promise<number> {
  const key = accountKey(a);
  await ex
    .insertInto('ledger_accounts')
    .values({ account_key: key, kind: a.kind, user_id: a.userId ?? null, identity: a.identity ?? null, created_at: now })
    .onConflict((oc) => oc.column('account_key').doNothing())
    .execute();
  const r = await ex.selectFrom('ledger_accounts').select('id').where('account_key', '=', key).executeTakeFirstOrThrow();
  return r.id;
}

/**
 * Posts one balanced transaction. Idempotent by `reference`: a second post with the same reference
 * changes nothing and returns false.
 * @throws Error when the entries do not sum to zero.
 */
export async function postTransaction(
  ex: Executor,
  tx: { kind: string; reference: string; period?: string | null; description?: string; now: number },
  entries: { account: AccountRef; amountCents: number }[],
): Promise<boolean> {
  const sum = entries.reduce((s, e) => s + e.amountCents, 0);
  if (sum !== 0 || entries.some((e) => !Number.isSafeInteger(e.amountCents))) {
    throw new Error(`unbalanced ledger transaction ${tx.reference}: entries sum to ${sum}`);
  }
  const inserted = await ex
    .insertInto('ledger_transactions')
    .values({ kind: tx.kind, reference: tx.reference, period: tx.period ?? null, description: tx.description ?? '', created_at: tx.now })
    .onConflict((oc) => oc.column('reference').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return false;
  for (const e of entries) {
    const accountId = await ensureAccount(ex, e.account, tx.now);
    await ex
      .insertInto('ledger_entries')
      .values({ transaction_id: inserted.id, account_id: accountId, amount_cents: e.amountCents, created_at: tx.now })
      .execute();
    await ex
      .updateTable('ledger_accounts')
      .set({ balance_cents: sql`balance_cents + ${e.amountCents}` })
      .where('id', '=', accountId)
      .execute();
    if (e.account.kind === 'balance' && e.account.userId !== undefined) {
      await ex
        .updateTable('users')
        .set({ balance_cents: sql`balance_cents + ${e.amountCents}` })
        .where('id', '=', e.account.userId)
        .execute();
    }
  }
  return true;
}
