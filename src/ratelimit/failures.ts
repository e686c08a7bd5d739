/**
 * Limits on failed attempts to prove a secret — a password at log-in, a client secret at the
 * OAuth token and revocation endpoints (docs/api.md "Website" → "Limits", "OAuth 2") — in tiers, as OWASP's
 * Authentication and Credential Stuffing Prevention cheat sheets describe:
 *   1. per (account, client network): tight, so one source cannot guess at one account, while the
 *      account's owner elsewhere is not locked out by it;
 *   2. wider tiers (per account across networks, or per network across accounts): looser ceilings
 *      that stop attacks spread over many sources or many accounts.
 * An attempt is counted in every tier before the secret is checked, so concurrent attempts cannot
 * overshoot a limit (counting is atomic in the store); it is refused, without checking the secret,
 * in the first tier it is over. When the secret proves right, the first tier's count starts again
 * and the wider tiers get the attempt back; an attempt that was never decided (the server was
 * busy, the store failed) is given back everywhere. A refused attempt stays counted only in the
 * tier that refused it (over the limit already), so refusals in one tier never use up another.
 */
import { clientNetwork } from './limiter.ts';
import type { FixedWindowLimit } from './fixed-window.ts';

/** One tier: its limit, and the key an attempt on `account` from `network` is counted under. */
export interface FailureTier {
  limit: FixedWindowLimit;
  key(account: string, network: string): string;
}

export class FailureLimits {
  /** @param tiers the (account, network) tier first, then the wider ones, checked in this order */
  constructor(private readonly tiers: readonly [FailureTier, ...FailureTier[]]) {}

  /**
   * Counts an attempt on `account` (already normalised by the caller, e.g. lower-cased) from `ip`.
   * @returns 0 when the secret may be checked; otherwise the seconds until the refusing tier's
   *   window ends (the `Retry-After`), and nothing stays counted but in that tier.
   */
  async attempt(account: string, ip: string): Promise<number> {
    const network = clientNetwork(ip);
    for (let i = 0; i < this.tiers.length; i++) {
      const tier = this.tiers[i]!;
      const status = await tier.limit.hit(tier.key(account, network));
      if (status.exceeded) {
        await Promise.all(this.tiers.slice(0, i).map((t) => t.limit.refund(t.key(account, network))));
        return status.retryAfter;
      }
    }
    return 0;
  }

  /** The attempt succeeded: the first tier's count for (account, network) starts again, the others get it back. */
  async succeeded(account: string, ip: string): Promise<void> {
    const network = clientNetwork(ip);
    const [first, ...wider] = this.tiers;
    await Promise.all([
      first.limit.reset(first.key(account, network)),
      ...wider.map((t) => t.limit.refund(t.key(account, network))),
    ]);
  }

  /** The attempt was not decided (the secret was never checked): every tier gets it back. */
  async undecided(account: string, ip: string): Promise<void> {
    const network = clientNetwork(ip);
    await Promise.all(this.tiers.map((t) => t.limit.refund(t.key(account, network))));
  }
}
