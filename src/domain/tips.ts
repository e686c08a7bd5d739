/**
 * Tipping (api-v2.md "Tips", DECISIONS.md "Tips" and "Money"). A tip is one row per thing, tipper
 * and period, written in one transaction with the thing's counters and the activity.
 */
import { inTransaction, type Executor } from '../db/transaction.ts';
import { findThingById, findThingByUrlKey } from '../db/repositories/things.ts';
import { countTipOnThing, insertTipOnce, listTipsByTipper, listTipsOnThing } from '../db/repositories/tips.ts';
import { insertActivity } from '../db/repositories/activities.ts';
import { findMeans, findUserByUsername } from '../db/repositories/users.ts';
import { InvalidRequestError, NoMeansError, NotFoundError, TipOnceError, TipOwnerError, ValidationError } from './errors.ts';
import { periodOf } from './periods.ts';
import type { PageRequest, Principal, ThingRecord, TipRecord } from './records.ts';
import type { Services } from './services.ts';
import { parseNewThing } from './thing-input.ts';
import { insertNewThing, getThing } from './things.ts';
import { parseAutoSubmit, parseHttpUrl, urlKey } from './urls.ts';
import { getUser, hasMeans } from './users.ts';

/**
 * Tips `thing` for `tipperId` inside `trx`. Checks, in order: owner (tip_owner), means (no_means),
 * once per period (tip_once, enforced by a unique constraint so concurrent tips cannot both win).
 * @returns the thing with its updated `tips` count.
 */
export async function tipInTransaction(
  trx: Executor,
  s: Services,
  thing: ThingRecord,
  tip: { tipperId: number; clientId: number | null; source: 'api' | 'subscription' },
): Promise<ThingRecord> {
  if (thing.owner.kind === 'user' && thing.owner.userId === tip.tipperId) throw new TipOwnerError();
  const means = await findMeans(trx, tip.tipperId);
  if (!means || !hasMeans(means)) throw new NoMeansError();
  const now = s.clock.now();
  const period = periodOf(now);
  const tipId = await insertTipOnce(trx, { thingId: thing.id, tipperId: tip.tipperId, period, now, source: tip.source, clientId: tip.clientId });
  if (tipId === undefined) throw new TipOnceError();
  const tips = await countTipOnThing(trx, thing.id, tip.tipperId, period, now);
  await insertActivity(trx, {
    actorUserId: tip.tipperId,
    verb: 'like',
    thingId: thing.id,
    thingOwnerUserId: thing.owner.kind === 'user' ? thing.owner.userId : null,
    now,
  });
  return { ...thing, tips, lastTipAt: now };
}

/**
 * `POST /things/:id/tip` (scope `tip`).
 * @returns the tipped thing (confirmation representation is the presenter's).
 * @throws NotFoundError, TipOwnerError, NoMeansError, TipOnceError
 */
export async function tipThing(s: Services, principal: Principal, thingId: number): Promise<ThingRecord> {
  if (!Number.isSafeInteger(thingId) || thingId <= 0) throw new NotFoundError('Thing not found', 'tips');
  return inTransaction(s.database, async (trx) => {
    const thing = await findThingById(trx, thingId);
    if (!thing) throw new NotFoundError('Thing not found', 'tips');
    return tipInTransaction(trx, s, thing, { tipperId: principal.userId, clientId: principal.clientId, source: 'api' });
  });
}

/**
 * `POST /tip` (scope `tip`) with body `{url}`: a registered thing's URL, or an auto-submit URL
 * (`{site_url}/submit/auto?url=…&user_id=…` plus optional thing metadata) whose thing is created
 * on its first tip, in the same transaction as the tip.
 * @throws InvalidRequestError (url missing or malformed), NotFoundError (unregistered URL, unknown
 *   `user_id`), ValidationError (bad auto-submit metadata, owner mismatch), and the tip errors.
 */
export async function tipUrl(s: Services, principal: Principal, rawUrl: unknown): Promise<ThingRecord> {
  if (typeof rawUrl !== 'string' || !parseHttpUrl(rawUrl.trim())) {
    throw new InvalidRequestError('The url parameter must be an absolute http or https URL', 'tips');
  }
  const auto = parseAutoSubmit(rawUrl, s.siteUrl);
  if (!auto) {
    const thing = await findThingByUrlKey(s.database.db, urlKey(parseHttpUrl(rawUrl.trim())!));
    if (!thing) throw new NotFoundError('No thing is registered for this URL', 'tips');
    return tipThing(s, principal, thing.id);
  }
  if (!auto.user_id) {
    // `owner=` identities (pending things) arrive with the community-partners work.
    throw new NotFoundError('The auto-submit URL names no registered owner (user_id)', 'tips');
  }
  const input = parseNewThing({ ...auto });
  const owner = await findUserByUsername(s.database.db, auto.user_id);
  if (!owner) throw new NotFoundError(`No user "${auto.user_id}"`, 'tips');
  const attempt = () => inTransaction(s.database, async (trx) => {
    let thing = await findThingByUrlKey(trx, input.urlKey);
    if (thing && (thing.owner.kind !== 'user' || thing.owner.userId !== owner.id)) {
      throw new ValidationError('Owner mismatch: the existing thing belongs to another account', 'tips');
    }
    if (!thing) {
      if (owner.id === principal.userId) throw new TipOwnerError();
      const id = await insertNewThing(trx, s, input, owner.id);
      thing = (await findThingById(trx, id))!;
    }
    return tipInTransaction(trx, s, thing, { tipperId: principal.userId, clientId: principal.clientId, source: 'api' });
  });
  try {
    return await attempt();
  } catch (err) {
    // Concurrent first tips (PostgreSQL): another request registered the URL between our look-up
    // and our insert (unique url_key → ValidationError). Once more: the thing now exists, tip it.
    if (err instanceof ValidationError && (await findThingByUrlKey(s.database.db, input.urlKey))) return attempt();
    throw err;
  }
}

/** `GET /users/:username/tips`: [] when the user hides their tips. @throws NotFoundError */
export async function listUserTips(s: Services, username: string, viewer: Principal | undefined, page: PageRequest): Promise<TipRecord[]> {
  const user = await getUser(s, username);
  if (user.hideTips && viewer?.userId !== user.id) return [];
  return listTipsByTipper(s.database.db, user.id, page);
}

/** `GET /user/tips`: the caller's own tips, hidden or not. */
export async function listOwnTips(s: Services, principal: Principal, page: PageRequest): Promise<TipRecord[]> {
  return listTipsByTipper(s.database.db, principal.userId, page);
}

/** `GET /things/:id/tips` (token required). @throws NotFoundError */
export async function listThingTips(s: Services, principal: Principal, thingId: number, page: PageRequest): Promise<TipRecord[]> {
  const thing = await getThing(s, thingId);
  return listTipsOnThing(s.database.db, thing.id, principal.userId, page);
}
