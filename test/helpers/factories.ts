/**
 * Factories for test data, through the same domain services the CLI uses (one set for every
 * test: users with tokens or with given means, things, pending things, principals).
 */
import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/domain/services.ts';
import { fundUser, registerUser } from '../../src/domain/users.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { createThing } from '../../src/domain/things.ts';
import { resolveToken } from '../../src/auth/tokens.ts';
import type { Principal, UserRecord } from '../../src/domain/records.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { insertThing } from '../../src/db/repositories/things.ts';
import { parseNewThing } from '../../src/domain/thing-input.ts';

let seq = 0;
export const uniqueName = (prefix = 'user') => `${prefix}${++seq}${randomBytes(3).toString('hex')}`;

export interface TestUser {
  user: UserRecord;
  /** a token with every scope */
  token: string;
}

/**
 * Registers a user with a token carrying `scopes` (default all three). `funded` (default true)
 * gives the user means: balance 1000 cents, budget 500.
 */
export async function buildUser(
  s: Services,
  opts: { username?: string; scopes?: string; funded?: boolean; email?: string } = {},
): Promise<TestUser> {
  const username = opts.username ?? uniqueName();
  let user = await registerUser(s, { username, email: opts.email ?? `${username}@example.com` });
  if (opts.funded !== false) user = await fundUser(s, { username, cents: 1000, budgetCents: 500 });
  const token = await issueToken(s, username, opts.scopes ?? 'tip thing extendedread');
  return { user, token };
}

/** Registers a thing owned by `owner` and returns its id. */
export async function buildThing(s: Services, owner: TestUser, fields: Record<string, unknown> = {}): Promise<number> {
  const principal = (await resolveToken(s, owner.token))!;
  return createThing(
    s,
    principal,
    parseNewThing({ url: `https://example.com/${uniqueName('thing')}`, title: 'A thing', ...fields }),
  );
}

/** Another token for an existing user, with the given scopes. */
export async function tokenWith(s: Services, username: string, scopes: string): Promise<string> {
  return issueToken(s, username, scopes);
}

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
  return inTransaction(s.database, (trx) => insertThing(trx, input, owner, s.clock.now()));
}
