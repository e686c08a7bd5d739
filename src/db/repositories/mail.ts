/**
 * The mail outbox (mail_outbox). Rows are written in the transaction of the event that causes the
 * message, claimed by one dispatcher at a time with a lease (claimed_by, claimed_until), and
 * finished as `sent` (their params emptied: the values, tokens included, are needed only to
 * compose the message) or `failed`.
 */
import type { Engine } from '../connect.ts';
import type { Executor } from '../transaction.ts';
import { claimDueRows } from './outbox.ts';

export type MailStatus = 'pending' | 'sent' | 'failed';

export interface MailRecord {
  id: number;
  /** RFC 5322 Message-ID without the angle brackets */
  messageId: string;
  kind: string;
  userId: number | null;
  recipient: string;
  /** the values the message is composed from ({} once sent) */
  params: Record<string, unknown>;
  status: MailStatus;
  attempts: number;
  /** Unix seconds */
  nextAttemptAt: number;
  createdAt: number;
  sentAt: number | null;
  lastError: string | null;
}

interface MailRow {
  id: number;
  message_id: string;
  kind: string;
  user_id: number | null;
  recipient: string;
  params: string;
  status: string;
  attempts: number;
  next_attempt_at: number;
  created_at: number;
  sent_at: number | null;
  last_error: string | null;
}

function toMail(r: MailRow): MailRecord {
  return {
    id: r.id,
    messageId: r.message_id,
    kind: r.kind,
    userId: r.user_id,
    recipient: r.recipient,
    params: JSON.parse(r.params) as Record<string, unknown>,
    status: r.status as MailStatus,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    sentAt: r.sent_at,
    lastError: r.last_error,
  };
}

/** Writes one pending message, due at once. */
export async function insertMail(
  ex: Executor,
  m: {
    messageId: string;
    kind: string;
    userId: number | null;
    recipient: string;
    params: Record<string, unknown>;
    now: number;
  },
): Promise<void> {
  await ex
    .insertInto('mail_outbox')
    .values({
      message_id: m.messageId,
      kind: m.kind,
      user_id: m.userId,
      recipient: m.recipient,
      params: JSON.stringify(m.params),
      status: 'pending',
      attempts: 0,
      next_attempt_at: m.now,
      created_at: m.now,
    })
    .execute();
}

/**
 * Writes many pending messages, due at once, in multi-row statements (settlement receipts). A
 * message whose Message-ID is queued already is left out (the ids of receipts are fixed per
 * period and user, so a repeated batch queues nothing twice).
 */
export async function insertMails(
  ex: Executor,
  messages: {
    messageId: string;
    kind: string;
    userId: number | null;
    recipient: string;
    params: Record<string, unknown>;
  }[],
  now: number,
): Promise<void> {
  // 9 columns a row: 500 rows stay far below the engines' limits on parameters.
  for (let i = 0; i < messages.length; i += 500) {
    await ex
      .insertInto('mail_outbox')
      .values(
        messages.slice(i, i + 500).map((m) => ({
          message_id: m.messageId,
          kind: m.kind,
          user_id: m.userId,
          recipient: m.recipient,
          params: JSON.stringify(m.params),
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          created_at: now,
        })),
      )
      .onConflict((oc) => oc.column('message_id').doNothing())
      .execute();
  }
}

/** Which of these Message-IDs are in the outbox already (any status). */
export async function existingMessageIds(ex: Executor, messageIds: string[]): Promise<Set<string>> {
  if (messageIds.length === 0) return new Set();
  const rows = await ex.selectFrom('mail_outbox').select('message_id').where('message_id', 'in', messageIds).execute();
  return new Set(rows.map((r) => r.message_id));
}

/**
 * Claims up to `limit` due messages for `worker` until `now + leaseSeconds` (outbox.ts
 * claimDueRows: two instances never claim one message).
 * @returns the claimed messages, oldest due first.
 */
export async function claimDueMail(
  ex: Executor,
  engine: Engine,
  worker: string,
  now: number,
  leaseSeconds: number,
  limit: number,
): Promise<MailRecord[]> {
  const ids = await claimDueRows(ex, engine, 'mail_outbox', { worker, now, leaseSeconds, limit });
  if (ids.length === 0) return [];
  const rows = await ex.selectFrom('mail_outbox').selectAll().where('id', 'in', ids).execute();
  return rows.map(toMail).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
}

/**
 * Finishes an attempt on a message this worker holds: `sent` (params emptied), `failed`, or back
 * to `pending` due at `nextAttemptAt`; the claim is released and `attempts` counted.
 * @returns false when the worker no longer holds the claim (nothing changed).
 */
export async function finishMailAttempt(
  ex: Executor,
  id: number,
  worker: string,
  outcome: { status: MailStatus; now: number; nextAttemptAt?: number; error: string | null; attempts: number },
): Promise<boolean> {
  const r = await ex
    .updateTable('mail_outbox')
    .set({
      status: outcome.status,
      attempts: outcome.attempts,
      claimed_by: null,
      claimed_until: null,
      last_error: outcome.error,
      ...(outcome.status === 'sent' ? { sent_at: outcome.now, params: '{}' } : {}),
      ...(outcome.nextAttemptAt !== undefined ? { next_attempt_at: outcome.nextAttemptAt } : {}),
    })
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Messages, newest first: all, or those of one recipient address or one user. */
export async function listMail(
  ex: Executor,
  filter: { recipient?: string; userId?: number; limit: number },
): Promise<MailRecord[]> {
  let q = ex.selectFrom('mail_outbox').selectAll().orderBy('id', 'desc').limit(filter.limit);
  if (filter.recipient !== undefined) q = q.where('recipient', '=', filter.recipient);
  if (filter.userId !== undefined) q = q.where('user_id', '=', filter.userId);
  return (await q.execute()).map(toMail);
}

/** Pending messages (the outbox depth). */
export async function countPendingMail(ex: Executor): Promise<number> {
  const r = await ex
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Deletes every message to or about a user (account deletion: nothing personal stays queued). */
export async function deleteMailOf(ex: Executor, userId: number): Promise<void> {
  await ex.deleteFrom('mail_outbox').where('user_id', '=', userId).execute();
}
