/** Activity rows, written in the same transaction as the event they record, and the feeds' reads. */
import type { Executor } from '../transaction.ts';
import { precompiled } from '../precompiled.ts';

export type Verb = 'like' | 'post' | 'follow';

/** Records that `actorUserId` did `verb` to `thingId` (owned by `thingOwnerUserId`, null when pending). */
export async function insertActivity(
  ex: Executor,
  a: { actorUserId: number; verb: Verb; thingId: number; thingOwnerUserId: number | null; now: number },
): Promise<void> {
  await insertActivityStatement(ex, a.actorUserId, a.verb, a.thingId, a.thingOwnerUserId, a.now);
}

const insertActivityStatement = precompiled(
  (ex: Executor, actorUserId: number, verb: Verb, thingId: number, thingOwnerUserId: number | null, now: number) =>
    ex.insertInto('activities').values({
      actor_user_id: actorUserId,
      verb,
      thing_id: thingId,
      thing_owner_user_id: thingOwnerUserId,
      created_at: now,
    }),
);

/** One activity as the feeds need it. */
export interface ActivityRecord {
  id: number;
  verb: Verb;
  /** Unix seconds */
  createdAt: number;
  actor: { id: number; username: string };
  thing: { id: number; title: string; url: string };
}

/**
 * The newest activities of one user, newest first (ties by insertion order, newest first).
 * - `outgoing`: what `userId` did (index `activities_actor`).
 * - `incoming`: what others did to things `userId` owned at the time (index `activities_owner`);
 *   the user's own actions on their things are left out.
 * Deleted things are left out for everyone; hidden things for everyone but their owner
 * (`viewerId`); tips (`like`) of users who hide their tips for everyone but those users.
 * @param viewerId the user reading the feed, undefined when anonymous
 * @param limit at most this many rows
 */
export async function listActivities(
  ex: Executor,
  q: { userId: number; direction: 'outgoing' | 'incoming'; viewerId: number | undefined; limit: number },
): Promise<ActivityRecord[]> {
  const viewerId = q.viewerId ?? -1;
  let query = ex
    .selectFrom('activities')
    .innerJoin('users as actor', 'actor.id', 'activities.actor_user_id')
    .innerJoin('things', 'things.id', 'activities.thing_id')
    .select([
      'activities.id',
      'activities.verb',
      'activities.created_at',
      'actor.id as actor_id',
      'actor.username as actor_username',
      'things.id as thing_id',
      'things.title as thing_title',
      'things.url as thing_url',
    ])
    .where('things.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('things.hidden', '=', 0), eb('things.owner_user_id', '=', viewerId)]))
    .where((eb) =>
      eb.or([eb('activities.verb', '<>', 'like'), eb('actor.hide_tips', '=', 0), eb('actor.id', '=', viewerId)]),
    );
  query =
    q.direction === 'outgoing'
      ? query.where('activities.actor_user_id', '=', q.userId)
      : query.where('activities.thing_owner_user_id', '=', q.userId).where('activities.actor_user_id', '<>', q.userId);
  const rows = await query
    .orderBy('activities.created_at', 'desc')
    .orderBy('activities.id', 'desc')
    .limit(q.limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    verb: r.verb as Verb,
    createdAt: r.created_at,
    actor: { id: r.actor_id, username: r.actor_username },
    thing: { id: r.thing_id, title: r.thing_title, url: r.thing_url },
  }));
}

/**
 * Points the incoming side of the activities on `thingIds` that had no owner (pending things) at
 * `ownerUserId`: the things were claimed.
 */
export async function assignActivitiesToOwner(ex: Executor, thingIds: number[], ownerUserId: number): Promise<void> {
  if (thingIds.length === 0) return;
  await ex
    .updateTable('activities')
    .set({ thing_owner_user_id: ownerUserId })
    .where('thing_id', 'in', thingIds)
    .where('thing_owner_user_id', 'is', null)
    .execute();
}

/** Records one `post` activity per thing for its owner (bulk registration, e.g. an import). */
export async function insertPostActivities(
  ex: Executor,
  thingIds: number[],
  ownerUserId: number,
  now: number,
): Promise<void> {
  if (thingIds.length === 0) return;
  await ex
    .insertInto('activities')
    .values(
      thingIds.map((id) => ({
        actor_user_id: ownerUserId,
        verb: 'post',
        thing_id: id,
        thing_owner_user_id: ownerUserId,
        created_at: now,
      })),
    )
    .execute();
}
