/**
 * The payment-provider interface (DECISIONS.md "Money": funds enter through a payment-provider
 * interface; the built-in provider is an operator command). A provider turns money received
 * outside Tipjar into a balanced ledger transaction platform funding → user balance.
 */
import type { UserRecord } from '../records.ts';
import type { Services } from '../services.ts';
import { fundUser } from '../users.ts';

export interface Funding {
  username: string;
  /** whole cents > 0 */
  cents: number;
  /** the provider's payment id: the same reference is never credited twice */
  reference: string;
}

export interface PaymentProvider {
  /** short name, part of every ledger reference this provider posts: `<name>:<reference>` */
  readonly name: string;
  /**
   * Credits a payment to the user's balance as one ledger transaction (idempotent by reference).
   * @returns the user after the credit.
   * @throws NotFoundError (unknown user), ValidationError (amount).
   */
  credit(s: Services, funding: Funding): Promise<UserRecord>;
}

/** The built-in provider: the operator's `tipjar users fund` (money received by other means). */
export const operatorProvider: PaymentProvider = {
  name: 'operator',
  credit: (s, f) => fundUser(s, { username: f.username, cents: f.cents, reference: `operator:${f.reference}` }),
};
