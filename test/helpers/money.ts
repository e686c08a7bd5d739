/**
 * Helpers for money tests: principals without tokens, pending things, and a normalised snapshot of
 * the ledger that compares equal across two databases built the same way.
 */
import type { Services } from '../../src/domain/services.ts';
import type { Principal, UserRecord } from '../../src/domain/records.ts';
import { fundUser, registerUser } from '../../src/domain/users.ts';
import { insertThing } from '../../src/db/repositories/things.ts';
import { parseNewThing } from '../../src/domain/thing-input.ts';
import { uniqueName } from './factories.ts';

/** A principal for calling domain services directly (scope tip and thing). */
export function principalOf(u: UserRecord): Principal {
  return { userId: u.id, username: u.username, scopes: new Set(['tip', 'thing']), clientId: null, tokenId: 0 };
}

/** Registers a user with `balance` cents funded and a monthly budget of `budget` cents. */
export async function moneyUser(
  s: Services,
  balance: number,
  budget: number,
  username = uniqueName('m'),
): Promise<UserRecord> {
  await registerUser(s, { username });
  return fundUser(s, { username, cents: balance, budgetCents: budget, reference: `test-funding:${username}` });
}

/** Inserts a thing owned by a user, or (pending thing) by an identity. Returns its id. */
export async function ownedThing(s: Services, owner: { userId: number } | { identity: string }): Promise<number> {
  const input = parseNewThing({ url: `https://example.net/${uniqueName('t')}`, title: 'money thing' });
  return insertThing(s.database.db, input, owner, s.clock.now());
}

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
