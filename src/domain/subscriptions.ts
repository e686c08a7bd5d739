/**
 * Subscriptions (api-v2.md "Subscriptions" and "States and transitions", DECISIONS.md
 * "Subscriptions"): a user's standing order to tip a thing every period.
 *
 * - create: an active subscription, a `follow` activity, and a tip for the current period unless
 *   already tipped; a user without means still subscribes (no tip now; renewals retry each period);
 * - toggle: active → paused; paused → active with `started_at` reset and a `follow` activity;
 * - delete: removed (also when the thing has since been deleted);
 * - renew: at the start of each period every active subscription tips its thing under the same
 *   rules and in the same transaction discipline as `POST /things/:id/tip`; each outcome is recorded
 *   once per subscription and period in `subscription_renewals`.
 */
import { inTransaction, type Executor } from '../db/transaction.ts';
import { findThingById, findThingsByIds } from '../db/repositories/things.ts';
import { insertActivity } from '../db/repositories/activities.ts';
import { findTipId } from '../db/repositories/tips.ts';
import { findPeriod, markPeriodRenewed } from '../db/repositories/periods.ts';
import {
  claimRenewal,
  deleteSubscription,
  findSubscription,
  insertSubscription,
  listRenewalsWithOutcome,
  listSubscriptionsOfUser,
  listSubscriptionsToRenew,
  setRenewalOutcome,
  toggleSubscription as toggleSubscriptionRow,
  type SubscriptionRecord,
} from '../db/repositories/subscriptions.ts';
import {
  InvalidParametersError,
  NoMeansError,
  NotFoundError,
  SubscribedError,
  ThingOwnerError,
  TipOnceError,
  TipOwnerError,
} from './errors.ts';
import { periodOf } from './periods.ts';
import type { Principal, ThingId, ThingRecord } from './records.ts';
import type { Services } from './services.ts';
import { tipInTransaction } from './tips.ts';
import { isPeriod } from './periods.ts';
import { findUserById } from '../db/repositories/users.ts';
import { queueNotice, wantsNotice } from './mail.ts';

export type { SubscriptionRecord };

const thingNotFound = () => new NotFoundError('Thing not found', 'subscriptions');

/** What happened to the tip that comes with a new subscription. */
export type SubscribeTip = 'tipped' | 'already_tipped' | 'no_means';

/**
 * `GET /user/subscriptions` (scope `tip`): the caller's subscriptions, active and paused, newest
 * first, each with its thing. Subscriptions to deleted things are left out (the thing is gone).
 */
export async function listSubscriptions(
  s: Services,
  principal: Principal,
): Promise<{ subscription: SubscriptionRecord; thing: ThingRecord }[]> {
  const subs = await listSubscriptionsOfUser(s.database.db, principal.userId);
  const things = new Map(
    (
      await findThingsByIds(
        s.database.db,
        subs.map((x) => x.thingId),
      )
    ).map((t) => [t.id, t]),
  );
  return subs.flatMap((subscription) => {
    const thing = things.get(subscription.thingId);
    return thing ? [{ subscription, thing }] : [];
  });
}

/**
 * The caller's subscription to one thing (active or paused), or undefined when there is none: the
 * website's thing page shows Subscribe, or Pause/Resume and Unsubscribe, from it.
 */
export async function getSubscription(
  s: Services,
  principal: Principal,
  thingId: ThingId,
): Promise<SubscriptionRecord | undefined> {
  return findSubscription(s.database.db, principal.userId, thingId);
}

/**
 * `POST /things/:id/subscriptions` (scope `tip`): one transaction creates the active subscription,
 * records the `follow` activity and tips the thing for the current period (source `subscription`)
 * unless the caller already tipped it. Without means the subscription is still created and no tip
 * is made (`tip: 'no_means'`); the response is the same 200.
 * @returns the thing (with its tip count after the tip) and what happened to the tip.
 * @throws NotFoundError (no such thing), ThingOwnerError (own thing), SubscribedError (already
 *   subscribed, active or paused).
 */
