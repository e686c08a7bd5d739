/**
 * Users: registration (CLI now, website in issue 6), funding through the payment-provider
 * interface, and the public and private views the API needs (api-v2.md "Users").
 */
import { inTransaction, isUniqueViolation } from '../db/transaction.ts';
import { findUserByUsername, insertUser } from '../db/repositories/users.ts';
import { ensureAccount, postTransaction } from '../db/repositories/ledger.ts';
import { hashPassword } from '../auth/passwords.ts';
import { DomainError, NotFoundError, ValidationError } from './errors.ts';
import type { UserRecord } from './records.ts';
import type { Services } from './services.ts';

export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{1,31}$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class UsernameTakenError extends DomainError {
  constructor(username: string) {
    super('validation', `The username "${username}" is taken`, 'users');
  }
}

/**
 * Registers a user.
 * @param input username (2–32 of letters, digits, `_ -`, starting with a letter or digit),
 *   optional email and password (hashed with scrypt).
 * @throws ValidationError for a bad username or email, UsernameTakenError when taken.
 */
export async function registerUser(
  s: Services,
  input: { username: string; email?: string; password?: string },
): Promise<UserRecord> {
  if (!USERNAME_PATTERN.test(input.username)) {
    throw new ValidationError('Invalid username: 2–32 letters, digits, "_" or "-", starting with a letter or digit', 'users');
  }
  const email = (input.email ?? '').trim();
  if (email && !EMAIL_PATTERN.test(email)) throw new ValidationError('Invalid email', 'users');
  if (input.password !== undefined && input.password.length < 8) {
    throw new ValidationError('Invalid password: at least 8 characters', 'users');
  }
  const passwordHash = input.password !== undefined ? await hashPassword(input.password) : null;
  const now = s.clock.now();
  try {
    await inTransaction(s.database, async (trx) => {
      const id = await insertUser(trx, { username: input.username, email, passwordHash, registeredAt: now });
      await ensureAccount(trx, { kind: 'balance', userId: id }, now);
      await ensureAccount(trx, { kind: 'earnings', userId: id }, now);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new UsernameTakenError(input.username);
    throw err;
  }
  return (await findUserByUsername(s.database.db, input.username))!;
}

/** Finds a user by username (case-insensitive). @throws NotFoundError */
export async function getUser(s: Services, username: string): Promise<UserRecord> {
  const u = await findUserByUsername(s.database.db, username);
  if (!u) throw new NotFoundError('User not found', 'users');
  return u;
}

/**
 * The built-in payment provider (DECISIONS.md "Money": funds enter through a payment-provider
 * interface; the built-in provider is an operator command). Credits `cents` to the user's balance
 * from the platform's funding account as one ledger transaction, and optionally sets the monthly
 * budget. `reference` makes the funding idempotent (a repeated reference changes nothing).
 * @throws NotFoundError for an unknown user, ValidationError for negative or non-integer amounts.
 */
export async function fundUser(
  s: Services,
  input: { username: string; cents: number; budgetCents?: number; reference?: string },
): Promise<UserRecord> {
  if (!Number.isSafeInteger(input.cents) || input.cents < 0) throw new ValidationError('cents must be a whole number ≥ 0', 'users');
  if (input.budgetCents !== undefined && (!Number.isSafeInteger(input.budgetCents) || input.budgetCents < 0)) {
    throw new ValidationError('budget must be a whole number of cents ≥ 0', 'users');
  }
  const user = await getUser(s, input.username);
  const now = s.clock.now();
  await inTransaction(s.database, async (trx) => {
    if (input.cents > 0) {
      await postTransaction(
        trx,
        {
          kind: 'funding',
          reference: input.reference ?? `funding:${user.id}:${now}:${Math.random().toString(36).slice(2)}`,
          description: `operator funding of ${user.username}`,
          now,
        },
        [
          { account: { kind: 'funding' }, amountCents: -input.cents },
          { account: { kind: 'balance', userId: user.id }, amountCents: input.cents },
        ],
      );
    }
    if (input.budgetCents !== undefined) {
      await trx.updateTable('users').set({ budget_cents: input.budgetCents, updated_at: now }).where('id', '=', user.id).execute();
    }
  });
  return getUser(s, input.username);
}

/** DECISIONS.md "Money": a user has means when budget > 0 and balance ≥ budget. */
export function hasMeans(m: { balanceCents: number; budgetCents: number }): boolean {
  return m.budgetCents > 0 && m.balanceCents >= m.budgetCents;
}
