/**
 * The subscriptions service (src/domain/subscriptions.ts) called directly, without HTTP, on every
 * engine: subscribing tips at once unless it cannot, toggling, unsubscribing, and the renewal of a
 * period (once per subscription and period, each outcome recorded).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, ENGINES } from '../helpers/db.ts';
import { fixedClock } from '../helpers/app.ts';
import { buildUser, moneyUser, ownedThing, principalOf, type TestUser } from '../helpers/factories.ts';
import {
  listSubscriptions,
  markRenewed,
  renewSubscriptions,
  subscribe,
  toggleSubscription,
  unsubscribe,
  wasRenewed,
} from '../../src/domain/subscriptions.ts';
import { getThing } from '../../src/domain/things.ts';
import { getMoneySummary, setMonthlyBudget } from '../../src/domain/money/account.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { InvalidParametersError, NotFoundError, SubscribedError, ThingOwnerError } from '../../src/domain/errors.ts';
import type { Services } from '../../src/domain/services.ts';

const MARCH = Date.UTC(2026, 2, 10, 12) / 1000;
const APRIL = Date.UTC(2026, 3, 1, 0, 0, 5) / 1000;

describe.each(ENGINES)('the subscriptions service on %s', (engine) => {
  const clock = fixedClock(MARCH);
  let s: Services;
  let drop: () => Promise<void>;
  let owner: TestUser;

  beforeAll(async () => {
    ({ s, drop } = await createTestServices(engine, { clock }));
    owner = await buildUser(s);
  });
  afterAll(async () => drop());

  it('subscribe makes an active subscription and tips the thing now; a second one is SubscribedError; the own thing ThingOwnerError', async () => {
    const fan = await moneyUser(s, 1000, 500);
    const thing = await ownedThing(s, { userId: owner.user.id });
    const first = await subscribe(s, principalOf(fan), thing);
    expect(first.tip).toBe('tipped');
    expect(first.thing.tips).toBe(1);
    expect((await getThing(s, thing)).tips).toBe(1);
    await expect(subscribe(s, principalOf(fan), thing)).rejects.toBeInstanceOf(SubscribedError);
    await expect(subscribe(s, principalOf(owner.user), thing)).rejects.toBeInstanceOf(ThingOwnerError);
    const subs = await listSubscriptions(s, principalOf(fan));
    expect(subs.map((x) => [x.thing.id, x.subscription.active])).toEqual([[thing, true]]);
  });

  it('a user without means still subscribes (no tip: no_means); one who tipped this period already gets already_tipped', async () => {
    const broke = await moneyUser(s, 0, 500);
    const thing = await ownedThing(s, { userId: owner.user.id });
    expect((await subscribe(s, principalOf(broke), thing)).tip).toBe('no_means');
    expect((await getThing(s, thing)).tips).toBe(0);
    expect(await listSubscriptions(s, principalOf(broke))).toHaveLength(1);
    const tipper = await moneyUser(s, 1000, 500);
    await tipThing(s, principalOf(tipper), thing);
    expect((await subscribe(s, principalOf(tipper), thing)).tip).toBe('already_tipped');
    expect((await getThing(s, thing)).tips).toBe(1);
  });

  it('toggle pauses and restarts; unsubscribe removes it, then both are NotFoundError', async () => {
    const fan = await moneyUser(s, 1000, 500);
    const thing = await ownedThing(s, { userId: owner.user.id });
    await subscribe(s, principalOf(fan), thing);
    expect(await toggleSubscription(s, principalOf(fan), thing)).toBe('paused');
    expect((await listSubscriptions(s, principalOf(fan)))[0]!.subscription.active).toBe(false);
    expect(await toggleSubscription(s, principalOf(fan), thing)).toBe('started');
    await unsubscribe(s, principalOf(fan), thing);
    expect(await listSubscriptions(s, principalOf(fan))).toEqual([]);
    await expect(unsubscribe(s, principalOf(fan), thing)).rejects.toBeInstanceOf(NotFoundError);
    await expect(toggleSubscription(s, principalOf(fan), thing)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('renewSubscriptions tips every active subscription once per period, records skips, and refuses another period', async () => {
    const fan = await moneyUser(s, 1000, 500);
    const raised = await moneyUser(s, 1000, 500);
    const thing = await ownedThing(s, { userId: owner.user.id });
    await subscribe(s, principalOf(fan), thing);
    await subscribe(s, principalOf(raised), thing);
    clock.set(APRIL);
    await expect(renewSubscriptions(s, { period: '2026-03' })).rejects.toBeInstanceOf(InvalidParametersError);
    await expect(renewSubscriptions(s, { period: 'April' })).rejects.toBeInstanceOf(InvalidParametersError);
    // The second subscriber's April budget is above the balance: no means in April.
    await setMonthlyBudget(s, raised.id, 5000);
    const report = await renewSubscriptions(s);
    const mine = report.renewals.filter((r) => r.thingId === thing);
    expect(mine).toEqual(
      expect.arrayContaining([
        { userId: fan.id, thingId: thing, outcome: 'tipped' },
        { userId: raised.id, thingId: thing, outcome: 'no_means' },
      ]),
    );
    expect((await getThing(s, thing)).tips).toBe(3);
    expect((await getMoneySummary(s, raised.id)).renewalsSkippedForMeans).toEqual([thing]);
    const again = await renewSubscriptions(s);
    expect(again.renewals.filter((r) => r.thingId === thing)).toEqual([]);
    expect((await getThing(s, thing)).tips).toBe(3);
    expect(await wasRenewed(s, '2026-04')).toBe(false);
    await markRenewed(s, '2026-04');
    expect(await wasRenewed(s, '2026-04')).toBe(true);
    clock.set(MARCH);
  });
});
