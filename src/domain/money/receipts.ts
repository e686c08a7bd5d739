/**
 * The monthly receipt (src/domain/mail.ts `receipt`, DECISIONS.md "Money"): once a period is
 * settled, one message per user who tipped or earned in it, with both parts in one message —
 * what the user's budget paid, per tip in settlement order, and what each of the user's things
 * earned (shares held for pending things are not earnings yet). settlement.ts queues them once
 * every tipper is settled and before it marks the period settled, one batch per transaction, so
 * other writes never wait for more than a batch. Each receipt's Message-ID is fixed by the period
 * and the user (`receipt.<period>.<user id>@<site host>`): a run that dies midway and is run again
 * queues the missing ones and none twice.
 *
 * One pass, in batches, whatever the size of the period: the period's earnings per owner and thing
 * are read with one grouped query (at most one row per tipped thing and owner, with the thing's
 * title and URL, kept in memory);
 * the tippers are then read by ascending id, RECEIPT_BATCH at a time, with the owners whose ids
 * fall in the same range merged in, so each user is handled once. Users who do not get the notice
 * (unverified address, deleted, turned off) are dropped before their shares are read; messages are
 * written in multi-row statements.
 */
import { findUsersByIds } from '../../db/repositories/users.ts';
import {
  listEarnedInPeriod,
  listPaidShares,
  listPeriodBudgets,
  listTippersAfter,
} from '../../db/repositories/settlement.ts';
import { inTransaction, type Executor } from '../../db/transaction.ts';
import { queueNotices, wantsNotice, type MailParams, type ReceiptLine } from '../mail.ts';
import type { Services } from '../services.ts';

/** Users handled per batch (one read of users, shares, budgets and things each). */
export const RECEIPT_BATCH = 500;

/** The fixed Message-ID of a user's receipt for `period`. */
export function receiptMessageId(siteUrl: string, period: string, userId: number): string {
  return `receipt.${period}.${userId}@${new URL(siteUrl).hostname || 'localhost'}`;
}

/**
 * Queues the receipts of `period`, whose tippers are all settled (see the module comment): one
 * transaction per batch of users.
 * @param batchSize users per batch (≥ 1)
 * @returns how many messages were queued by this call.
 */
export async function queueReceipts(s: Services, period: string, batchSize = RECEIPT_BATCH): Promise<number> {
  const db = s.database.db;
  const earned = new Map<number, ReceiptLine[]>();
  for (const r of await listEarnedInPeriod(db, period)) {
    let lines = earned.get(r.userId);
    if (!lines) earned.set(r.userId, (lines = []));
    lines.push({ thingId: r.thingId, title: r.title, url: r.url, cents: r.cents });
  }
  const owners = [...earned.keys()].sort((a, b) => a - b);
  let nextOwner = 0;
  let after = 0;
  let queued = 0;
  for (let more = true; more;) {
    const tippers = await listTippersAfter(db, period, after, batchSize);
    more = tippers.length === batchSize;
    const upTo = more ? tippers[tippers.length - 1]! : Number.POSITIVE_INFINITY;
    const ids = new Set(tippers);
    while (nextOwner < owners.length && owners[nextOwner]! <= upTo) ids.add(owners[nextOwner++]!);
    const batch = [...ids].sort((a, b) => a - b);
    for (let i = 0; i < batch.length; i += batchSize) {
      const users = batch.slice(i, i + batchSize);
      queued += await inTransaction(s.database, (trx) => queueBatch(trx, s, period, users, earned));
    }
    if (more) after = upTo;
  }
  return queued;
}

/** Queues the receipts of one batch of users (tippers, owners or both). @returns messages queued. */
async function queueBatch(
  trx: Executor,
  s: Services,
  period: string,
  userIds: number[],
  earned: Map<number, ReceiptLine[]>,
): Promise<number> {
  const users = await findUsersByIds(trx, userIds);
  const wanted = userIds.flatMap((id) => {
    const u = users.get(id);
    return u && wantsNotice(u, 'receipt') ? [u] : [];
  });
  if (wanted.length === 0) return 0;
  const ids = wanted.map((u) => u.id);
  const shares = await listPaidShares(trx, period, ids);
  const budgets = await listPeriodBudgets(trx, period, ids);
  const paid = new Map<number, ReceiptLine[]>();
  for (const sh of shares) {
    let lines = paid.get(sh.tipperId);
    if (!lines) paid.set(sh.tipperId, (lines = []));
    lines.push({ thingId: sh.thingId, title: sh.title, url: sh.url, cents: sh.cents });
  }
  const items: { user: (typeof wanted)[number]; params: Omit<MailParams['receipt'], 'unsubscribe' | 'username'> }[] =
    [];
  for (const user of wanted) {
    const p = paid.get(user.id) ?? [];
    const e = earned.get(user.id) ?? [];
    if (p.length === 0 && e.length === 0) continue;
    items.push({
      user,
      params: {
        period,
        budgetCents: budgets.get(user.id) ?? user.budgetCents,
        paid: p,
        earned: e,
      },
    });
  }
  return queueNotices(trx, {
    kind: 'receipt',
    items,
    now: s.clock.now(),
    siteUrl: s.siteUrl,
    messageIdOf: (user) => receiptMessageId(s.siteUrl, period, user.id),
  });
}
