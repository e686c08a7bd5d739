/**
 * For money tests: a normalised snapshot of the ledger that compares equal across two databases
 * built the same way. (Users with means, principals and pending things: factories.ts.)
 */
import type { Services } from '../../src/domain/services.ts';

/** Everything money-related, without timestamps, in a stable order. */
export async function ledgerSnapshot(s: Services) {
  const db = s.database.db;
  const accounts = await db
    .selectFrom('ledger_accounts')
    .select(['account_key', 'balance_cents'])
    .orderBy('account_key')
    .execute();
  const entries = await db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select(['t.reference', 't.kind', 't.period', 'a.account_key', 'e.amount_cents', 'e.tip_id'])
    .orderBy('t.reference')
    .orderBy('a.account_key')
    .orderBy('e.tip_id')
    .orderBy('e.amount_cents')
    .execute();
  const users = await db.selectFrom('users').select(['id', 'balance_cents', 'budget_cents']).orderBy('id').execute();
  const periods = await db.selectFrom('periods').select(['period', 'status', 'locked_by']).orderBy('period').execute();
  return { accounts, entries, users, periods };
}
