/**
 * Things (api-v2.md "Things", DECISIONS.md "Things"): read, look up, create, update, delete.
 */
import { inTransaction, isUniqueViolation } from '../db/transaction.ts';
import {
  findThingById,
  findThingByIdNow,
  findThingByUrlKey,
  findThingsByIds,
  insertThing,
  listPopularTags as listPopularTagRows,
  listThingsByOwner,
  softDeleteThing,
  updateThing as updateThingRow,
} from '../db/repositories/things.ts';
import { insertActivity } from '../db/repositories/activities.ts';
import { tippedThingIds } from '../db/repositories/tips.ts';
import { subscribedThingIds } from '../db/repositories/subscriptions.ts';
import { ForbiddenError, NotFoundError, ValidationError } from './errors.ts';
import { periodOf } from './periods.ts';
import type { PageRequest, Principal, ThingId, ThingRecord } from './records.ts';
import type { Services } from './services.ts';
import type { NewThing, ThingChanges } from './thing-input.ts';
import { requireIdentity } from './identities.ts';
import { findIdentityOwner } from '../db/repositories/partners.ts';
import { parseAutoSubmit, parseHttpUrl, urlKey } from './urls.ts';
import { getUser } from './users.ts';
import type { Executor } from '../db/transaction.ts';

/** At most this many ids in `GET /things/:id,:id`. */
export const MAX_MULTI_GET = 100;

/** What a token holder sees in addition: `tipped` (this period) and `subscribed`, per thing id. */
export interface ViewerState {
  userId: number;
  tipped: Set<number>;
  subscribed: Set<number>;
}

/** Per-viewer state for `things` (two queries), or undefined without a principal. */
export async function viewerState(
  s: Services,
  principal: Principal | undefined,
  things: ThingRecord[],
): Promise<ViewerState | undefined> {
  if (!principal) return undefined;
  const ids = [...new Set(things.map((t) => t.id))];
  const [tipped, subscribed] = await Promise.all([
    tippedThingIds(s.database.db, principal.userId, ids, periodOf(s.clock.now())),
    subscribedThingIds(s.database.db, principal.userId, ids),
  ]);
  return { userId: principal.userId, tipped, subscribed };
}

/** `GET /things/:id`. Hidden things are returned too: the id is the capability. @throws NotFoundError */
export async function getThing(s: Services, id: ThingId): Promise<ThingRecord> {
  const t = await findThingById(s.database.db, id);
  if (!t) throw new NotFoundError('Thing not found', 'things');
  return t;
}

/**
 * The live thing with this id as getThing reads it, or undefined for an unknown or deleted id:
 * at once where the database answers at once (a SQLite read outside a transaction), else a
 * promise. For the plain read of src/http/plain-thing-read.ts.
 */
export function findThingNow(s: Services, id: ThingId): ThingRecord | undefined | Promise<ThingRecord | undefined> {
  return findThingByIdNow(s.database.db, id);
}

/**
 * `GET /things/:id,:id`: the things in the order asked (duplicates once).
 * @param ids at most MAX_MULTI_GET (the edge refuses more).
 * @throws NotFoundError when any id is unknown.
 */
export async function getThings(s: Services, ids: ThingId[]): Promise<ThingRecord[]> {
  const unique = [...new Set(ids)];
  const found = await findThingsByIds(s.database.db, unique);
  const byId = new Map(found.map((t) => [t.id, t]));
  if (byId.size !== unique.length) throw new NotFoundError('Thing(s) could not be found', 'things');
  return unique.map((id) => byId.get(id)!);
}

/**
 * `GET /things/lookup/?url=`: the thing registered for a URL or for the inner `url` of an
 * auto-submit URL.
 * @returns the thing, or undefined when none is registered.
 * @param rawUrl the `url` parameter, non-empty (the edge refuses a missing one: parseLookupUrl).
 * @throws ValidationError (auto-submit `user_id` or `owner` differs from the registered thing's
 *   owner; `owner` not one of the three identity forms).
 */
export async function lookupThing(s: Services, rawUrl: string): Promise<ThingRecord | undefined> {
  const auto = parseAutoSubmit(rawUrl, s.siteUrl);
  const target = parseHttpUrl(auto ? auto.url : rawUrl.trim());
  if (!target) return undefined;
  // `owner=<identity>` (pending things, notes §15): validated even when no thing exists yet.
  const identity = auto?.owner !== undefined ? requireIdentity(auto.owner).identity : undefined;
  const thing = await findThingByUrlKey(s.database.db, urlKey(target));
  if (thing && auto?.user_id !== undefined && auto.user_id !== '') {
    const sameOwner = thing.owner.kind === 'user' && thing.owner.username.toLowerCase() === auto.user_id.toLowerCase();
    if (!sameOwner) throw new ValidationError('Owner mismatch: the existing thing belongs to another account');
  }
  if (thing && identity !== undefined) {
    // The identity itself (still pending), or the user who verified it (claimed).
    const verified = thing.owner.kind === 'user' ? await findIdentityOwner(s.database.db, identity) : undefined;
    const sameOwner =
      thing.owner.kind === 'identity' ? thing.owner.identity === identity : verified?.userId === thing.owner.userId;
    if (!sameOwner) throw new ValidationError('Owner mismatch: the existing thing belongs to another account');
  }
  return thing;
}

