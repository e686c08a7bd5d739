/**
 * Adding money on the website (DECISIONS.md "Money": through a payment-provider interface) and
 * reading amounts typed in currency units. Amounts are kept in hundredths of the currency's unit
 * ("cents"); a form says `10.00` or `10.5` or `10` for 1000, 1050 and 1000 cents.
 */
import { ValidationError } from '../errors.ts';
import type { Cents, UserRecord } from '../records.ts';
import type { Services } from '../services.ts';
import { MAX_BUDGET_CENTS } from './means.ts';
import type { PaymentProvider } from './provider.ts';

/** The most one `/funds` submission may add: 100,000 cents (1,000.00 in the currency). */
export const MAX_FUNDING_CENTS = 100_000;

/** An idempotency key as the funds form carries it: 16–64 characters of base64url. */
const KEY = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * Cents of an amount typed in currency units: digits, optionally a point and one or two decimals,
 * surrounding white space allowed (`10`, `10.5`, `10.00`); no sign, no thousands separators, no
 * comma. Returns undefined for anything else.
 */
export function unitsToCents(raw: unknown): Cents | undefined {
  if (typeof raw !== 'string') return undefined;
  const m = /^\s*(\d{1,9})(?:\.(\d{1,2}))?\s*$/.exec(raw);
  if (!m) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/**
 * An amount to add to the balance, typed in currency units: more than 0 and at most
 * MAX_FUNDING_CENTS, at most two decimals.
 * @returns whole cents.
 * @throws ValidationError (with the limits in words) for anything else.
 */
export function parseFundingAmount(raw: unknown): Cents {
  const cents = unitsToCents(raw);
  if (cents === undefined || cents <= 0 || cents > MAX_FUNDING_CENTS) {
    throw new ValidationError(
      `The amount must be a number from 0.01 to ${(MAX_FUNDING_CENTS / 100).toFixed(2)}, with at most two decimals after a point (e.g. 10.00)`,
      'users',
    );
  }
  return cents;
}

/**
 * A monthly budget typed in currency units: 0 to MAX_BUDGET_CENTS, at most two decimals.
 * @returns whole cents.
 * @throws ValidationError for anything else.
 */
export function parseBudgetUnits(raw: unknown): Cents {
  const cents = unitsToCents(raw);
  if (cents === undefined || cents > MAX_BUDGET_CENTS) {
    throw new ValidationError(
      `The monthly budget must be a number from 0 to ${(MAX_BUDGET_CENTS / 100).toFixed(2)}, with at most two decimals after a point (e.g. 5.00)`,
      'users',
    );
  }
  return cents;
}

/**
 * Adds `cents` to the user's balance through `provider`, once per (user, `key`): the form's
 * idempotency key, generated when the form is shown, so a form sent twice credits once. The ledger
 * reference is `<provider>:<userId>:<key>` (src/db/repositories/ledger.ts postTransaction).
 * @param cents whole cents, 0 < cents ≤ MAX_FUNDING_CENTS (see parseFundingAmount).
 * @returns the user after the credit (or after the earlier credit with the same key).
 * @throws ValidationError for a malformed key or amount; NotFoundError for an unknown user.
 */
export async function addFunds(
  s: Services,
  provider: PaymentProvider,
  input: { userId: number; username: string; cents: Cents; key: string },
): Promise<UserRecord> {
  if (!KEY.test(input.key)) throw new ValidationError('The form is incomplete: reload the page and try again', 'users');
  if (!Number.isSafeInteger(input.cents) || input.cents <= 0 || input.cents > MAX_FUNDING_CENTS)
    throw new ValidationError('The amount is out of range', 'users');
  return provider.credit(s, {
    username: input.username,
    cents: input.cents,
    reference: `${input.userId}:${input.key}`,
  });
}