export async function subscribe(
  s: Services,
  principal: Principal,
  thingId: ThingId,
): Promise<{ thing: ThingRecord; tip: SubscribeTip }> {
  return inTransaction(s.database, async (trx) => {
    const thing = await findThingById(trx, thingId);
    if (!thing) throw thingNotFound();
    if (thing.owner.kind === 'user' && thing.owner.userId === principal.userId) throw new ThingOwnerError();
    const now = s.clock.now();
    const id = await insertSubscription(trx, { userId: principal.userId, thingId, now });
    if (id === undefined) throw new SubscribedError();
    await insertActivity(trx, {
      actorUserId: principal.userId,
      verb: 'follow',
      thingId,
      thingOwnerUserId: thing.owner.kind === 'user' ? thing.owner.userId : null,
      now,
    });
    try {
      const tipped = await tipInTransaction(trx, s, thing, {
        tipperId: principal.userId,
        clientId: principal.clientId,
        source: 'subscription',
      });
      return { thing: tipped, tip: 'tipped' as const };
    } catch (err) {
      // Both are raised before anything is written, so the transaction goes on.
      if (err instanceof TipOnceError) return { thing, tip: 'already_tipped' as const };
      if (err instanceof NoMeansError) return { thing, tip: 'no_means' as const };
      throw err;
    }
  });
}

/**
 * `PUT /things/:id/subscriptions` (scope `tip`): toggles the caller's subscription. Restarting
 * resets `started_at` and records a `follow` activity (a subscription started).
 * @returns 'paused' or 'started' (the spec's response messages).
 * @throws NotFoundError when the thing does not exist or the caller has no subscription to it.
 */
export async function toggleSubscription(
  s: Services,
  principal: Principal,
  thingId: ThingId,
): Promise<'paused' | 'started'> {
  return inTransaction(s.database, async (trx) => {
    const thing = await findThingById(trx, thingId);
    if (!thing) throw thingNotFound();
    const now = s.clock.now();
    const active = await toggleSubscriptionRow(trx, principal.userId, thingId, now);
    if (active === undefined) throw new NotFoundError('You are not subscribed to this thing', 'subscriptions');
    if (!active) return 'paused';
    await insertActivity(trx, {
      actorUserId: principal.userId,
      verb: 'follow',
      thingId,
      thingOwnerUserId: thing.owner.kind === 'user' ? thing.owner.userId : null,
      now,
    });
    return 'started';
  });
}

/**
 * `DELETE /things/:id/subscriptions` (scope `tip`): removes the caller's subscription, active or
 * paused, also when the thing has since been deleted.
 * @throws NotFoundError when there is no subscription.
 */
export async function unsubscribe(s: Services, principal: Principal, thingId: ThingId): Promise<void> {
  const deleted = await deleteSubscription(s.database.db, principal.userId, thingId);
  if (!deleted) throw new NotFoundError('You are not subscribed to this thing', 'subscriptions');
}

/** Outcome of one subscription's renewal; everything but `tipped` is a skip. */
export type RenewalOutcome = 'tipped' | 'no_means' | 'tip_once' | 'tip_owner' | 'deleted';

export interface RenewalReport {
  period: string;
  /** subscriptions renewed by this run, with their outcome */
  renewals: { userId: number; thingId: number; outcome: RenewalOutcome }[];
  tipped: number;
  skipped: number;
}

function outcomeOf(err: unknown): RenewalOutcome | undefined {
  if (err instanceof NoMeansError) return 'no_means';
  if (err instanceof TipOnceError) return 'tip_once';
  if (err instanceof TipOwnerError) return 'tip_owner';
  return undefined;
}

/**
 * `tipjar subscriptions renew [--period]` (and the scheduler at the start of each period): every
 * active subscription without a renewal for the period tips its thing. A user's subscriptions are
 * renewed together, in one transaction with their renewal records, so the run is idempotent and
 * safe to run concurrently (each renewal is claimed once).
 * Skips (recorded, reported, never retried within the period): `no_means` (the user is told on
 * the website, MoneySummary.renewalsSkippedForMeans, and by the `renewal_skipped` notice, queued in
 * that transaction: one message per user and period, listing the things skipped — a later run in
 * the same period that skips more of the user's subscriptions sends none), `tip_once` (already
 * tipped this period), `tip_owner` (the subscriber now owns the thing), `deleted` (the thing was
 * deleted).
 * @param opts.period must be the current period (tips are always for the current period).
 * @throws InvalidParametersError for a malformed or non-current period.
 */
