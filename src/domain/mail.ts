/**
 * Outgoing mail: the catalog of messages Tipjar sends, and the outbox. A message is a mail_outbox
 * row written in the transaction of what causes it (sign-up, a reset request, a settlement…), so
 * it is never lost and never sent for something rolled back; the mail dispatcher (src/mail/)
 * composes it from its kind and params, sends it through SMTP or into `.eml` files, and retries
 * with backoff. Its Message-ID is fixed when it is queued, so a message sent again after a crash
 * is recognisably the same message.
 *
 * Two sorts of messages:
 * - account messages (verification, password reset, address changed): always sent, to the address
 *   they concern;
 * - notices (NOTICES): sent only to a verified address of a user who has not turned the notice off,
 *   each with a one-click unsubscription link (RFC 8058, `List-Unsubscribe-Post`).
 */
import { randomBytes } from 'node:crypto';
import { insertAccountToken, insertAccountTokens } from '../db/repositories/account-tokens.ts';
import { existingMessageIds, insertMail, insertMails, listMail, type MailRecord } from '../db/repositories/mail.ts';
import { recordChange, type Executor } from '../db/transaction.ts';
import type { NoticeKind, UserRecord } from './records.ts';
import { hashSecret, newSecret } from './secrets.ts';
import type { Services } from './services.ts';

/** One line of a receipt: a thing and an amount in cents. */
export interface ReceiptLine {
  thingId: number;
  title: string;
  /** the thing's URL */
  url: string;
  cents: number;
}

/** The params each kind of message is composed from (stored as JSON in the outbox). */
export interface MailParams {
  /** the link that verifies `address` (24 h, single use) */
  verify_email: { username: string; address: string; link: string; expiresAt: number };
  /** the link that sets a new password (1 h, single use) */
  password_reset: { username: string; link: string; expiresAt: number };
  /** told to the OLD address when the account's address changes */
  email_changed: { username: string; newAddress: string };
  /** after a period is settled: what the tipper's budget paid, and what the creator's things earned */
  receipt: {
    username: string;
    period: string;
    budgetCents: number;
    paid: ReceiptLine[];
    earned: ReceiptLine[];
    unsubscribe: string;
  };
  /** a subscription renewal was skipped for lack of means */
  renewal_skipped: {
    username: string;
    period: string;
    things: { thingId: number; title: string; url: string }[];
    unsubscribe: string;
  };
  /** a thing was created in the user's name through an auto-submit URL */
  thing_created: { username: string; thingId: number; title: string; url: string; unsubscribe: string };
  /** the user authorized an application */
  application_authorized: { username: string; application: string; scopes: string; unsubscribe: string };
}

export type MailKind = keyof MailParams;

/** The notices a user can turn off, with the users column and the label settings show. */
export const NOTICES: Record<NoticeKind, { label: string }> = {
  receipt: { label: 'Monthly receipt: what my budget paid and what my things earned' },
  renewal_skipped: { label: 'A subscription could not be renewed for lack of money' },
  thing_created: { label: 'A thing was created in my name through an auto-submit link' },
  application_authorized: { label: 'I authorized a new application' },
};

/** How long an unsubscription link in a notice works: a year, in seconds. */
export const UNSUBSCRIBE_TTL = 365 * 24 * 3600;

/** A new Message-ID (without angle brackets) in the site's domain, e.g. `3f…@tipjar.example`. */
export function newMessageId(siteUrl: string): string {
  return `${randomBytes(16).toString('hex')}@${new URL(siteUrl).hostname || 'localhost'}`;
}

/**
 * Queues one message in the transaction `trx`; the mail dispatcher sends it after the commit.
 * @param m.userId the user the message concerns (its rows are deleted with the account); null: none.
 */
export async function queueMail<K extends MailKind>(
  trx: Executor,
  m: { kind: K; userId: number | null; to: string; params: MailParams[K]; now: number; siteUrl: string },
): Promise<void> {
  await insertMail(trx, {
    messageId: newMessageId(m.siteUrl),
    kind: m.kind,
    userId: m.userId,
    recipient: m.to,
    params: m.params as unknown as Record<string, unknown>,
    now: m.now,
  });
  recordChange(trx, { kind: 'mail' });
}

