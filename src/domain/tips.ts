/**
 * Tipping (api-v2.md "Tips", DECISIONS.md "Tips" and "Money"). A tip is one row per thing, tipper
 * and period, written in one transaction with the thing's counters and the activity.
 */
import { inTransaction, type Executor } from '../db/transaction.ts';
import { findThingById, findThingByUrlKey } from '../db/repositories/things.ts';
import {
  countTipOnThing,
  countTipsByTipper,
  insertTipOnce,
  listRecentPublicTips,
  listTipsByTipper,
  listTipsOnThing,
  lockThingForTip,
  tipAtOnce,
} from '../db/repositories/tips.ts';
import { insertActivity } from '../db/repositories/activities.ts';
import { findMeans, findUserById, findUserByUsername, fixPeriodBudget } from '../db/repositories/users.ts';
import {
  InvalidRequestError,
  NoMeansError,
  NotFoundError,
  TipOnceError,
  TipOwnerError,
  ValidationError,
} from './errors.ts';
import { periodOf } from './periods.ts';
import type { PageRequest, Principal, ThingId, ThingRecord, TipRecord } from './records.ts';
import type { Services } from './services.ts';
import { parseNewThing } from './thing-input.ts';
import { insertNewThing, getThing } from './things.ts';
import { parseAutoSubmit, parseHttpUrl, urlKey, type AutoSubmit } from './urls.ts';
import { getUser } from './users.ts';
import { hasMeans } from './money/means.ts';
import { enqueuePendingClick } from './events.ts';
import { requireIdentity } from './identities.ts';
import { findIdentityOwner, findPartnerByNamespace } from '../db/repositories/partners.ts';
import { insertThing } from '../db/repositories/things.ts';
import { isUniqueViolation } from '../db/transaction.ts';
import { queueNotice } from './mail.ts';

/**
 * Tips `thing` for `tipperId` inside `trx`. Checks, in order: owner (tip_owner), means (no_means),
 * once per period (tip_once, enforced by a unique constraint so concurrent tips cannot both win).
 * The tipper's first tip of a period fixes the budget of that period (DECISIONS.md "Money"); the
 * means check uses that fixed budget once there is one.
 * @returns the thing with its updated `tips` count.
 */
export async function tipInTransaction(
  trx: Executor,
  s: Services,
  thing: ThingRecord,
  tip: { tipperId: number; clientId: number | null; source: 'api' | 'subscription' },
): Promise<ThingRecord> {
  if (thing.owner.kind === 'user' && thing.owner.userId === tip.tipperId) throw new TipOwnerError();
  const now = s.clock.now();
  const period = periodOf(now);
  const means = await findMeans(trx, tip.tipperId, period);
  if (!means || !hasMeans(means)) throw new NoMeansError();
  await lockThingForTip(trx, s.database.engine, thing.id);
  const tipId = await insertTipOnce(trx, {
    thingId: thing.id,
    tipperId: tip.tipperId,
    period,
    now,
    source: tip.source,
    clientId: tip.clientId,
  });
  if (tipId === undefined) throw new TipOnceError();
  if (means.periodBudgetCents === null) await fixPeriodBudget(trx, tip.tipperId, period, means.budgetCents, now);
  const tips = await countTipOnThing(trx, thing.id, tip.tipperId, period, now);
  await insertActivity(trx, {
    actorUserId: tip.tipperId,
    verb: 'like',
    thingId: thing.id,
    thingOwnerUserId: thing.owner.kind === 'user' ? thing.owner.userId : null,
    now,
  });
  if (thing.owner.kind === 'identity') {
    // A tip on a pending thing: `pendingclickcreate` to the identity's partners, in this transaction.
    const tipper = (await findUserById(trx, tip.tipperId))!;
    await enqueuePendingClick(trx, s.siteUrl, {
      thingId: thing.id,
      identity: thing.owner.identity,
      tipsTotal: tips,
      tipperUsername: tipper.hideTips ? '' : tipper.username,
      now,
    });
  }
  return { ...thing, tips, lastTipAt: now };
}

/**
 * `POST /things/:id/tip` (scope `tip`).
 * @returns the tipped thing (confirmation representation is the presenter's).
 * @throws NotFoundError, TipOwnerError, NoMeansError, TipOnceError
 */