/**
 * Inserts a validated thing for an owner inside `trx`, and records the owner's `post` activity
 * unless `opts.post` is false (a thing created through an auto-submit URL: its owner did not
 * register it, DECISIONS.md "Things").
 * @throws ValidationError when the URL is already registered (naming the existing thing).
 */
export async function insertNewThing(
  trx: Executor,
  s: Services,
  input: NewThing,
  ownerUserId: number,
  opts: { post: boolean } = { post: true },
): Promise<number> {
  const now = s.clock.now();
  const existing = await findThingByUrlKey(trx, input.urlKey);
  if (existing) throw new ValidationError(`Invalid url: already registered as thing ${existing.id}`);
  let id: number;
  try {
    id = await insertThing(trx, input, { userId: ownerUserId }, now);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ValidationError('Invalid url: already registered');
    throw err;
  }
  if (opts.post)
    await insertActivity(trx, {
      actorUserId: ownerUserId,
      verb: 'post',
      thingId: id,
      thingOwnerUserId: ownerUserId,
      now,
    });
  return id;
}

/**
 * `POST /things` (scope `thing`): registers a thing owned by the caller.
 * @returns the new thing's id.
 * @throws ValidationError (the URL is already registered)
 */
export async function createThing(s: Services, principal: Principal, input: NewThing): Promise<ThingId> {
  return inTransaction(s.database, (trx) => insertNewThing(trx, s, input, principal.userId));
}

/**
 * The thing `id` when the caller owns it.
 * @param action the verb of the ForbiddenError's message (`update`, `delete`)
 * @throws NotFoundError, ForbiddenError (not the owner)
 */
export async function ownThing(s: Services, principal: Principal, id: ThingId, action: string): Promise<ThingRecord> {
  const thing = await getThing(s, id);
  if (thing.owner.kind !== 'user' || thing.owner.userId !== principal.userId) {
    throw new ForbiddenError(`You are not allowed to ${action} this thing: it is not yours`);
  }
  return thing;
}

/**
 * `PATCH /things/:id` (scope `thing`, owner only): changes title, description, category,
 * language, tags, hidden; sets `updated_at`. A `url` in `changes` must be the thing's own.
 * @throws NotFoundError, ForbiddenError (not the owner), ValidationError (another url)
 */
export async function updateThing(s: Services, principal: Principal, id: ThingId, input: ThingChanges): Promise<void> {
  const thing = await ownThing(s, principal, id, 'update');
  const { url, ...changes } = input;
  if (url !== undefined && url !== thing.url)
    throw new ValidationError('Invalid url: the url of a thing cannot be changed');
  await inTransaction(s.database, (trx) => updateThingRow(trx, id, changes, s.clock.now()));
}

/** `DELETE /things/:id` (scope `thing`, owner only). @throws NotFoundError, ForbiddenError */
export async function deleteThing(s: Services, principal: Principal, id: ThingId): Promise<void> {
  await ownThing(s, principal, id, 'delete');
  await inTransaction(s.database, (trx) => softDeleteThing(trx, id, s.clock.now()));
}

/**
 * `GET /users/:username/things`: newest first; hidden things only for their owner.
 * @throws NotFoundError (user)
 */
export async function listUserThings(
  s: Services,
  username: string,
  viewer: Principal | undefined,
  page: PageRequest,
): Promise<ThingRecord[]> {
  const user = await getUser(s, username);
  return listThingsByOwner(s.database.db, user.id, { ...page, includeHidden: viewer?.userId === user.id });
}

/** `GET /user/things`: the caller's things, hidden ones included. */
export async function listOwnThings(s: Services, principal: Principal, page: PageRequest): Promise<ThingRecord[]> {
  return listThingsByOwner(s.database.db, principal.userId, { ...page, includeHidden: true });
}

/** Tags listed by listPopularTags, per database, while fresh (see there). */
const popularTagsKept = new WeakMap<object, { at: number; limit: number; tags: { tag: string; things: number }[] }>();
/** How long a popular-tags list is kept, seconds, and from how many tagged things (the sum of its counts) on. */
const POPULAR_TAGS_KEEP_SECONDS = 300;
const POPULAR_TAGS_KEEP_FROM = 10_000;

/**
 * The most used tags (lower-cased) of things shown to everyone (neither hidden nor deleted), with
 * their thing counts, most first; at most `limit`. On a large site — the tags listed carry
 * POPULAR_TAGS_KEEP_FROM things or more — the list is kept up to POPULAR_TAGS_KEEP_SECONDS per
 * process (its counts may then be that old; counting takes a scan of every tag).
 */
export async function listPopularTags(s: Services, limit: number): Promise<{ tag: string; things: number }[]> {
  const now = s.clock.now();
  const kept = popularTagsKept.get(s.database);
  if (kept && kept.limit === limit && now >= kept.at && now - kept.at < POPULAR_TAGS_KEEP_SECONDS) return kept.tags;
  const tags = await listPopularTagRows(s.database, limit);
  if (tags.reduce((sum, t) => sum + t.things, 0) >= POPULAR_TAGS_KEEP_FROM)
    popularTagsKept.set(s.database, { at: now, limit, tags });
  else popularTagsKept.delete(s.database);
  return tags;
}
