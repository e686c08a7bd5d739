/**
 * Subscriptions (api-v2.md "Subscriptions", "States and transitions"; DECISIONS.md
 * "Subscriptions", "Wire format"): every transition of the state table and every error, the
 * Subscription representation, the tip that comes with a new subscription, and the per-period
 * renewal (`renewSubscriptions`), on every engine. Failed requests are checked to change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith, type TestUser } from '../helpers/factories.ts';
import { expectError } from '../helpers/errors.ts';
import { renewSubscriptions } from '../../src/domain/subscriptions.ts';
import { getMoneySummary } from '../../src/domain/money/account.ts';
import { fundUser } from '../../src/domain/users.ts';
import { FULL_THING_KEYS } from '../helpers/representations.ts';

/** 2025-06-10T12:00:00Z */
const T0 = Date.UTC(2025, 5, 10, 12) / 1000;
/** 2025-07-01T00:00:00Z, the first second of the next period */
const JULY = Date.UTC(2025, 6, 1) / 1000;

const CONFIRMATION_KEYS = ['type', 'resource', 'link', 'id', 'tips', 'url', 'title', 'image'];
const SUBSCRIPTION_KEYS = ['type', 'active', 'created_at', 'started_at', 'thing'];
const THING_KEYS = [...FULL_THING_KEYS, 'tipped', 'subscribed'];
const sorted = (keys: string[]) => [...keys].sort();

