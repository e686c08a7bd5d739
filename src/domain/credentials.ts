/**
 * Credentials of an account: password reset by e-mail, password change and address change.
 *
 * - A reset request (`requestPasswordReset`) queues, for each live account whose address equals the
 *   given one (trimmed, case-insensitive), a `password_reset` message with a single-use link
 *   `{siteUrl}/password/reset/<token>` valid RESET_TTL; the token is stored hashed, with the address
 *   it was sent to. It tells its caller nothing about whether any account has the address, so the
 *   website can answer every request alike (no account enumeration).
 * - A reset (`resetPassword`) uses the token once (two racing requests: one wins), sets the
 *   password, ends the account's other reset links and EVERY session of the account, in one
 *   transaction. Following the link proves control of the address it was sent to, so when that is
 *   still the account's address, the address counts as verified from then on.
 * - A password change (`changePassword`) needs the current password; it ends every other session
 *   (the one that made the change stays) and the account's open reset links.
 * - An address change (`changeEmail`) needs the current password; the new address is unverified
 *   until its link is followed (src/domain/verification.ts), the old address is told
 *   (`email_changed`), and links sent to the old address (verification, reset) stop working.
 *
 * Passwords: PASSWORD_LENGTH characters, as at sign-up; hashed through `s.passwordHashing` (which
 * throws its busy error, e.g. PasswordHashingBusyError, when the server's queue is full: nothing is
 * written then).
 */
import {
  expireAccountTokens,
  findLiveAccountToken,
  insertAccountToken,
  useAccountToken,
} from '../db/repositories/account-tokens.ts';
import { deleteSessionsOfUser } from '../db/repositories/sessions.ts';
import {
  findLiveUsersByAddress,
  markAddressVerified,
  setPasswordHash,
  setUnverifiedAddress,
} from '../db/repositories/user-credentials.ts';
import { findPasswordHash, findUserById } from '../db/repositories/users.ts';
import { inTransaction } from '../db/transaction.ts';
import { DomainError, NotFoundError, ValidationError } from './errors.ts';
import { queueMail } from './mail.ts';
import type { UserRecord } from './records.ts';
import { hashSecret, newSecret } from './secrets.ts';
import type { Services } from './services.ts';
import { checkNewPassword, EMAIL_PATTERN, PASSWORD_LENGTH } from './users.ts';
import { queueVerification } from './verification.ts';

/** How long a password-reset link works: one hour, in seconds. */
export const RESET_TTL = 3600;

/** Longest reset token looked up (tokens are 43 characters; anything much longer is not one). */
const MAX_TOKEN_LENGTH = 200;

/** The current password given to confirm a change is wrong (403 `forbidden`). */
export class WrongPasswordError extends DomainError {
  constructor() {
    super('forbidden', 'The current password is wrong.', 'users');
  }
}

/** A reset link that is unknown, expired or used already (404 `not_found`). */
export class DeadResetLinkError extends NotFoundError {
  constructor() {
    super('This link to reset your password has expired or was already used.', 'users');
  }
}

/**
 * An e-mail address as accounts keep it: trimmed, of the form `local@domain.tld`, without white
 * space or control characters.
 * @throws ValidationError otherwise (also for an empty address)
 */
export function parseEmail(raw: string): string {
  const email = raw.trim();
  if (email === '') throw new ValidationError('Please enter your e-mail address.', 'users');
  if (!EMAIL_PATTERN.test(email) || /[\u0000-\u001f\u007f]/.test(email) || !email.isWellFormed())
    throw new ValidationError('Please enter a valid e-mail address.', 'users');
  return email;
}

/**
 * Queues a password-reset message (see the module comment) for every live account with `address`,
 * in one transaction. Says nothing of what it found: the same call, the same kind of work (an
 * index lookup and a transaction) whether or not an account has the address.
 * @param address as typed (parseEmail first)
 */
export async function requestPasswordReset(s: Services, address: string): Promise<void> {
  const now = s.clock.now();
  const expiresAt = now + RESET_TTL;
  await inTransaction(s.database, async (trx) => {
    for (const user of await findLiveUsersByAddress(trx, address)) {
      const token = newSecret();
      await insertAccountToken(trx, {
        tokenHash: hashSecret(token),
        purpose: 'password_reset',
        userId: user.id,
        detail: user.email,
        now,
        expiresAt,
      });
      await queueMail(trx, {
        kind: 'password_reset',
        userId: user.id,
        to: user.email,
        params: { username: user.username, link: `${s.siteUrl}/password/reset/${token}`, expiresAt },
        now,
        siteUrl: s.siteUrl,
      });
    }
  });
}

/**
 * Whether a reset link works: its token is live (not used, not expired) and its account live.
 * Uses nothing (mail scanners fetch links before people do).
 * @returns the account's username, or undefined when the link does not work.
 */
export async function findPasswordReset(s: Services, token: string): Promise<{ username: string } | undefined> {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const t = await findLiveAccountToken(s.database.db, hashSecret(token), 'password_reset', s.clock.now());
  const user = t && (await findUserById(s.database.db, t.userId));
  return user && user.deletedAt === null ? { username: user.username } : undefined;
}

