/**
 * Subscriptions (api-v2.md "Subscriptions"): the per-viewer `subscribed` field, the state machine
 * (create, toggle, delete) and the per-period renewal records.
 */
import { sql } from 'kysely';
import type { Executor } from '../transaction.ts';

/** Of `thingIds`, those `userId` has a subscription to (active or paused). */
export async function subscribedThingIds(ex: Executor, userId: number, thingIds: number[]): Promise<Set<number>> {
  if (thingIds.length === 0) return new Set();
  const rows = await ex
    .selectFrom('subscriptions')
    .select('thing_id')
    .where('user_id', '=', userId)
    .where('thing_id', 'in', thingIds)
    .execute();
  return new Set(rows.map((r) => r.thing_id));
}

/** A subscription row in domain form (times in Unix seconds). */
export interface SubscriptionRecord {
  id: number;
  userId: number;
  thingId: number;
  active: boolean;
  createdAt: number;
  startedAt: number;
}

function toSubscriptionRecord(r: {
  id: number;
  user_id: number;
  thing_id: number;
  active: number;
  created_at: number;
  started_at: number;
}): SubscriptionRecord {
  return {
    id: r.id,
    userId: r.user_id,
    thingId: r.thing_id,
    active: r.active === 1,
    createdAt: r.created_at,
    startedAt: r.started_at,
  };
}

const SUBSCRIPTION_COLUMNS = ['id', 'user_id', 'thing_id', 'active', 'created_at', 'started_at'] as const;

/** The subscription of `userId` to `thingId`, if any. */
export async function findSubscription(
  ex: Executor,
  userId: number,
  thingId: number,
): Promise<SubscriptionRecord | undefined> {
  const r = await ex
    .selectFrom('subscriptions')
    .select(SUBSCRIPTION_COLUMNS)
    .where('user_id', '=', userId)
    .where('thing_id', '=', thingId)
    .executeTakeFirst();
  return r && toSubscriptionRecord(r);
}

/**
 * Inserts an active subscription (created_at = started_at = now) unless one exists (unique user +
 * thing, so concurrent requests cannot both create one).
 * @returns the new id, or undefined when the user was already subscribed.
 */
export async function insertSubscription(
  ex: Executor,
  s: { userId: number; thingId: number; now: number },
): Promise<number | undefined> {
  const r = await ex
    .insertInto('subscriptions')
    .values({
      user_id: s.userId,
      thing_id: s.thingId,
      active: 1,
      created_at: s.now,
      started_at: s.now,
      updated_at: s.now,
    })
    .onConflict((oc) => oc.columns(['user_id', 'thing_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return r?.id;
}

/**
 * Toggles a subscription in one statement: active → paused; paused → active with started_at = now.
 * @returns the new state (true = active), or undefined when there is no subscription.
 */
export async function toggleSubscription(
  ex: Executor,
  userId: number,
  thingId: number,
  now: number,
): Promise<boolean | undefined> {
  const r = await ex
    .updateTable('subscriptions')
    .set({
      active: sql<number>`1 - active`,
      started_at: sql<number>`case when active = 0 then ${now} else started_at end`,
      updated_at: now,
    })
    .where('user_id', '=', userId)
    .where('thing_id', '=', thingId)
    .returning('active')
    .executeTakeFirst();
  return r && r.active === 1;
}

/** Deletes a subscription. @returns false when there was none. */
export async function deleteSubscription(ex: Executor, userId: number, thingId: number): Promise<boolean> {
  const r = await ex
    .deleteFrom('subscriptions')
    .where('user_id', '=', userId)
    .where('thing_id', '=', thingId)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** A user's subscriptions, active and paused, newest first. */
export async function listSubscriptionsOfUser(ex: Executor, userId: number): Promise<SubscriptionRecord[]> {
  const rows = await ex
    .selectFrom('subscriptions')
    .select(SUBSCRIPTION_COLUMNS)
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toSubscriptionRecord);
}

/** Active subscriptions without a renewal record for `period`, by id. */
export async function listSubscriptionsToRenew(ex: Executor, period: string): Promise<SubscriptionRecord[]> {
  const rows = await ex
    .selectFrom('subscriptions as s')
    .select(['s.id', 's.user_id', 's.thing_id', 's.active', 's.created_at', 's.started_at'])
    .where('s.active', '=', 1)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('subscription_renewals as r')
            .select('r.period')
            .where('r.period', '=', period)
            .whereRef('r.user_id', '=', 's.user_id')
            .whereRef('r.thing_id', '=', 's.thing_id'),
        ),
      ),
    )
    .orderBy('s.id')
    .execute();
  return rows.map(toSubscriptionRecord);
}

/**
 * Claims the renewal of a subscription for a period (outcome 'pending' until set).
 * @returns false when it was already claimed (renewed, or being renewed by another run).
 */
export async function claimRenewal(
  ex: Executor,
  r: { period: string; userId: number; thingId: number; now: number },
): Promise<boolean> {
  const row = await ex
    .insertInto('subscription_renewals')
    .values({
      period: r.period,
      user_id: r.userId,
      thing_id: r.thingId,
      outcome: 'pending',
      tip_id: null,
      created_at: r.now,
    })
    .onConflict((oc) => oc.columns(['period', 'user_id', 'thing_id']).doNothing())
    .returning('period')
    .executeTakeFirst();
  return row !== undefined;
}

/** Records the outcome of a claimed renewal. */
export async function setRenewalOutcome(
  ex: Executor,
  r: { period: string; userId: number; thingId: number; outcome: string; tipId: number | null },
): Promise<void> {
  await ex
    .updateTable('subscription_renewals')
    .set({ outcome: r.outcome, tip_id: r.tipId })
    .where('period', '=', r.period)
    .where('user_id', '=', r.userId)
    .where('thing_id', '=', r.thingId)
    .execute();
}

/** The things of `userId` whose renewal in `period` ended with `outcome` (e.g. 'no_means'), by thing id. */
export async function listRenewalsWithOutcome(
  ex: Executor,
  userId: number,
  period: string,
  outcome: string,
): Promise<number[]> {
  const rows = await ex
    .selectFrom('subscription_renewals')
    .select('thing_id')
    .where('user_id', '=', userId)
    .where('period', '=', period)
    .where('outcome', '=', outcome)
    .orderBy('thing_id')
    .execute();
  return rows.map((r) => r.thing_id);
}
