/**
 * Activities (api-v2.md "Activities", DECISIONS.md "Activities"): what a user did (`outgoing`) and
 * what others did to the user's things (`incoming`), the newest 100 items, not paged. The rows
 * are written by tips (`like`), thing registration (`post`) and subscriptions (`follow`), each in
 * the transaction of its event.
 */
import { listActivities, type ActivityRecord } from '../db/repositories/activities.ts';
import { InvalidParametersError } from './errors.ts';
import { single } from './input.ts';
import type { Principal, UserRecord } from './records.ts';
import type { Services } from './services.ts';
import { getUser } from './users.ts';

export type { ActivityRecord };

/** `type=outgoing` (default): what the user did; `type=incoming`: what others did to the user's things. */
export type ActivityDirection = 'outgoing' | 'incoming';

/** Activities are not paged: the newest this many (DECISIONS.md "Pagination and `full`"). */
export const ACTIVITY_LIMIT = 100;

/**
 * Parses the `type` query parameter: absent or empty → `outgoing`; `outgoing` or `incoming` in
 * any letter case; a repeated parameter counts by its first value.
 * @throws InvalidParametersError (400 `invalid_parameters`) for any other value
 */
export function parseActivityType(raw: unknown): ActivityDirection {
  const v = single(raw);
  if (v === undefined || v === '') return 'outgoing';
  const t = typeof v === 'string' ? v.toLowerCase() : '';
  if (t === 'outgoing' || t === 'incoming') return t;
  throw new InvalidParametersError('type must be "outgoing" or "incoming"', 'activities');
}

/**
 * `GET /users/:username/activities`: the user's newest activities in `direction`, newest first.
 * Hidden things are shown only to their owner, deleted things to nobody, tips of users who hide
 * their tips only to those users.
 * @param viewer the caller's principal, undefined when anonymous
 * @returns the user (for the feed's title and author) and the activities
 * @throws NotFoundError (404) for an unknown user
 */
export async function listUserActivities(
  s: Services,
  username: string,
  viewer: Principal | undefined,
  direction: ActivityDirection,
): Promise<{ user: UserRecord; activities: ActivityRecord[] }> {
  const user = await getUser(s, username);
  const activities = await listActivities(s.database.db, {
    userId: user.id,
    direction,
    viewerId: viewer?.userId,
    limit: ACTIVITY_LIMIT,
  });
  return { user, activities };
}

/** `GET /user/activities` (token, any scope): the caller's own newest activities in `direction`. */
export async function listOwnActivities(
  s: Services,
  principal: Principal,
  direction: ActivityDirection,
): Promise<ActivityRecord[]> {
  return listActivities(s.database.db, {
    userId: principal.userId,
    direction,
    viewerId: principal.userId,
    limit: ACTIVITY_LIMIT,
  });
}
