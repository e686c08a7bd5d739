/**
 * Address verification: a single-use link `{siteUrl}/verify-email/<token>`, valid VERIFY_TTL, sent
 * to the address at sign-up and at every address change. The token is stored hashed, with the
 * address it verifies: a link sent for an earlier address never verifies a later one.
 */
import { insertAccountToken } from '../db/repositories/account-tokens.ts';
import type { Executor } from '../db/transaction.ts';
import { setEmailVerifiedAt } from '../db/repositories/users.ts';
import { NotFoundError } from './errors.ts';
import { queueMail } from './mail.ts';
import { hashSecret, newSecret } from './secrets.ts';
import type { Services } from './services.ts';

/** How long a verification link works: 24 hours, in seconds. */
export const VERIFY_TTL = 24 * 3600;

/**
 * Issues a verification token for `address` of `user` and queues the message with its link, in
 * the transaction `trx`.
 */
export async function queueVerification(
  trx: Executor,
  m: { user: { id: number; username: string }; address: string; now: number; siteUrl: string },
): Promise<void> {
  const token = newSecret();
  const expiresAt = m.now + VERIFY_TTL;
  await insertAccountToken(trx, {
    tokenHash: hashSecret(token),
    purpose: 'verify_email',
    userId: m.user.id,
    detail: m.address,
    now: m.now,
    expiresAt,
  });
  await queueMail(trx, {
    kind: 'verify_email',
    userId: m.user.id,
    to: m.address,
    params: { username: m.user.username, address: m.address, link: `${m.siteUrl}/verify-email/${token}`, expiresAt },
    now: m.now,
    siteUrl: m.siteUrl,
  });
}

/**
 * Marks the user's current address verified, now by the service clock (operators, tests).
 * @throws NotFoundError for an unknown user.
 */
export async function markEmailVerified(s: Services, userId: number): Promise<void> {
  if (!(await setEmailVerifiedAt(s.database.db, userId, s.clock.now())))
    throw new NotFoundError('User not found', 'users');
}
