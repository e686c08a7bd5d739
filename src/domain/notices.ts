/**
 * The user's e-mail notices (src/domain/mail.ts NOTICES): the settings form, and one-click
 * unsubscription (RFC 8058) through the link each notice carries,
 * `{siteUrl}/notices/unsubscribe/<token>`. The token (stored hashed, purpose `unsubscribe`, its
 * `detail` the notice it turns off) is the credential: no log-in is needed. It works until it
 * expires (UNSUBSCRIBE_TTL), not once only, because mail clients may send the one-click POST
 * again; turning a notice off twice changes nothing.
 */
import { findLiveAccountToken } from '../db/repositories/account-tokens.ts';
import { turnNoticeOff, updateNotices } from '../db/repositories/users.ts';
import { NotFoundError } from './errors.ts';
import { NOTICES } from './mail.ts';
import type { NoticeKind } from './records.ts';
import { hashSecret } from './secrets.ts';
import type { Services } from './services.ts';

/** Every notice kind, in the order settings list them. */
export const NOTICE_KINDS = Object.keys(NOTICES) as NoticeKind[];

/**
 * Sets which notices the user wants by e-mail (the settings form: every notice, on or off).
 * @throws NotFoundError for an unknown user.
 */
export async function setNotices(s: Services, userId: number, notices: Record<NoticeKind, boolean>): Promise<void> {
  if (!(await updateNotices(s.database.db, userId, notices))) throw new NotFoundError('User not found', 'users');
}

/** What an unsubscription link turns off. */
export interface Unsubscription {
  notice: NoticeKind;
  /** the notice as settings name it */
  label: string;
}

/** The unsubscription a live token stands for, or undefined (unknown, expired, malformed). */
async function findUnsubscriptionToken(s: Services, token: string) {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
  const row = await findLiveAccountToken(s.database.db, hashSecret(token), 'unsubscribe', s.clock.now());
  if (!row || !Object.hasOwn(NOTICES, row.detail)) return undefined;
  return { userId: row.userId, notice: row.detail as NoticeKind };
}

/**
 * What the link's `token` would turn off, without changing anything (the page a GET shows: mail
 * scanners fetch links before people do).
 * @throws NotFoundError for an unknown, expired or malformed token.
 */
export async function describeUnsubscription(s: Services, token: string): Promise<Unsubscription> {
  const found = await findUnsubscriptionToken(s, token);
  if (!found) throw new NotFoundError('This unsubscription link is unknown or has expired', 'users');
  return { notice: found.notice, label: NOTICES[found.notice].label };
}

/**
 * Turns off the notice the link's `token` was sent with, for the user it was sent to (the
 * one-click POST). Idempotent.
 * @returns what was turned off.
 * @throws NotFoundError for an unknown, expired or malformed token.
 */
export async function unsubscribe(s: Services, token: string): Promise<Unsubscription> {
  const found = await findUnsubscriptionToken(s, token);
  if (!found) throw new NotFoundError('This unsubscription link is unknown or has expired', 'users');
  await turnNoticeOff(s.database.db, found.userId, found.notice);
  return { notice: found.notice, label: NOTICES[found.notice].label };
}