/**
 * Queues a notice for `user` in `trx`, unless the user turned it off, has no verified address, or
 * is deleted; the params get a one-click unsubscription link (`{siteUrl}/notices/unsubscribe/<token>`,
 * valid UNSUBSCRIBE_TTL).
 * @returns whether a message was queued.
 */
export async function queueNotice<K extends NoticeKind>(
  trx: Executor,
  m: {
    kind: K;
    user: UserRecord;
    params: Omit<MailParams[K], 'unsubscribe' | 'username'>;
    now: number;
    siteUrl: string;
  },
): Promise<boolean> {
  const u = m.user;
  if (!wantsNotice(u, m.kind)) return false;
  const token = newSecret();
  await insertAccountToken(trx, {
    tokenHash: hashSecret(token),
    purpose: 'unsubscribe',
    userId: u.id,
    detail: m.kind,
    now: m.now,
    expiresAt: m.now + UNSUBSCRIBE_TTL,
  });
  const params = {
    ...m.params,
    username: u.username,
    unsubscribe: `${m.siteUrl}/notices/unsubscribe/${token}`,
  } as unknown as MailParams[K];
  await queueMail(trx, { kind: m.kind, userId: u.id, to: u.email, params, now: m.now, siteUrl: m.siteUrl });
  return true;
}

/** Whether `user` gets notice `kind`: a live account with a verified address that did not turn it off. */
export function wantsNotice(user: UserRecord, kind: NoticeKind): boolean {
  return user.deletedAt === null && user.emailVerifiedAt !== null && user.email !== '' && user.notices[kind];
}

/**
 * Queues notice `kind` for many users at once in `trx`, in multi-row statements (the monthly
 * receipts of a settlement): the same rules and links as queueNotice, one message per item.
 * With `messageIdOf`, each message gets that fixed Message-ID and an item whose message is queued
 * already is skipped: a batch run again queues nothing twice.
 * @returns how many messages were queued (items whose user does not want the notice, or whose
 *   message is queued already, are skipped).
 */
export async function queueNotices<K extends NoticeKind>(
  trx: Executor,
  m: {
    kind: K;
    items: { user: UserRecord; params: Omit<MailParams[K], 'unsubscribe' | 'username'> }[];
    now: number;
    siteUrl: string;
    messageIdOf?: (user: UserRecord) => string;
  },
): Promise<number> {
  const tokens: Parameters<typeof insertAccountTokens>[1] = [];
  const messages: Parameters<typeof insertMails>[1] = [];
  const idOf = m.messageIdOf ?? (() => newMessageId(m.siteUrl));
  const wanted = m.items.filter((i) => wantsNotice(i.user, m.kind)).map((i) => ({ ...i, messageId: idOf(i.user) }));
  const queued = m.messageIdOf
    ? await existingMessageIds(
        trx,
        wanted.map((w) => w.messageId),
      )
    : new Set<string>();
  for (const { user, params, messageId } of wanted) {
    if (queued.has(messageId)) continue;
    const token = newSecret();
    tokens.push({
      tokenHash: hashSecret(token),
      purpose: 'unsubscribe',
      userId: user.id,
      detail: m.kind,
      expiresAt: m.now + UNSUBSCRIBE_TTL,
    });
    messages.push({
      messageId,
      kind: m.kind,
      userId: user.id,
      recipient: user.email,
      params: { ...params, username: user.username, unsubscribe: `${m.siteUrl}/notices/unsubscribe/${token}` },
    });
  }
  if (messages.length === 0) return 0;
  await insertAccountTokens(trx, tokens, m.now);
  await insertMails(trx, messages, m.now);
  recordChange(trx, { kind: 'mail' });
  return messages.length;
}

/** The latest messages (newest first), all or those to one address: for operators (`tipjar mail list`). */
export async function listMessages(s: Services, filter: { to?: string; limit: number }): Promise<MailRecord[]> {
  return listMail(s.database.db, { recipient: filter.to, limit: filter.limit });
}