describe.each(ENGINES)('subscriptions on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(T0);
  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
  });
  afterAll(async () => t.close());

  const db = () => t.services.database.db;
  const sub = (method: 'POST' | 'PUT' | 'DELETE', id: number | string, token?: string) =>
    t.app.inject({ method, url: `${API}/things/${id}/subscriptions`, headers: token ? bearer(token) : {} });
  const list = (token?: string) =>
    t.app.inject({ url: `${API}/user/subscriptions`, headers: token ? bearer(token) : {} });
  const subscriptionRows = (userId: number) =>
    db().selectFrom('subscriptions').selectAll().where('user_id', '=', userId).execute();
  const followCount = async (userId: number) =>
    (
      await db()
        .selectFrom('activities')
        .select('id')
        .where('actor_user_id', '=', userId)
        .where('verb', '=', 'follow')
        .execute()
    ).length;
  const tipRows = (userId: number) =>
    db().selectFrom('tips').selectAll().where('tipper_id', '=', userId).orderBy('id').execute();

  async function fixture(): Promise<{ owner: TestUser; fan: TestUser; thingId: number }> {
    clock.set(T0);
    const owner = await buildUser(t.services);
    const fan = await buildUser(t.services);
    const thingId = await buildThing(t.services, owner, { title: 'Subscribed thing' });
    return { owner, fan, thingId };
  }

  it('POST creates an active subscription, tips the thing for the current period and records a follow', async () => {
    const { owner, fan, thingId } = await fixture();
    const res = await sub('POST', thingId, fan.token);
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(Object.keys(body).sort()).toEqual(['description', 'message', 'thing']);
    expect(body.message).toBe('ok');
    expect(body.description).toBe('Successfully subscribed to Thing');
    expect(sorted(Object.keys(body.thing))).toEqual(sorted(CONFIRMATION_KEYS));
    expect(body.thing).toMatchObject({
      type: 'thing',
      id: thingId,
      tips: 1,
      title: 'Subscribed thing',
      resource: `${PUBLIC_URL}${API}/things/${thingId}`,
    });

    const rows = await subscriptionRows(fan.user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ thing_id: thingId, active: 1, created_at: T0, started_at: T0 });
    const tips = await tipRows(fan.user.id);
    expect(tips.map((r) => [r.thing_id, r.period, r.source])).toEqual([[thingId, '2025-06', 'subscription']]);
    expect(await followCount(fan.user.id)).toBe(1);

    const listed = await list(fan.token);
    expect(listed.statusCode).toBe(200);
    const items = json<any[]>(listed);
    expect(items).toHaveLength(1);
    expect(sorted(Object.keys(items[0]))).toEqual(sorted(SUBSCRIPTION_KEYS));
    expect(items[0]).toMatchObject({ type: 'subscription', active: true, created_at: T0, started_at: T0 });
    expect(sorted(Object.keys(items[0].thing))).toEqual(sorted(THING_KEYS));
    expect(items[0].thing).toMatchObject({ id: thingId, tips: 1, tipped: true, subscribed: true });
    expect(items[0].thing.owner).toEqual({
      type: 'user',
      resource: `${PUBLIC_URL}${API}/users/${owner.user.username}`,
      link: `${PUBLIC_URL}/profile/${owner.user.username}`,
      username: owner.user.username,
      id: String(owner.user.id),
    });

    const thing = json(await t.app.inject({ url: `${API}/things/${thingId}`, headers: bearer(fan.token) }));
    expect(thing).toMatchObject({ subscribed: true, tipped: true });

    const xml = await t.app.inject({ url: `${API}/user/subscriptions.xml`, headers: bearer(fan.token) });
    expect(xml.statusCode).toBe(200);
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    expect(xml.body).toContain('<subscriptions><subscription><type>subscription</type><active>true</active>');
  });

  it('GET /user/subscriptions: [] without subscriptions, 401 without a token, 403 without scope tip', async () => {
    const { fan } = await fixture();
    expect(json(await list(fan.token))).toEqual([]);
    expectError(await list(), 401, 'unauthorized');
    const thingOnly = await tokenWith(t.services, fan.user.username, 'thing extendedread');
    expectError(await list(thingOnly), 403, 'insufficient_scope');
  });

  it('lists newest first, paused ones included, and leaves out deleted things', async () => {
    const { owner, fan, thingId } = await fixture();
    const second = await buildThing(t.services, owner);
    const third = await buildThing(t.services, owner);
    expect((await sub('POST', thingId, fan.token)).statusCode).toBe(200);
    clock.advance(10);
    expect((await sub('POST', second, fan.token)).statusCode).toBe(200);
    clock.advance(10);
    expect((await sub('POST', third, fan.token)).statusCode).toBe(200);
    expect((await sub('PUT', second, fan.token)).statusCode).toBe(200);
    const del = await t.app.inject({ method: 'DELETE', url: `${API}/things/${third}`, headers: bearer(owner.token) });
    expect(del.statusCode).toBe(204);
    const items = json<any[]>(await list(fan.token));
    expect(items.map((i) => [i.thing.id, i.active])).toEqual([
      [second, false],
      [thingId, true],
    ]);
  });

  it('POST when already tipped this period: 200, no second tip', async () => {
    const { fan, thingId } = await fixture();
    expect(
      (await t.app.inject({ method: 'POST', url: `${API}/things/${thingId}/tip`, headers: bearer(fan.token) }))
        .statusCode,
    ).toBe(200);
    const res = await sub('POST', thingId, fan.token);
    expect(res.statusCode).toBe(200);
    expect(json(res).thing.tips).toBe(1);
    expect((await tipRows(fan.user.id)).map((r) => r.source)).toEqual(['api']);
    expect(await subscriptionRows(fan.user.id)).toHaveLength(1);
  });

  it('POST without means: the subscription is created (200), no tip is made', async () => {
    clock.set(T0);
    const owner = await buildUser(t.services);
    const poor = await buildUser(t.services, { funded: false });
    const thingId = await buildThing(t.services, owner);
    const res = await sub('POST', thingId, poor.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ message: 'ok', thing: { id: thingId, tips: 0 } });
    expect(await tipRows(poor.user.id)).toEqual([]);
    expect((await subscriptionRows(poor.user.id)).map((r) => r.active)).toEqual([1]);
    expect(await followCount(poor.user.id)).toBe(1);
  });

  it('POST twice → 403 subscribed (also when paused), changing nothing', async () => {
    const { fan, thingId } = await fixture();
    expect((await sub('POST', thingId, fan.token)).statusCode).toBe(200);
    expectError(await sub('POST', thingId, fan.token), 403, 'subscribed');
    expect((await sub('PUT', thingId, fan.token)).statusCode).toBe(200);
    const before = await subscriptionRows(fan.user.id);
    expectError(await sub('POST', thingId, fan.token), 403, 'subscribed');
    expect(await subscriptionRows(fan.user.id)).toEqual(before);
    expect(await followCount(fan.user.id)).toBe(1);
    expect(await tipRows(fan.user.id)).toHaveLength(1);
  });

  it('POST on your own thing → 403 thing_owner; unknown, malformed or deleted thing → 404 not_found', async () => {
    const { owner, fan, thingId } = await fixture();
    expectError(await sub('POST', thingId, owner.token), 403, 'thing_owner');
    expect(await subscriptionRows(owner.user.id)).toEqual([]);
    expect(await tipRows(owner.user.id)).toEqual([]);
    expectError(await sub('POST', 99999999, fan.token), 404, 'not_found');
    expectError(await sub('POST', 'abc', fan.token), 404, 'not_found');
    const gone = await buildThing(t.services, owner);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `${API}/things/${gone}`, headers: bearer(owner.token) })).statusCode,
    ).toBe(204);
    expectError(await sub('POST', gone, fan.token), 404, 'not_found');
    expect(await subscriptionRows(fan.user.id)).toEqual([]);
  });

  it('every operation: 401 without a token, 403 insufficient_scope without scope tip', async () => {
    const { fan, thingId } = await fixture();
    const noTip = await tokenWith(t.services, fan.user.username, 'thing extendedread');
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      expectError(await sub(method, thingId), 401, 'unauthorized');
      expectError(await sub(method, thingId, noTip), 403, 'insufficient_scope');
    }
    expect(await subscriptionRows(fan.user.id)).toEqual([]);
  });

  it('PUT toggles: active → paused (started_at kept), paused → started (started_at reset, follow recorded)', async () => {
    const { fan, thingId } = await fixture();
    expect((await sub('POST', thingId, fan.token)).statusCode).toBe(200);
    clock.advance(100);
    const paused = await sub('PUT', thingId, fan.token);
    expect(paused.statusCode).toBe(200);
    expect(json(paused)).toEqual({ message: 'paused', description: 'Subscription paused' });
    let [row] = await subscriptionRows(fan.user.id);
    expect(row).toMatchObject({ active: 0, created_at: T0, started_at: T0, updated_at: T0 + 100 });
    expect(json<any[]>(await list(fan.token))[0]).toMatchObject({
      active: false,
      started_at: T0,
      thing: { subscribed: true },
    });
    expect(await followCount(fan.user.id)).toBe(1);

    clock.advance(100);
    const started = await sub('PUT', thingId, fan.token);
    expect(started.statusCode).toBe(200);
    expect(json(started)).toEqual({ message: 'started', description: 'Subscription started' });
    [row] = await subscriptionRows(fan.user.id);
    expect(row).toMatchObject({ active: 1, created_at: T0, started_at: T0 + 200 });
    expect(json<any[]>(await list(fan.token))[0]).toMatchObject({ active: true, created_at: T0, started_at: T0 + 200 });
    expect(await followCount(fan.user.id)).toBe(2);
    // Restarting does not tip again.
    expect(await tipRows(fan.user.id)).toHaveLength(1);
  });

  it('PUT without a subscription or on an unknown thing → 404 not_found', async () => {
    const { fan, thingId } = await fixture();
    expectError(await sub('PUT', thingId, fan.token), 404, 'not_found');
    expectError(await sub('PUT', 99999999, fan.token), 404, 'not_found');
    expect(await subscriptionRows(fan.user.id)).toEqual([]);
  });

  it('DELETE → 204 with an empty body (active or paused); again → 404; a deleted thing can still be unsubscribed', async () => {
    const { owner, fan, thingId } = await fixture();
    expect((await sub('POST', thingId, fan.token)).statusCode).toBe(200);
    const res = await sub('DELETE', thingId, fan.token);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await subscriptionRows(fan.user.id)).toEqual([]);
    expectError(await sub('DELETE', thingId, fan.token), 404, 'not_found');
    expectError(await sub('DELETE', 99999999, fan.token), 404, 'not_found');

    expect((await sub('POST', thingId, fan.token)).statusCode).toBe(200);
    expect((await sub('PUT', thingId, fan.token)).statusCode).toBe(200);
    expect((await sub('DELETE', thingId, fan.token)).statusCode).toBe(204);

    expect((await sub('POST', thingId, fan.token)).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `${API}/things/${thingId}`, headers: bearer(owner.token) }))
        .statusCode,
    ).toBe(204);
    expect((await sub('DELETE', thingId, fan.token)).statusCode).toBe(204);
    expect(await subscriptionRows(fan.user.id)).toEqual([]);
  });

  it('concurrent POSTs: exactly one subscription, one tip, the others 403 subscribed', async () => {
    const { fan, thingId } = await fixture();
    const results = await Promise.all(Array.from({ length: 8 }, () => sub('POST', thingId, fan.token)));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 200)) expectError(r, 403, 'subscribed');
    expect(await subscriptionRows(fan.user.id)).toHaveLength(1);
    expect(await tipRows(fan.user.id)).toHaveLength(1);
  });

  it('renewal at the start of a period tips active subscriptions once and records every skip', async () => {
    clock.set(T0);
    const owner = await buildUser(t.services);
    const [active, paused, poor, gone] = await Promise.all([1, 2, 3, 4].map(() => buildUser(t.services)));
    const thingId = await buildThing(t.services, owner);
    const doomed = await buildThing(t.services, owner);
    for (const u of [active!, paused!, poor!]) expect((await sub('POST', thingId, u.token)).statusCode).toBe(200);
    expect((await sub('POST', doomed, gone!.token)).statusCode).toBe(200);
    expect((await sub('PUT', thingId, paused!.token)).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `${API}/things/${doomed}`, headers: bearer(owner.token) }))
        .statusCode,
    ).toBe(204);
    await fundUser(t.services, { username: poor!.user.username, cents: 0, budgetCents: 5000 }); // balance 1000 < budget

    // Renewing June again changes nothing: everyone subscribed this period was tipped on subscribing.
    clock.set(JULY);
    const report = await renewSubscriptions(t.services);
    expect(report.period).toBe('2025-07');
    const mine = report.renewals.filter((r) => [active, poor, gone].some((u) => u!.user.id === r.userId));
    expect(mine.map((r) => [r.userId, r.thingId, r.outcome]).sort()).toEqual(
      [
        [active!.user.id, thingId, 'tipped'],
        [poor!.user.id, thingId, 'no_means'],
        [gone!.user.id, doomed, 'deleted'],
      ].sort(),
    );
    expect(report.renewals.some((r) => r.userId === paused!.user.id)).toBe(false);
    expect((await tipRows(active!.user.id)).map((r) => [r.period, r.source])).toEqual([
      ['2025-06', 'subscription'],
      ['2025-07', 'subscription'],
    ]);
    expect((await tipRows(poor!.user.id)).map((r) => r.period)).toEqual(['2025-06']);
    expect((await tipRows(paused!.user.id)).map((r) => r.period)).toEqual(['2025-06']);
    const summary = await getMoneySummary(t.services, poor!.user.id);
    expect(summary.renewalsSkippedForMeans).toEqual([thingId]);
    expect(summary.hasMeans).toBe(false);

    const again = await renewSubscriptions(t.services);
    expect(again.renewals.filter((r) => [active, poor, gone].some((u) => u!.user.id === r.userId))).toEqual([]);
    expect(await tipRows(active!.user.id)).toHaveLength(2);

    // tip_once: subscribed in July after a manual tip, then renewal of July skips it.
    const late = await buildUser(t.services);
    const other = await buildThing(t.services, owner);
    expect(
      (await t.app.inject({ method: 'POST', url: `${API}/things/${other}/tip`, headers: bearer(late.token) }))
        .statusCode,
    ).toBe(200);
    await t.services.database.db
      .insertInto('subscriptions')
      .values({ user_id: late.user.id, thing_id: other, active: 1, created_at: JULY, started_at: JULY })
      .execute();
    const third = await renewSubscriptions(t.services);
    expect(third.renewals.filter((r) => r.userId === late.user.id)).toEqual([
      { userId: late.user.id, thingId: other, outcome: 'tip_once' },
    ]);
  });

  it('renewal refuses a period other than the current one, or a malformed one', async () => {
    clock.set(JULY);
    await expect(renewSubscriptions(t.services, { period: '2025-06' })).rejects.toMatchObject({
      code: 'invalid_parameters',
    });
    await expect(renewSubscriptions(t.services, { period: '2025-13' })).rejects.toMatchObject({
      code: 'invalid_parameters',
    });
  });
});
