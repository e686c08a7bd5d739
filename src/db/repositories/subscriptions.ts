/** Subscriptions (reads used by the per-viewer `subscribed` field; the state machine is issue 4's). */
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