export async function renewSubscriptions(s: Services, opts: { period?: string } = {}): Promise<RenewalReport> {
  const current = periodOf(s.clock.now());
  const period = opts.period ?? current;
  if (!isPeriod(period)) throw new InvalidParametersError(`Not a period: "${period}" (expected YYYY-MM)`);
  if (period !== current)
    throw new InvalidParametersError(
      `Subscriptions can only be renewed for the current period (${current}), not ${period}`,
    );
  const report: RenewalReport = { period, renewals: [], tipped: 0, skipped: 0 };
  const byUser = new Map<number, SubscriptionRecord[]>();
  for (const sub of await listSubscriptionsToRenew(s.database.db, period)) {
    let subs = byUser.get(sub.userId);
    if (!subs) byUser.set(sub.userId, (subs = []));
    subs.push(sub);
  }
  for (const [userId, subs] of byUser) {
    const renewed = await inTransaction(s.database, async (trx) => {
      const done: { thingId: number; outcome: RenewalOutcome }[] = [];
      for (const sub of subs) {
        const outcome = await renewOne(trx, s, period, sub);
        if (outcome !== undefined) done.push({ thingId: sub.thingId, outcome });
      }
      const skipped = done.filter((d) => d.outcome === 'no_means').map((d) => d.thingId);
      if (skipped.length > 0) await tellRenewalSkipped(trx, s, period, userId, skipped);
      return done;
    });
    for (const { thingId, outcome } of renewed) {
      report.renewals.push({ userId, thingId, outcome });
      if (outcome === 'tipped') report.tipped++;
      else report.skipped++;
    }
  }
  return report;
}

/**
 * Renews one subscription inside `trx`: claims its renewal for the period, tips, records the outcome.
 * @returns the outcome, or undefined when it is no longer active or was renewed by another run.
 */
async function renewOne(
  trx: Executor,
  s: Services,
  period: string,
  sub: SubscriptionRecord,
): Promise<RenewalOutcome | undefined> {
  const still = await findSubscription(trx, sub.userId, sub.thingId);
  if (!still?.active) return undefined;
  const key = { period, userId: sub.userId, thingId: sub.thingId };
  if (!(await claimRenewal(trx, { ...key, now: s.clock.now() }))) return undefined;
  const thing = await findThingById(trx, sub.thingId);
  let result: RenewalOutcome = 'deleted';
  let tipId: number | null = null;
  if (thing) {
    try {
      await tipInTransaction(trx, s, thing, { tipperId: sub.userId, clientId: null, source: 'subscription' });
      result = 'tipped';
      tipId = (await findTipId(trx, { thingId: sub.thingId, tipperId: sub.userId, period }))!;
    } catch (err) {
      const skip = outcomeOf(err);
      if (!skip) throw err;
      result = skip;
    }
  }
  await setRenewalOutcome(trx, { ...key, outcome: result, tipId });
  return result;
}

/**
 * Queues the `renewal_skipped` notice listing `thingIds` (this transaction's `no_means` renewals
 * of the user), unless earlier runs already skipped some of the user's renewals this period: the
 * user then had the period's message already (or did not want it).
 */
async function tellRenewalSkipped(
  trx: Executor,
  s: Services,
  period: string,
  userId: number,
  thingIds: number[],
): Promise<void> {
  const all = await listRenewalsWithOutcome(trx, userId, period, 'no_means');
  if (all.length !== thingIds.length) return;
  const user = await findUserById(trx, userId);
  if (!user || !wantsNotice(user, 'renewal_skipped')) return;
  const things = new Map((await findThingsByIds(trx, thingIds)).map((t) => [t.id, t]));
  await queueNotice(trx, {
    kind: 'renewal_skipped',
    user,
    params: {
      period,
      things: thingIds.flatMap((id) => {
        const t = things.get(id);
        return t ? [{ thingId: t.id, title: t.title, url: t.url }] : [];
      }),
    },
    now: s.clock.now(),
    siteUrl: s.siteUrl,
  });
}

/** Whether the subscriptions of `period` ('YYYY-MM') were renewed already (markRenewed). */
export async function wasRenewed(s: Services, period: string): Promise<boolean> {
  return (await findPeriod(s.database.db, period))?.renewedAt != null;
}

/** Records that the subscriptions of `period` were renewed, now by the service clock (the first record stays). */
export async function markRenewed(s: Services, period: string): Promise<void> {
  await markPeriodRenewed(s.database.db, period, s.clock.now());
}

/**
 * The user's subscriptions not renewed in the current period for lack of means (DECISIONS.md
 * "Subscriptions": told on the website's money page too), with their things (deleted ones left out).
 */
export async function renewalsSkippedForMeans(
  s: Services,
  userId: number,
): Promise<{ period: string; things: ThingRecord[] }> {
  const period = periodOf(s.clock.now());
  const ids = await listRenewalsWithOutcome(s.database.db, userId, period, 'no_means');
  const byId = new Map((await findThingsByIds(s.database.db, ids)).map((t) => [t.id, t]));
  return { period, things: ids.flatMap((id) => byId.get(id) ?? []) };
}
