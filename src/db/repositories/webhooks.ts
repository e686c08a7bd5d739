/**
 * The webhook outbox (webhook_deliveries) and its attempt log (webhook_attempts). Rows are written
 * in the transaction of the event that causes them (a tip), claimed by one dispatcher at a time
 * with a lease (claimed_by, claimed_until), and finished as `delivered` or `failed`.
 */
import { sql } from 'kysely';
import type { Engine } from '../connect.ts';
import type { Executor } from '../transaction.ts';
import { claimDueRows } from './outbox.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRecord {
  id: number;
  messageId: string;
  partnerId: number;
  event: string;
  /** the form parameters */
  payload: Record<string, string>;
  status: DeliveryStatus;
  attempts: number;
  /** Unix seconds */
  nextAttemptAt: number;
  claimedBy: string | null;
  claimedUntil: number | null;
  createdAt: number;
  deliveredAt: number | null;
  lastError: string | null;
}

export interface AttemptRecord {
  id: number;
  deliveryId: number;
  attemptedAt: number;
  /** HTTP status of the response, null when there was none (refused, timeout, network) */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

interface DeliveryRow {
  id: number;
  message_id: string;
  partner_id: number;
  event: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: number;
  claimed_by: string | null;
  claimed_until: number | null;
  created_at: number;
  delivered_at: number | null;
  last_error: string | null;
}

function toDelivery(r: DeliveryRow): DeliveryRecord {
  return {
    id: r.id,
    messageId: r.message_id,
    partnerId: r.partner_id,
    event: r.event,
    payload: JSON.parse(r.payload) as Record<string, string>,
    status: r.status as DeliveryStatus,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    claimedBy: r.claimed_by,
    claimedUntil: r.claimed_until,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
    lastError: r.last_error,
  };
}

/** Writes one pending delivery, due at once. */
export async function insertDelivery(
  ex: Executor,
  d: { messageId: string; partnerId: number; event: string; payload: Record<string, string>; now: number },
): Promise<void> {
  await ex
    .insertInto('webhook_deliveries')
    .values({
      message_id: d.messageId,
      partner_id: d.partnerId,
      event: d.event,
      payload: JSON.stringify(d.payload),
      status: 'pending',
      attempts: 0,
      next_attempt_at: d.now,
      created_at: d.now,
    })
    .execute();
}

/**
 * Claims up to `limit` due deliveries for `worker` until `now + leaseSeconds` (outbox.ts
 * claimDueRows: two instances never claim one delivery).
 * @returns the claimed deliveries, oldest due first.
 */
export async function claimDueDeliveries(
  ex: Executor,
  engine: Engine,
  worker: string,
  now: number,
  leaseSeconds: number,
  limit: number,
): Promise<DeliveryRecord[]> {
  const ids = await claimDueRows(ex, engine, 'webhook_deliveries', { worker, now, leaseSeconds, limit });
  if (ids.length === 0) return [];
  const rows = await ex.selectFrom('webhook_deliveries').selectAll().where('id', 'in', ids).execute();
  return rows.map(toDelivery).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
}

/** Appends one attempt to the log. */
export async function insertAttempt(
  ex: Executor,
  a: { deliveryId: number; attemptedAt: number; statusCode: number | null; error: string | null; durationMs: number },
): Promise<void> {
  await ex
    .insertInto('webhook_attempts')
    .values({
      delivery_id: a.deliveryId,
      attempted_at: a.attemptedAt,
      status_code: a.statusCode,
      error: a.error,
      duration_ms: a.durationMs,
    })
    .execute();
}

/**
 * Finishes an attempt of a delivery this worker holds: `delivered`, `failed`, or back to
 * `pending` due at `nextAttemptAt`; the claim is released and `attempts` counted.
 * @returns false when the worker no longer holds the claim (nothing changed).
 */
export async function finishAttempt(
  ex: Executor,
  id: number,
  worker: string,
  outcome: { status: DeliveryStatus; now: number; nextAttemptAt?: number; error: string | null },
): Promise<boolean> {
  const r = await ex
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      attempts: sql`attempts + 1`,
      claimed_by: null,
      claimed_until: null,
      last_error: outcome.error,
      ...(outcome.status === 'delivered' ? { delivered_at: outcome.now } : {}),
      ...(outcome.nextAttemptAt !== undefined ? { next_attempt_at: outcome.nextAttemptAt } : {}),
    })
    .where('id', '=', id)
    .where('claimed_by', '=', worker)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function findDelivery(ex: Executor, id: number): Promise<DeliveryRecord | undefined> {
  const r = await ex.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toDelivery(r);
}

/** A partner's deliveries, newest first. */
export async function listDeliveries(ex: Executor, partnerId: number, limit: number): Promise<DeliveryRecord[]> {
  const rows = await ex
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toDelivery);
}

/** The attempts of some deliveries, oldest first. */
export async function listAttempts(ex: Executor, deliveryIds: number[]): Promise<AttemptRecord[]> {
  if (deliveryIds.length === 0) return [];
  const rows = await ex
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    deliveryId: r.delivery_id,
    attemptedAt: r.attempted_at,
    statusCode: r.status_code,
    error: r.error,
    durationMs: r.duration_ms,
  }));
}

/**
 * Puts a delivery back in the queue, due at `now` (its message id stays, so receivers that
 * dedupe by `webhook-id` see a repeat, not a new event). The retry window still counts from
 * `created_at`: past it, one failed attempt makes the delivery `failed` again.
 * @returns false when there is no such delivery.
 */
export async function requeueDelivery(ex: Executor, id: number, now: number): Promise<boolean> {
  const r = await ex
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, claimed_by: null, claimed_until: null })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Pending deliveries (the outbox depth). */
export async function countPending(ex: Executor): Promise<number> {
  const r = await ex
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