export async function tipThing(s: Services, principal: Principal, thingId: ThingId): Promise<ThingRecord> {
  if (!Number.isSafeInteger(thingId) || thingId <= 0) throw new NotFoundError('Thing not found', 'tips');
  const now = s.clock.now();
  // Where the engine can, the whole tip is one statement (one round trip): same checks, same writes.
  const once = await tipAtOnce(s.database, {
    thingId,
    tipperId: principal.userId,
    period: periodOf(now),
    now,
    source: 'api',
    clientId: principal.clientId,
  });
  switch (once?.outcome) {
    case 'tipped':
      return once.thing;
    case 'not_found':
      throw new NotFoundError('Thing not found', 'tips');
    case 'tip_owner':
      throw new TipOwnerError();
    case 'no_means':
      throw new NoMeansError();
    case 'tip_once':
      throw new TipOnceError();
    case 'pending':
    case undefined:
      break;
  }
  return inTransaction(s.database, async (trx) => {
    const thing = await findThingById(trx, thingId);
    if (!thing) throw new NotFoundError('Thing not found', 'tips');
    return tipInTransaction(trx, s, thing, { tipperId: principal.userId, clientId: principal.clientId, source: 'api' });
  });
}

/**
 * `POST /tip` (scope `tip`) with body `{url}`: a registered thing's URL; an auto-submit URL
 * (`{site_url}/submit/auto?url=…` with `user_id=<username>` or `owner=<identity>`, plus optional
 * thing metadata) whose thing is created on its first tip, in the same transaction as the tip; or
 * an unregistered URL whose page or feed links such an auto-submit URL (`rel="payment"`,
 * DECISIONS.md "Discovery"; only when `s.discovery` is set).
 * @throws InvalidRequestError (url missing or malformed), NotFoundError (unregistered URL without
 *   a discoverable owner, unknown `user_id`), ValidationError (bad auto-submit metadata or
 *   `owner`, owner mismatch), and the tip errors.
 */
export async function tipUrl(s: Services, principal: Principal, rawUrl: string): Promise<ThingRecord> {
  if (typeof rawUrl !== 'string' || !parseHttpUrl(rawUrl.trim())) {
    throw new InvalidRequestError('The url parameter must be an absolute http or https URL', 'tips');
  }
  let auto = parseAutoSubmit(rawUrl, s.siteUrl);
  if (!auto) {
    const thing = await findThingByUrlKey(s.database.db, urlKey(parseHttpUrl(rawUrl.trim())!));
    if (thing) return tipThing(s, principal, thing.id);
    const discovered = s.discovery ? await s.discovery.discover(rawUrl.trim()) : null;
    auto = discovered ? parseAutoSubmit(discovered, s.siteUrl) : null;
    if (!auto) throw new NotFoundError('No thing is registered for this URL', 'tips');
  }
  return tipAutoSubmit(s, principal, auto);
}

/**
 * The owner an auto-submit URL names: `user_id` (a username) or `owner` (an identity, notes §15);
 * an identity a user has verified stands for that user.
 * @throws ValidationError (both given, malformed identity, unknown partner namespace),
 *   NotFoundError (neither given, unknown user).
 */
async function autoSubmitOwner(s: Services, auto: AutoSubmit): Promise<{ userId: number } | { identity: string }> {
  if (auto.owner !== undefined && auto.user_id !== undefined) {
    throw new ValidationError('An auto-submit URL names its owner with user_id or owner, not both', 'tips');
  }
  if (auto.owner !== undefined) {
    const id = requireIdentity(auto.owner);
    if (id.kind === 'partner' && !(await findPartnerByNamespace(s.database.db, id.namespace))) {
      throw new ValidationError(`Invalid owner: no partner has the namespace "${id.namespace}"`, 'tips');
    }
    const verified = await findIdentityOwner(s.database.db, id.identity);
    return verified ? { userId: verified.userId } : { identity: id.identity };
  }
  if (!auto.user_id) throw new NotFoundError('The auto-submit URL names no owner (user_id or owner)', 'tips');
  const user = await findUserByUsername(s.database.db, auto.user_id);
  if (!user || user.deletedAt !== null) throw new NotFoundError(`No user "${auto.user_id}"`, 'tips');
  return { userId: user.id };
}

/**
 * Tips the thing of an auto-submit URL, creating it (pending when owned by an identity) first; a
 * thing created for a user (`user_id`, or an `owner` identity the user verified) queues the
 * `thing_created` notice to that user in the same transaction.
 */
