/** Activity rows, written in the same transaction as the event they record. */
import type { Executor } from '../transaction.ts';

export type Verb = 'like' | 'post' | 'follow';

/** Records that `actorUserId` did `verb` to `thingId` (owned by `thingOwnerUserId`, null when pending). */
export async function insertActivity(
  ex: Executor,
  a: { actorUserId: number; verb: Verb; thingId: number; thingOwnerUserId: number | null; now: number },
): Promise<void> {
  await ex
    .insertInto('activities')
    .values({
      actor_user_id: a.actorUserId,
      verb: a.verb,
      thing_id: a.thingId,
      thing_owner_user_id: a.thingOwnerUserId,
      created_at: a.now,
    })
    .execute();
}
