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
  /** true when the money it credits is simulated (no payment is taken): the website says so */
  readonly simulated: boolean;
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
  simulated: false,
  credit: (s, f) => fundUser(s, { username: f.username, cents: f.cents, reference: `operator:${f.reference}` }),
};

/**
 * The demo provider behind the website's `/funds` page (PAYMENT_PROVIDER=demo): credits at once,
 * without taking any payment. The money is simulated, and every money page says so.
 */
export const demoProvider: PaymentProvider = {
  name: 'demo',
  simulated: true,
  credit: (s, f) =>
    fundUser(s, {
      username: f.username,
      cents: f.cents,
      reference: `demo:${f.reference}`,
      description: `demo (simulated) funding of ${f.username}`,
    }),
};

/**
 * The provider the website's `/funds` page credits through, by the PAYMENT_PROVIDER setting:
 * `demo` → demoProvider; `none` → undefined (funding on the website is off; the operator funds).
 */
export function websiteProvider(setting: 'demo' | 'none'): PaymentProvider | undefined {
  return setting === 'demo' ? demoProvider : undefined;
}