async function tipAutoSubmit(s: Services, principal: Principal, auto: AutoSubmit): Promise<ThingRecord> {
  const owner = await autoSubmitOwner(s, auto);
  const input = parseNewThing({ ...auto });
  const attempt = () =>
    inTransaction(s.database, async (trx) => {
      let thing = await findThingByUrlKey(trx, input.urlKey);
      const sameOwner =
        thing &&
        ('userId' in owner
          ? thing.owner.kind === 'user' && thing.owner.userId === owner.userId
          : thing.owner.kind === 'identity' && thing.owner.identity === owner.identity);
      if (thing && !sameOwner) {
        throw new ValidationError('Owner mismatch: the existing thing belongs to another account', 'tips');
      }
      if (!thing) {
        let id: number;
        if ('userId' in owner) {
          if (owner.userId === principal.userId) throw new TipOwnerError();
          // Its owner did not register it (anyone may tip an auto-submit URL): no `post` activity,
          // and the owner is told by e-mail (the `thing_created` notice) in this transaction.
          id = await insertNewThing(trx, s, input, owner.userId, { post: false });
          const ownerUser = await findUserById(trx, owner.userId);
          if (ownerUser)
            await queueNotice(trx, {
              kind: 'thing_created',
              user: ownerUser,
              params: { thingId: id, title: input.title, url: input.url },
              now: s.clock.now(),
              siteUrl: s.siteUrl,
            });
        } else {
          // A pending thing: no user owns it yet, so no `post` activity (it has no actor).
          try {
            id = await insertThing(trx, input, { identity: owner.identity }, s.clock.now());
          } catch (err) {
            if (isUniqueViolation(err)) throw new ValidationError('Invalid url: already registered');
            throw err;
          }
        }
        thing = (await findThingById(trx, id))!;
      }
      return tipInTransaction(trx, s, thing, {
        tipperId: principal.userId,
        clientId: principal.clientId,
        source: 'api',
      });
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

/**
 * `GET /users/:username/tips`: [] when the user hides their tips (to everyone but that user);
 * tips on hidden things only for the things' owner (DECISIONS.md "Things"). @throws NotFoundError
 */
export async function listUserTips(
  s: Services,
  username: string,
  viewer: Principal | undefined,
  page: PageRequest,
): Promise<TipRecord[]> {
  const user = await getUser(s, username);
  if (user.hideTips && viewer?.userId !== user.id) return [];
  return listTipsByTipper(s.database.db, user.id, viewer?.userId, page);
}

/** How many tips `listUserTips` lists to `viewer` over all pages (0 when the user hides them from `viewer`). @throws NotFoundError */
export async function countUserTips(s: Services, username: string, viewer: Principal | undefined): Promise<number> {
  const user = await getUser(s, username);
  if (user.hideTips && viewer?.userId !== user.id) return 0;
  return countTipsByTipper(s.database.db, user.id, viewer?.userId);
}

/** `GET /user/tips`: the caller's own tips (even if they hide them), less tips on others' hidden things. */
export async function listOwnTips(s: Services, principal: Principal, page: PageRequest): Promise<TipRecord[]> {
  return listTipsByTipper(s.database.db, principal.userId, principal.userId, page);
}

/**
 * `GET /things/:id/tips` (token required; the website's thing page without one): [] for a hidden
 * thing the viewer does not own; tips of users who hide their tips only to those users.
 * @param viewer the caller, undefined when anonymous
 * @throws NotFoundError
 */
export async function listThingTips(
  s: Services,
  viewer: Principal | undefined,
  thingId: number,
  page: PageRequest,
): Promise<TipRecord[]> {
  const thing = await getThing(s, thingId);
  return listTipsOnThing(s.database.db, thing.id, viewer?.userId, page);
}

/**
 * The thing page's "tippers this month": the tips `thingId` received in the current period
 * (DECISIONS.md "Tips": a period is a calendar month in UTC), newest first, under the same rules as
 * listThingTips (tippers who hide their tips left out but for the viewer; none for a hidden thing
 * the viewer does not own).
 * @throws NotFoundError (no such thing)
 */
export async function listThingTipsThisPeriod(
  s: Services,
  viewer: Principal | undefined,
  thingId: number,
  page: PageRequest,
): Promise<TipRecord[]> {
  const thing = await getThing(s, thingId);
  return listTipsOnThing(s.database.db, thing.id, viewer?.userId, page, { period: periodOf(s.clock.now()) });
}

/**
 * The newest public tips on the site, newest first, at most `count`: tips of users who do not hide
 * their tips (DECISIONS.md "Things": hidden things are left out for everyone here, owners included),
 * on things that are not deleted.
 */
export async function listRecentTips(s: Services, count: number): Promise<TipRecord[]> {
  return listRecentPublicTips(s.database.db, count);
}