/**
 * Sets a new password through a reset link (see the module comment): in one transaction, uses the
 * token, sets the password, ends the account's other reset links and every session of the account,
 * and marks the address verified when it is still the one the link was sent to.
 * @returns the account (to log in).
 * @throws ValidationError for a password of the wrong length; DeadResetLinkError when the link is
 *   unknown, expired or used (by a racing request too); the hashing's busy error. Nothing is
 *   written in each case.
 */
export async function resetPassword(s: Services, token: string, password: string): Promise<UserRecord> {
  if (!(await findPasswordReset(s, token))) throw new DeadResetLinkError();
  checkNewPassword(password);
  const passwordHash = await s.passwordHashing.hash(password);
  const now = s.clock.now();
  const userId = await inTransaction(s.database, async (trx) => {
    const t = await findLiveAccountToken(trx, hashSecret(token), 'password_reset', now);
    const user = t && (await findUserById(trx, t.userId));
    if (!t || !user || user.deletedAt !== null || !(await useAccountToken(trx, t.id, now)))
      throw new DeadResetLinkError();
    await setPasswordHash(trx, user.id, passwordHash, now);
    await expireAccountTokens(trx, user.id, 'password_reset', now);
    await deleteSessionsOfUser(trx, user.id);
    await markAddressVerified(trx, user.id, t.detail, now);
    return user.id;
  });
  return (await findUserById(s.database.db, userId))!;
}

/** Checks `password` against the user's stored hash. @throws WrongPasswordError, the hashing's busy error */
async function confirmPassword(s: Services, userId: number, password: string): Promise<void> {
  const hash = await findPasswordHash(s.database.db, userId);
  const ok = password.length <= PASSWORD_LENGTH.max && (await s.passwordHashing.verify(password, hash));
  if (!ok || hash === null) throw new WrongPasswordError();
}

/**
 * Changes the password of a logged-in user: the current one must match; every other session of the
 * account ends (`keepSessionIdHash`, the session making the change, stays), and so do open reset
 * links, in one transaction.
 * @throws ValidationError for a new password of the wrong length (checked first: the current one
 *   is then not checked); WrongPasswordError; NotFoundError for an unknown or deleted user; the
 *   hashing's busy error. Nothing is written in each case.
 */
export async function changePassword(
  s: Services,
  input: { userId: number; currentPassword: string; newPassword: string; keepSessionIdHash: string },
): Promise<void> {
  checkNewPassword(input.newPassword);
  await liveUser(s, input.userId);
  await confirmPassword(s, input.userId, input.currentPassword);
  const passwordHash = await s.passwordHashing.hash(input.newPassword);
  const now = s.clock.now();
  await inTransaction(s.database, async (trx) => {
    await setPasswordHash(trx, input.userId, passwordHash, now);
    await expireAccountTokens(trx, input.userId, 'password_reset', now);
    await deleteSessionsOfUser(trx, input.userId, input.keepSessionIdHash);
  });
}

/**
 * Changes the address of a logged-in user: the current password must match. In one transaction:
 * the new address is set unverified, its verification link is queued to it, the old address (if
 * any) is told with an `email_changed` message, and the account's open verification and reset
 * links (sent to the old address) stop working.
 * @param input.email as typed (trimmed and checked here, see parseEmail)
 * @returns the user with the new address.
 * @throws ValidationError for an invalid address or the current one (checked first: the password is
 *   then not checked); WrongPasswordError; NotFoundError for an unknown or deleted user; the
 *   hashing's busy error. Nothing is written in each case.
 */
export async function changeEmail(
  s: Services,
  input: { userId: number; currentPassword: string; email: string },
): Promise<UserRecord> {
  const email = parseEmail(input.email);
  const user = await liveUser(s, input.userId);
  if (email.toLowerCase() === user.email.toLowerCase())
    throw new ValidationError('This is already the address of your account.', 'users');
  await confirmPassword(s, input.userId, input.currentPassword);
  const now = s.clock.now();
  await inTransaction(s.database, async (trx) => {
    // the address being replaced, as of this transaction (a racing change may have set another)
    const old = (await findUserById(trx, user.id))?.email ?? '';
    await setUnverifiedAddress(trx, user.id, email, now);
    await expireAccountTokens(trx, user.id, 'verify_email', now);
    await expireAccountTokens(trx, user.id, 'password_reset', now);
    await queueVerification(trx, { user, address: email, now, siteUrl: s.siteUrl });
    if (old !== '' && old !== email)
      await queueMail(trx, {
        kind: 'email_changed',
        userId: user.id,
        to: old,
        params: { username: user.username, newAddress: email },
        now,
        siteUrl: s.siteUrl,
      });
  });
  return (await findUserById(s.database.db, user.id))!;
}

/** The user, unless unknown or deleted. @throws NotFoundError */
async function liveUser(s: Services, userId: number): Promise<UserRecord> {
  const user = await findUserById(s.database.db, userId);
  if (!user || user.deletedAt !== null) throw new NotFoundError('User not found', 'users');
  return user;
}
