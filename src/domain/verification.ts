/**
 * Address verification: a single-use link `{siteUrl}/verify-email/<token>`, valid VERIFY_TTL, sent
 * to the address at sign-up and at every address change. The token is stored hashed, with the
 * address it verifies: a link sent for an earlier address never verifies a later one. Until its
 * current address is verified, an account works but cannot claim `email:` identities on the website
 * (src/domain/partners.ts claimIdentity); operators may mark an address verified (`tipjar users
 * create --verified`, `tipjar users verify`).
 */
import {
  expireAccountTokens,
  findAccountToken,
  insertAccountToken,
  useAccountToken,
} from '../db/repositories/account-tokens.ts';
import { findUserById, findUserByUsername, setEmailVerified } from '../db/repositories/users.ts';
import { inTransaction, type Executor } from '../db/transaction.ts';
import { NotFoundError, ValidationError } from './errors.ts';
import { queueMail } from './mail.ts';
import type { UserRecord } from './records.ts';
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

/** True when the user's current address is verified (an account without an address never is). */
export function isEmailVerified(user: Pick<UserRecord, 'email' | 'emailVerifiedAt' | 'deletedAt'>): boolean {
  return user.email !== '' && user.emailVerifiedAt !== null && user.deletedAt === null;
}

/**
 * What following a verification link did:
 * - `verified`: the link was live and `address` (the account's current address) is now verified;
 * - `already`: the link is used or expired, but `address` is the account's current address and is
 *   verified (e.g. a second click, or an older link after a newer one worked);
 * - `used`, `expired`: the link worked once already / is past its 24 hours, and the address is
 *   not verified;
 * - `superseded`: the link was sent for an address the account no longer has;
 * - `unknown`: no such link (malformed, never issued, or its account is deleted).
 * `userId` and `username` name the account the link was sent for.
 */
export type VerifyOutcome =
  | { status: 'verified' | 'already'; userId: number; username: string; address: string }
  | { status: 'used' | 'expired' | 'superseded'; userId: number }
  | { status: 'unknown' };

/** The shape of a token in a link (newSecret: 43 base64url characters); anything else is unknown. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * Follows a verification link (`GET /verify-email/:token`). A live token whose address is the
 * account's current address marks that address verified (users.email_verified_at = now, Unix
 * seconds), is used up, and ends the account's other verification links — in one transaction; of
 * two requests racing with one token, one verifies and the other sees it used.
 * @param token the token from the link, as given (any input).
 * @returns what happened (VerifyOutcome); never throws for a bad token.
 */
export async function verifyEmail(s: Services, token: unknown): Promise<VerifyOutcome> {
  if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) return { status: 'unknown' };
  const hash = hashSecret(token);
  return inTransaction(s.database, async (trx): Promise<VerifyOutcome> => {
    const now = s.clock.now();
    const t = await findAccountToken(trx, hash, 'verify_email');
    if (!t) return { status: 'unknown' };
    const user = await findUserById(trx, t.userId);
    if (!user || user.deletedAt !== null) return { status: 'unknown' };
    if (user.email !== t.detail) return { status: 'superseded', userId: user.id };
    const live = t.usedAt === null && t.expiresAt > now;
    if (!live || !(await useAccountToken(trx, t.id, now))) {
      if (isEmailVerified(user))
        return { status: 'already', userId: user.id, username: user.username, address: user.email };
      return { status: t.usedAt !== null || live ? 'used' : 'expired', userId: user.id };
    }
    if (!(await setEmailVerified(trx, user.id, t.detail, now))) return { status: 'superseded', userId: user.id };
    await expireAccountTokens(trx, user.id, 'verify_email', now);
    return { status: 'verified', userId: user.id, username: user.username, address: t.detail };
  });
}

/**
 * Sends a new verification link for the user's current address (`POST /verify-email/resend`),
 * unless there is nothing to verify. Earlier links stay valid until they expire or one is used.
 * @returns `queued` with the address; or why not: `verified` (already), `no_address`.
 * @throws NotFoundError when the user is unknown or deleted.
 */
export async function resendVerification(
  s: Services,
  userId: number,
): Promise<{ status: 'queued'; address: string } | { status: 'verified' | 'no_address' }> {
  const user = await findUserById(s.database.db, userId);
  if (!user || user.deletedAt !== null) throw new NotFoundError('User not found', 'users');
  if (user.email === '') return { status: 'no_address' };
  if (isEmailVerified(user)) return { status: 'verified' };
  await inTransaction(s.database, (trx) =>
    queueVerification(trx, { user, address: user.email, now: s.clock.now(), siteUrl: s.siteUrl }),
  );
  return { status: 'queued', address: user.email };
}

/**
 * Marks a user's current address verified without a link (operators: `tipjar users verify`), and
 * ends the account's outstanding verification links.
 * @returns the user, and whether the address was verified before.
 * @throws NotFoundError for an unknown or deleted user, ValidationError when the user has no address.
 */
export async function markEmailVerified(
  s: Services,
  username: string,
): Promise<{ user: UserRecord; alreadyVerified: boolean }> {
  const user = await findUserByUsername(s.database.db, username);
  if (!user || user.deletedAt !== null) throw new NotFoundError('User not found', 'users');
  if (user.email === '') throw new ValidationError(`${user.username} has no e-mail address`, 'users');
  const now = s.clock.now();
  await inTransaction(s.database, async (trx) => {
    if (!(await setEmailVerified(trx, user.id, user.email, now)))
      throw new ValidationError(`${user.username} changed address meanwhile; try again`, 'users');
    await expireAccountTokens(trx, user.id, 'verify_email', now);
  });
  return { user: (await findUserById(s.database.db, user.id))!, alreadyVerified: user.emailVerifiedAt !== null };
}

/**
 * Marks `address` of a user being registered verified (operators: `tipjar users create --verified`),
 * in the registration's transaction `trx`.
 */
export async function markVerifiedAtRegistration(
  trx: Executor,
  m: { userId: number; address: string; now: number },
): Promise<void> {
  await setEmailVerified(trx, m.userId, m.address, m.now);
}
