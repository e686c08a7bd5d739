/**
 * Tips (api-v2.md "Tips", DECISIONS.md "Tips", "Money", "Wire format", "Pagination and `full`"):
 * POST /things/:id/tip, POST /tip (registered URL, auto-submit URL), the tip lists and the
 * per-viewer `tipped` field, on every engine. Every failed tip is checked to have written nothing.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith, uniqueName, type TestUser } from '../helpers/factories.ts';
import { expectError } from '../helpers/errors.ts';
import { fundUser } from '../../src/domain/users.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { FULL_THING_KEYS } from '../helpers/representations.ts';

const AUTO = `${PUBLIC_URL}/submit/auto`;
/** 2025-06-10T12:00:00Z */
const T0 = Date.UTC(2025, 5, 10, 12) / 1000;

const CONFIRMATION_KEYS = ['type', 'resource', 'link', 'id', 'tips', 'url', 'title', 'image'];
const TIP_KEYS = ['type', 'thing', 'owner', 'created_at'];
const SHORT_THING_KEYS = ['type', 'resource', 'link', 'id', 'url', 'title', 'image', 'tips', 'owner'];
const SUMMARY_KEYS = ['type', 'resource', 'link', 'username'];
const FULL_USER_KEYS = [
  'type',
  'resource',
  'link',
  'username',
  'firstname',
  'lastname',
  'avatar',
  'about',
  'city',
  'country',
  'url',
];

const sorted = (keys: readonly string[]) => [...keys].sort();

const summary = (username: string) => ({
  type: 'user',
  resource: `${PUBLIC_URL}${API}/users/${username}`,
  link: `${PUBLIC_URL}/profile/${username}`,
  username,
});

const autoUrl = (params: Record<string, string>) => `${AUTO}?${new URLSearchParams(params).toString()}`;

describe.each(ENGINES)('tips on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(T0);

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
  });
  afterAll(async () => t?.close());

  const db = () => t.db.database.db;

  /** What a tip writes: tip rows, the things' counters, things, activities. */
  async function snapshot() {
    const [tips, things, activities, tags] = await Promise.all([
      db()
        .selectFrom('tips')
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
      db()
        .selectFrom('things')
        .select([
          sql<number>`count(*)`.as('n'),
          sql<number>`coalesce(sum(tips), 0)`.as('tips'),
          sql<number>`coalesce(sum(tips_user_count), 0)`.as('users'),
          sql<number>`coalesce(sum(coalesce(last_tip_at, 0)), 0)`.as('last'),
        ])
        .executeTakeFirstOrThrow(),
      db()
        .selectFrom('activities')
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
      db()
        .selectFrom('thing_tags')
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return {
      tips: Number(tips.n),
      things: Number(things.n),
      thingTips: Number(things.tips),
      thingUsers: Number(things.users),
      lastTipAt: Number(things.last),
      activities: Number(activities.n),
      tags: Number(tags.n),
    };
  }

  /** Asserts a failed tip with the given status and code wrote nothing at all. */
  async function expectFailedTip(
    res: LightMyRequestResponse,
    before: Awaited<ReturnType<typeof snapshot>>,
    status: number,
    code: string,
  ) {
    expectError(res, status, code);
    expect(await snapshot()).toEqual(before);
  }

  async function thingRow(id: number) {
    return db()
      .selectFrom('things')
      .select(['tips', 'tips_user_count', 'last_tip_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  async function tipRows(thingId: number) {
    return db()
      .selectFrom('tips')
      .select(['tipper_id', 'period', 'created_at'])
      .where('thing_id', '=', thingId)
      .orderBy('id')
      .execute();
  }

  const tip = (id: number | string, token?: string) =>
    t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: token ? bearer(token) : {} });

  const tipUrl = (payload: unknown, token?: string, form = false) =>
    form
      ? t.app.inject({
          method: 'POST',
          url: `${API}/tip`,
          headers: { ...(token ? bearer(token) : {}), 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(payload as Record<string, string>).toString(),
        })
      : t.app.inject({
          method: 'POST',
          url: `${API}/tip`,
          headers: token ? bearer(token) : {},
          payload: payload as object,
        });

  describe('POST /things/:id/tip', () => {
    it('answers 200 {message: "ok", description, thing} with the 8-field confirmation thing and writes one tip', async () => {
      clock.set(T0);
      const owner = await buildUser(t.services);
      const tipper = await buildUser(t.services, { scopes: 'tip' });
      const id = await buildThing(t.services, owner, { url: 'https://example.com/confirm', title: 'Confirm me' });

      const res = await tip(id, tipper.token);
      expect(res.statusCode).toBe(200);
      const body = json(res);
      expect(Object.keys(body).sort()).toEqual(['description', 'message', 'thing']);
      expect(body.message).toBe('ok');
      expect(typeof body.description).toBe('string');
      expect(body.description.length).toBeGreaterThan(0);
      expect(Object.keys(body.thing).sort()).toEqual(sorted(CONFIRMATION_KEYS));
      expect(body.thing).toEqual({
        type: 'thing',
        resource: `${PUBLIC_URL}${API}/things/${id}`,
        link: `${PUBLIC_URL}/thing/${id}`,
        id,
        tips: 1,
        url: 'https://example.com/confirm',
        title: 'Confirm me',
        image: '',
      });

      expect(await tipRows(id)).toEqual([{ tipper_id: tipper.user.id, period: '2025-06', created_at: T0 }]);
      expect(await thingRow(id)).toEqual({ tips: 1, tips_user_count: 1, last_tip_at: T0 });
    });

    it('refuses a second tip in the same period with 403 tip_once and writes nothing', async () => {
      clock.set(T0);
      const owner = await buildUser(t.services);
      const tipper = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      expect((await tip(id, tipper.token)).statusCode).toBe(200);

      clock.set(T0 + 3600 * 24 * 5); // same month
      const before = await snapshot();
      await expectFailedTip(await tip(id, tipper.token), before, 403, 'tip_once');
      expect(await thingRow(id)).toEqual({ tips: 1, tips_user_count: 1, last_tip_at: T0 });
      expect(await tipRows(id)).toHaveLength(1);
    });

    it('refuses the owner with 403 tip_owner and writes nothing', async () => {
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      const before = await snapshot();
      await expectFailedTip(await tip(id, owner.token), before, 403, 'tip_owner');
      expect(await thingRow(id)).toEqual({ tips: 0, tips_user_count: 0, last_tip_at: null });
    });

    it('refuses a user without means with 401 no_means and writes nothing', async () => {
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);

      // never funded: budget 0, balance 0
      const broke = await buildUser(t.services, { funded: false });
      let before = await snapshot();
      await expectFailedTip(await tip(id, broke.token), before, 401, 'no_means');

      // a balance but no budget
      const noBudget = await buildUser(t.services, { funded: false });
      await fundUser(t.services, { username: noBudget.user.username, cents: 1000 });
      before = await snapshot();
      await expectFailedTip(await tip(id, noBudget.token), before, 401, 'no_means');

      // balance one cent short of the budget
      const short = await buildUser(t.services, { funded: false });
      await fundUser(t.services, { username: short.user.username, cents: 499, budgetCents: 500 });
      before = await snapshot();
      await expectFailedTip(await tip(id, short.token), before, 401, 'no_means');
      expect(await thingRow(id)).toEqual({ tips: 0, tips_user_count: 0, last_tip_at: null });

      // balance exactly equal to the budget is means enough
      const exact = await buildUser(t.services, { funded: false });
      await fundUser(t.services, { username: exact.user.username, cents: 500, budgetCents: 500 });
      const ok = await tip(id, exact.token);
      expect(ok.statusCode).toBe(200);
      expect(json(ok).thing.tips).toBe(1);
    });

    it('answers 404 not_found for an unknown or malformed id and writes nothing', async () => {
      const tipper = await buildUser(t.services);
      for (const id of ['999999999', '0', 'abc', '12abc', '-1', '1.5']) {
        const before = await snapshot();
        await expectFailedTip(await tip(id, tipper.token), before, 404, 'not_found');
      }
    });

    it('answers 401 unauthorized without a token or with an unknown one, 403 insufficient_scope with a thing-only token', async () => {
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      const tipper = await buildUser(t.services);

      let before = await snapshot();
      await expectFailedTip(await tip(id), before, 401, 'unauthorized');
      await expectFailedTip(await tip(id, 'not-a-real-token'), before, 401, 'unauthorized');

      const thingOnly = await tokenWith(t.services, tipper.user.username, 'thing');
      before = await snapshot();
      const res = await tip(id, thingOnly);
      await expectFailedTip(res, before, 403, 'insufficient_scope');

      const readOnly = await tokenWith(t.services, tipper.user.username, 'extendedread thing');
      await expectFailedTip(await tip(id, readOnly), before, 403, 'insufficient_scope');
      expect(await thingRow(id)).toEqual({ tips: 0, tips_user_count: 0, last_tip_at: null });
    });
  });

  describe('periods (calendar months in UTC)', () => {
    it('allows a tip on the last second of a month and another on the first second of the next; tips=2, tips_user_count=1', async () => {
      const lastSecond = Date.UTC(2025, 0, 31, 23, 59, 59) / 1000;
      const firstSecond = Date.UTC(2025, 1, 1, 0, 0, 0) / 1000;
      clock.set(lastSecond - 100);
      const owner = await buildUser(t.services);
      const tipper = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      const read = async () => json(await t.app.inject({ url: `${API}/things/${id}`, headers: bearer(tipper.token) }));

      expect((await read()).tipped).toBe(false);
      clock.set(lastSecond);
      const first = await tip(id, tipper.token);
      expect(first.statusCode).toBe(200);
      expect(json(first).thing.tips).toBe(1);
      expect((await read()).tipped).toBe(true);

      clock.set(firstSecond);
      // `tipped` means "tipped in the current period"
      expect((await read()).tipped).toBe(false);
      const second = await tip(id, tipper.token);
      expect(second.statusCode).toBe(200);
      expect(json(second).thing.tips).toBe(2);
      expect(await read()).toMatchObject({ tips: 2, tips_user_count: 1, tipped: true });

      expect(await tipRows(id)).toEqual([
        { tipper_id: tipper.user.id, period: '2025-01', created_at: lastSecond },
        { tipper_id: tipper.user.id, period: '2025-02', created_at: firstSecond },
      ]);
      expect(await thingRow(id)).toEqual({ tips: 2, tips_user_count: 1, last_tip_at: firstSecond });

      // and still once per period in the new month
      clock.set(Date.UTC(2025, 1, 28, 23, 59, 59) / 1000);
      const before = await snapshot();
      await expectFailedTip(await tip(id, tipper.token), before, 403, 'tip_once');

      // a second tipper in February makes two distinct tippers
      const other = await buildUser(t.services);
      expect(json(await tip(id, other.token)).thing.tips).toBe(3);
      expect(await thingRow(id)).toMatchObject({ tips: 3, tips_user_count: 2 });
    });

    it('counts a new year as a new period (December → January)', async () => {
      const owner = await buildUser(t.services);
      const tipper = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      clock.set(Date.UTC(2024, 11, 31, 23, 59, 59) / 1000);
      expect((await tip(id, tipper.token)).statusCode).toBe(200);
      clock.set(Date.UTC(2025, 0, 1, 0, 0, 0) / 1000);
      expect((await tip(id, tipper.token)).statusCode).toBe(200);
      expect((await tipRows(id)).map((r) => r.period)).toEqual(['2024-12', '2025-01']);
      clock.set(T0);
    });
  });

  describe('POST /tip', () => {
    it('tips a registered thing by its URL, with a JSON body and with a form body', async () => {
      clock.set(T0);
      const owner = await buildUser(t.services);
      const a = await buildUser(t.services, { scopes: 'tip' });
      const b = await buildUser(t.services, { scopes: 'tip' });
      const url = `https://example.com/${uniqueName('by-url')}`;
      const id = await buildThing(t.services, owner, { url, title: 'By URL' });

      const viaJson = await tipUrl({ url }, a.token);
      expect(viaJson.statusCode).toBe(200);
      const body = json(viaJson);
      expect(Object.keys(body).sort()).toEqual(['description', 'message', 'thing']);
      expect(body.message).toBe('ok');
      expect(body.thing).toEqual({
        type: 'thing',
        resource: `${PUBLIC_URL}${API}/things/${id}`,
        link: `${PUBLIC_URL}/thing/${id}`,
        id,
        tips: 1,
        url,
        title: 'By URL',
        image: '',
      });

      const viaForm = await tipUrl({ url }, b.token, true);
      expect(viaForm.statusCode).toBe(200);
      expect(json(viaForm).thing).toMatchObject({ id, tips: 2 });
      expect((await tipRows(id)).map((r) => r.tipper_id)).toEqual([a.user.id, b.user.id]);

      // same URL again → tip_once, via either body
      const before = await snapshot();
      await expectFailedTip(await tipUrl({ url }, a.token, true), before, 403, 'tip_once');
      await expectFailedTip(await tipUrl({ url }, b.token), before, 403, 'tip_once');
    });

    it('finds the thing by its normalised URL (scheme and host case, default port)', async () => {
      const owner = await buildUser(t.services);
      const tipper = await buildUser(t.services);
      const path = uniqueName('norm');
      const id = await buildThing(t.services, owner, { url: `https://example.com/${path}?q=1` });
      const res = await tipUrl({ url: `HTTPS://EXAMPLE.COM:443/${path}?q=1` }, tipper.token);
      expect(res.statusCode).toBe(200);
      expect(json(res).thing.id).toBe(id);
      // query is significant: a different query is a different (unregistered) URL
      const before = await snapshot();
      await expectFailedTip(
        await tipUrl({ url: `https://example.com/${path}?q=2` }, tipper.token),
        before,
        404,
        'not_found',
      );
    });

    it('refuses the owner (tip_owner) and unfunded users (no_means) by URL, writing nothing', async () => {
      const owner = await buildUser(t.services);
      const url = `https://example.com/${uniqueName('own')}`;
      await buildThing(t.services, owner, { url });
      let before = await snapshot();
      await expectFailedTip(await tipUrl({ url }, owner.token), before, 403, 'tip_owner');
      const broke = await buildUser(t.services, { funded: false });
      before = await snapshot();
      await expectFailedTip(await tipUrl({ url }, broke.token), before, 401, 'no_means');
    });

    it('creates the thing of an auto-submit URL on its first tip, with its metadata and owner', async () => {
      clock.set(T0 + 50);
      const owner = await buildUser(t.services);
      const tipper = await buildUser(t.services, { scopes: 'tip' });
      const inner = `https://blog.invalid/${uniqueName('post')}?x=1&y=2`;
      const auto = autoUrl({
        url: inner,
        user_id: owner.user.username,
        title: 'Auto title',
        description: 'Auto description',
        tags: 'a,b',
        category: 'text',
        language: 'sv_SE',
      });
      const before = await snapshot();
      const res = await tipUrl({ url: auto }, tipper.token);
      expect(res.statusCode, res.body).toBe(200);
      const body = json(res);
      expect(body.message).toBe('ok');
      expect(Object.keys(body.thing).sort()).toEqual(sorted(CONFIRMATION_KEYS));
      const id = body.thing.id as number;
      expect(body.thing).toEqual({
        type: 'thing',
        resource: `${PUBLIC_URL}${API}/things/${id}`,
        link: `${PUBLIC_URL}/thing/${id}`,
        id,
        tips: 1,
        url: inner,
        title: 'Auto title',
        image: '',
      });

      const after = await snapshot();
      expect(after.things).toBe(before.things + 1);
      expect(after.tips).toBe(before.tips + 1);
      // the tipper's `like` is the only activity: the owner did not register the thing
      const activities = await db()
        .selectFrom('activities')
        .select(['verb', 'actor_user_id'])
        .where('thing_id', '=', id)
        .execute();
      expect(activities).toEqual([{ verb: 'like', actor_user_id: tipper.user.id }]);
      const ownerFeed = await t.app.inject({ url: `${API}/users/${owner.user.username}/activities` });
      expect(JSON.parse(ownerFeed.body)).toEqual({ items: [] });

      const read = json(await t.app.inject({ url: `${API}/things/${id}`, headers: bearer(owner.token) }));
      expect(read).toMatchObject({
        id,
        url: inner,
        title: 'Auto title',
        description: 'Auto description',
        tags: ['a', 'b'],
        category: 'text',
        language: 'sv_SE',
        hidden: false,
        owner: summary(owner.user.username),
        tips: 1,
        tips_user_count: 1,
        created_at: T0 + 50,
        last_tip_at: T0 + 50,
        tipped: false,
      });
      expect(await tipRows(id)).toEqual([{ tipper_id: tipper.user.id, period: '2025-06', created_at: T0 + 50 }]);

      // lookup now finds it through the inner URL
      const lookup = await t.app.inject({ url: `${API}/things/lookup/?url=${encodeURIComponent(inner)}` });
      expect(lookup.statusCode).toBe(302);
      expect(lookup.headers.location).toBe(`${PUBLIC_URL}${API}/things/${id}`);

      // a second tipper through the same auto-submit URL tips the existing thing; no new thing
      const second = await buildUser(t.services);
      const before2 = await snapshot();
      const res2 = await tipUrl({ url: auto }, second.token, true);
      expect(res2.statusCode).toBe(200);
      expect(json(res2).thing).toMatchObject({ id, tips: 2 });
      expect((await snapshot()).things).toBe(before2.things);

      // the first tipper again → tip_once
      const before3 = await snapshot();
      await expectFailedTip(await tipUrl({ url: auto }, tipper.token), before3, 403, 'tip_once');
    });

    it('refuses the owner tipping through their own auto-submit URL (403 tip_owner) and creates no thing', async () => {
      const owner = await buildUser(t.services);
      const inner = `https://blog.invalid/${uniqueName('mine')}`;
      const before = await snapshot();
      await expectFailedTip(
        await tipUrl({ url: autoUrl({ url: inner, user_id: owner.user.username, title: 'Mine' }) }, owner.token),
        before,
        403,
        'tip_owner',
      );
      const lookup = await t.app.inject({ url: `${API}/things/lookup/?url=${encodeURIComponent(inner)}` });
      expect(lookup.statusCode).toBe(404);
    });

    it('creates no thing when the tipper of a new auto-submit URL has no means', async () => {
      const owner = await buildUser(t.services);
      const broke = await buildUser(t.services, { funded: false });
      const inner = `https://blog.invalid/${uniqueName('broke')}`;
      const before = await snapshot();
      await expectFailedTip(
        await tipUrl({ url: autoUrl({ url: inner, user_id: owner.user.username }) }, broke.token),
        before,
        401,
        'no_means',
      );
      expect((await t.app.inject({ url: `${API}/things/lookup/?url=${encodeURIComponent(inner)}` })).statusCode).toBe(
        404,
      );
    });

    it('answers 404 not_found for an auto-submit URL naming an unknown user_id, creating nothing', async () => {
      const tipper = await buildUser(t.services);
      const inner = `https://blog.invalid/${uniqueName('nobody')}`;
      const before = await snapshot();
      await expectFailedTip(
        await tipUrl({ url: autoUrl({ url: inner, user_id: uniqueName('ghost'), title: 'x' }) }, tipper.token),
        before,
        404,
        'not_found',
      );
    });

    it('answers 400 validation for an auto-submit URL with invalid metadata, creating nothing', async () => {
      const owner = await buildUser(t.services);
      const tipper = await buildUser(t.services);
      const inner = `https://blog.invalid/${uniqueName('badmeta')}`;
      const before = await snapshot();
      await expectFailedTip(
        await tipUrl(
          { url: autoUrl({ url: inner, user_id: owner.user.username, category: 'no-such-category' }) },
          tipper.token,
        ),
        before,
        400,
        'validation',
      );
      await expectFailedTip(
        await tipUrl(
          { url: autoUrl({ url: inner, user_id: owner.user.username, title: 'x'.repeat(101) }) },
          tipper.token,
        ),
        before,
        400,
        'validation',
      );
    });

    it.each([
      ['white space', 'fine,two words', '"two words" holds white space'],
      ['&', 'fine,rock&roll', `"rock&roll" holds '&'`],
      ['!', 'wow!', `"wow!" holds '!'`],
      ['|', 'a|b', `"a|b" holds '|'`],
      ['parentheses', '(x)', `"(x)" holds '('`],
    ])(
      'answers 400 validation naming an auto-submit tag holding %s (no search could find it), creating nothing',
      async (_name, tags, named) => {
        const owner = await buildUser(t.services);
        const tipper = await buildUser(t.services);
        const inner = `https://blog.invalid/${uniqueName('badtag')}`;
        const before = await snapshot();
        const res = await tipUrl(
          { url: autoUrl({ url: inner, user_id: owner.user.username, title: 'Tagged', tags }) },
          tipper.token,
        );
        expect(json(res).error_description).toContain(named);
        await expectFailedTip(res, before, 400, 'validation');
        expect((await t.app.inject({ url: `${API}/things/lookup/?url=${encodeURIComponent(inner)}` })).statusCode).toBe(
          404,
        );
      },
    );

    it('answers 404 not_found for an unregistered plain URL', async () => {
      const tipper = await buildUser(t.services);
      const before = await snapshot();
      await expectFailedTip(
        await tipUrl({ url: `https://nowhere.invalid/${uniqueName('x')}` }, tipper.token),
        before,
        404,
        'not_found',
      );
      await expectFailedTip(
        await tipUrl({ url: `https://nowhere.invalid/${uniqueName('x')}` }, tipper.token, true),
        before,
        404,
        'not_found',
      );
    });

    it('answers 400 invalid_request for a missing or malformed url, writing nothing', async () => {
      const tipper = await buildUser(t.services);
      const before = await snapshot();
      const bodies: unknown[] = [
        {},
        { url: '' },
        { url: 'not a url' },
        { url: 'ftp://example.com/x' },
        { url: '/relative/path' },
        { url: 42 },
        { url: { a: 1 } },
        { url: null },
        { other: 'https://example.com/' },
      ];
      for (const payload of bodies)
        await expectFailedTip(await tipUrl(payload, tipper.token), before, 400, 'invalid_request');
      for (const form of [{}, { url: '' }, { url: 'javascript:alert(1)' }, { url: 'http//missing-colon' }]) {
        await expectFailedTip(await tipUrl(form, tipper.token, true), before, 400, 'invalid_request');
      }
      // an unparsable JSON body
      const broken = await t.app.inject({
        method: 'POST',
        url: `${API}/tip`,
        headers: { ...bearer(tipper.token), 'content-type': 'application/json' },
        payload: '{"url": ',
      });
      await expectFailedTip(broken, before, 400, 'invalid_request');
    });

    it('needs a token (401) with scope tip (403 insufficient_scope)', async () => {
      const owner = await buildUser(t.services);
      const url = `https://example.com/${uniqueName('auth')}`;
      await buildThing(t.services, owner, { url });
      const before = await snapshot();
      await expectFailedTip(await tipUrl({ url }), before, 401, 'unauthorized');
      const other = await buildUser(t.services, { scopes: 'thing extendedread' });
      await expectFailedTip(await tipUrl({ url }, other.token), before, 403, 'insufficient_scope');
    });
  });

  describe('GET /users/:username/tips, /user/tips, /things/:id/tips', () => {
    /** alice owns two things; bob tips them (and one of carol's) at T0+10, T0+20, T0+30. */
    let alice: TestUser, bob: TestUser, carol: TestUser;
    let a1: number, a2: number, c1: number;
    beforeAll(async () => {
      clock.set(T0);
      alice = await buildUser(t.services);
      bob = await buildUser(t.services);
      carol = await buildUser(t.services);
      a1 = await buildThing(t.services, alice, { url: `https://example.com/${uniqueName('a1')}`, title: 'Alice one' });
      a2 = await buildThing(t.services, alice, {
        url: `https://example.com/${uniqueName('a2')}`,
        title: 'Alice two',
        tags: 'x,y',
        category: 'software',
      });
      c1 = await buildThing(t.services, carol, { url: `https://example.com/${uniqueName('c1')}`, title: 'Carol one' });
      for (const [i, id] of [a1, c1, a2].entries()) {
        clock.set(T0 + 10 * (i + 1));
        expect((await tip(id, bob.token)).statusCode).toBe(200);
      }
      clock.set(T0 + 40);
      expect((await tip(a2, carol.token)).statusCode).toBe(200);
      clock.set(T0 + 100);
    });

    const shortThing = (id: number, title: string, owner: string, tips: number, url: string) => ({
      type: 'thing',
      resource: `${PUBLIC_URL}${API}/things/${id}`,
      link: `${PUBLIC_URL}/thing/${id}`,
      id,
      url,
      title,
      image: '',
      tips,
      owner: summary(owner),
    });

    async function urlOf(id: number) {
      return (await db().selectFrom('things').select('url').where('id', '=', id).executeTakeFirstOrThrow()).url;
    }

    it("lists a user's tips newest first as Tip objects with exact keys", async () => {
      const res = await t.app.inject({ url: `${API}/users/${bob.user.username}/tips` });
      expect(res.statusCode).toBe(200);
      const list = json<any[]>(res);
      expect(list).toHaveLength(3);
      for (const item of list) {
        expect(Object.keys(item).sort()).toEqual(sorted(TIP_KEYS));
        expect(Object.keys(item.thing).sort()).toEqual(sorted(SHORT_THING_KEYS));
        expect(Object.keys(item.thing.owner).sort()).toEqual(sorted(SUMMARY_KEYS));
        expect(Object.keys(item.owner).sort()).toEqual(sorted(SUMMARY_KEYS));
      }
      expect(list).toEqual([
        {
          type: 'tip',
          thing: shortThing(a2, 'Alice two', alice.user.username, 2, await urlOf(a2)),
          owner: summary(bob.user.username),
          created_at: T0 + 30,
        },
        {
          type: 'tip',
          thing: shortThing(c1, 'Carol one', carol.user.username, 1, await urlOf(c1)),
          owner: summary(bob.user.username),
          created_at: T0 + 20,
        },
        {
          type: 'tip',
          thing: shortThing(a1, 'Alice one', alice.user.username, 1, await urlOf(a1)),
          owner: summary(bob.user.username),
          created_at: T0 + 10,
        },
      ]);
      // user names are case-insensitive in the path
      const upper = await t.app.inject({ url: `${API}/users/${bob.user.username.toUpperCase()}/tips` });
      expect(json(upper)).toEqual(list);
    });

    it('pages with count and page', async () => {
      const page = async (q: string) =>
        json<any[]>(await t.app.inject({ url: `${API}/users/${bob.user.username}/tips?${q}` })).map((x) => x.thing.id);
      expect(await page('count=2')).toEqual([a2, c1]);
      expect(await page('count=2&page=2')).toEqual([a1]);
      expect(await page('count=2&page=3')).toEqual([]);
      expect(await page('count=1&page=2')).toEqual([c1]);
      expect(await page('count=&page=')).toEqual([a2, c1, a1]);
      for (const q of ['count=0', 'count=101', 'count=abc', 'page=0', 'page=-1', 'count=1.5']) {
        expectError(
          await t.app.inject({ url: `${API}/users/${bob.user.username}/tips?${q}` }),
          400,
          'invalid_parameters',
        );
      }
    });

    it('with `full` gives the full thing and full users', async () => {
      for (const q of ['full', 'full=1', 'full=true', 'full=full']) {
        const list = json<any[]>(await t.app.inject({ url: `${API}/users/${bob.user.username}/tips?${q}` }));
        expect(list).toHaveLength(3);
        const first = list[0];
        expect(Object.keys(first).sort()).toEqual(sorted(TIP_KEYS));
        expect(Object.keys(first.thing).sort()).toEqual(sorted(FULL_THING_KEYS));
        expect(Object.keys(first.thing.owner).sort()).toEqual(sorted(FULL_USER_KEYS));
        expect(Object.keys(first.owner).sort()).toEqual(sorted(FULL_USER_KEYS));
        expect(first.thing).toMatchObject({
          id: a2,
          title: 'Alice two',
          tags: ['x', 'y'],
          category: 'software',
          language: 'en_GB',
          hidden: false,
          tips: 2,
          tips_user_count: 2,
          description: '',
          created_at: T0,
        });
        expect(first.thing.owner).toMatchObject({ ...summary(alice.user.username), firstname: '', city: '' });
        expect(first.owner).toMatchObject({ ...summary(bob.user.username), lastname: '', url: '' });
        expect(first.owner).not.toHaveProperty('email');
        expect(first.created_at).toBe(T0 + 30);
      }
      for (const q of ['full=0', 'full=false', 'full=FALSE']) {
        const list = json<any[]>(await t.app.inject({ url: `${API}/users/${bob.user.username}/tips?${q}` }));
        expect(Object.keys(list[0].thing).sort()).toEqual(sorted(SHORT_THING_KEYS));
        expect(Object.keys(list[0].owner).sort()).toEqual(sorted(SUMMARY_KEYS));
      }
      expectError(
        await t.app.inject({ url: `${API}/users/${bob.user.username}/tips?full=maybe` }),
        400,
        'invalid_parameters',
      );
    });

    it("with `full` and a token, each thing carries the caller's per-viewer fields as GET /things/:id does", async () => {
      const url = `${API}/users/${bob.user.username}/tips?full`;
      const byId = async (token: string) => {
        const list = json<any[]>(await t.app.inject({ url, headers: bearer(token) }));
        return new Map(list.map((x) => [x.thing.id as number, x.thing]));
      };
      for (const viewer of [alice, bob, carol]) {
        const things = await byId(viewer.token);
        for (const id of [a1, a2, c1]) {
          const single = json(await t.app.inject({ url: `${API}/things/${id}?full`, headers: bearer(viewer.token) }));
          expect(things.get(id)).toEqual(single);
        }
      }
      // the owner's view has last_tip_at and updated_at; carol tipped a2 this period
      const asAlice = await byId(alice.token);
      expect(Object.keys(asAlice.get(a2)).sort()).toEqual(
        sorted([...FULL_THING_KEYS, 'tipped', 'subscribed', 'last_tip_at', 'updated_at']),
      );
      expect(asAlice.get(a2)).toMatchObject({ last_tip_at: T0 + 40, tipped: false, subscribed: false });
      expect((await byId(carol.token)).get(a2)).toMatchObject({ tipped: true, subscribed: false });
      expect((await byId(carol.token)).get(a2)).not.toHaveProperty('last_tip_at');
      // anonymous: no per-viewer fields
      const anonymous = json<any[]>(await t.app.inject({ url }));
      expect(Object.keys(anonymous[0].thing).sort()).toEqual(sorted(FULL_THING_KEYS));
    });

    it('answers 200 [] for a user who hides their tips, and 404 not_found for an unknown user', async () => {
      const shy = await buildUser(t.services);
      expect((await tip(a1, shy.token)).statusCode).toBe(200);
      expect(json<any[]>(await t.app.inject({ url: `${API}/users/${shy.user.username}/tips` }))).toHaveLength(1);
      await db().updateTable('users').set({ hide_tips: 1 }).where('id', '=', shy.user.id).execute();

      const anon = await t.app.inject({ url: `${API}/users/${shy.user.username}/tips` });
      expect(anon.statusCode).toBe(200);
      expect(json(anon)).toEqual([]);
      const asOther = await t.app.inject({ url: `${API}/users/${shy.user.username}/tips`, headers: bearer(bob.token) });
      expect(asOther.statusCode).toBe(200);
      expect(json(asOther)).toEqual([]);
      // a user who has given no tips: also 200 []
      const idle = await buildUser(t.services);
      const none = await t.app.inject({ url: `${API}/users/${idle.user.username}/tips` });
      expect(none.statusCode).toBe(200);
      expect(json(none)).toEqual([]);

      expectError(await t.app.inject({ url: `${API}/users/${uniqueName('ghost')}/tips` }), 404, 'not_found');
    });

    it("GET /user/tips needs a token and lists the caller's own tips", async () => {
      expectError(await t.app.inject({ url: `${API}/user/tips` }), 401, 'unauthorized');
      expectError(await t.app.inject({ url: `${API}/user/tips`, headers: bearer('bogus') }), 401, 'unauthorized');
      const token = await issueToken(t.services, bob.user.username, 'extendedread');
      const res = await t.app.inject({ url: `${API}/user/tips`, headers: bearer(token) });
      expect(res.statusCode).toBe(200);
      const list = json<any[]>(res);
      expect(list.map((x) => [x.thing.id, x.created_at])).toEqual([
        [a2, T0 + 30],
        [c1, T0 + 20],
        [a1, T0 + 10],
      ]);
      expect(list.every((x) => x.owner.username === bob.user.username)).toBe(true);
      expect(Object.keys(list[0].thing).sort()).toEqual(sorted(SHORT_THING_KEYS));
      const paged = json<any[]>(await t.app.inject({ url: `${API}/user/tips?count=1&page=3`, headers: bearer(token) }));
      expect(paged.map((x) => x.thing.id)).toEqual([a1]);
      expectError(
        await t.app.inject({ url: `${API}/user/tips?count=500`, headers: bearer(token) }),
        400,
        'invalid_parameters',
      );
    });

    it('GET /things/:id/tips needs a token (any scope) and lists the tips on the thing, newest first', async () => {
      expectError(await t.app.inject({ url: `${API}/things/${a2}/tips` }), 401, 'unauthorized');
      const token = await issueToken(t.services, carol.user.username, 'thing');
      const res = await t.app.inject({ url: `${API}/things/${a2}/tips`, headers: bearer(token) });
      expect(res.statusCode).toBe(200);
      const list = json<any[]>(res);
      expect(list).toEqual([
        {
          type: 'tip',
          thing: shortThing(a2, 'Alice two', alice.user.username, 2, await urlOf(a2)),
          owner: summary(carol.user.username),
          created_at: T0 + 40,
        },
        {
          type: 'tip',
          thing: shortThing(a2, 'Alice two', alice.user.username, 2, await urlOf(a2)),
          owner: summary(bob.user.username),
          created_at: T0 + 30,
        },
      ]);
      const paged = json<any[]>(
        await t.app.inject({ url: `${API}/things/${a2}/tips?count=1&page=2`, headers: bearer(token) }),
      );
      expect(paged.map((x) => x.owner.username)).toEqual([bob.user.username]);
      expectError(
        await t.app.inject({ url: `${API}/things/999999999/tips`, headers: bearer(token) }),
        404,
        'not_found',
      );
    });

    it("leaves tips on hidden things out of every tip list and format, for everyone but the thing's owner, before paging", async () => {
      clock.set(T0 + 200);
      const owner = await buildUser(t.services);
      const fan = await buildUser(t.services);
      const stranger = await buildUser(t.services);
      const shown = await buildThing(t.services, owner, { title: 'Shown thing' });
      const secret = await buildThing(t.services, owner, {
        title: 'Secret thing',
        url: `https://example.com/${uniqueName('secret')}`,
      });
      clock.set(T0 + 210);
      expect((await tip(shown, fan.token)).statusCode).toBe(200);
      clock.set(T0 + 220);
      expect((await tip(secret, fan.token)).statusCode).toBe(200);
      expect(
        (
          await t.app.inject({
            method: 'PATCH',
            url: `${API}/things/${secret}`,
            headers: bearer(owner.token),
            payload: { hidden: true },
          })
        ).statusCode,
      ).toBe(200);
      clock.set(T0 + 300);
      const fanTips = `/users/${fan.user.username}/tips`;
      const ids = async (url: string, headers: Record<string, string> = {}) =>
        json<any[]>(await t.app.inject({ url: `${API}${url}`, headers })).map((x) => x.thing.id);

      for (const viewer of [{}, bearer(stranger.token), bearer(fan.token)]) {
        expect(await ids(fanTips, viewer)).toEqual([shown]);
        expect(await ids(`${fanTips}?full`, viewer)).toEqual([shown]);
        // page size counts visible tips only: the first page of one holds the visible tip
        expect(await ids(`${fanTips}?count=1`, viewer)).toEqual([shown]);
        expect(await ids(`${fanTips}?count=1&page=2`, viewer)).toEqual([]);
        const xml = await t.app.inject({ url: `${API}${fanTips}.xml`, headers: viewer });
        expect(xml.statusCode).toBe(200);
        expect(xml.body).toContain('Shown thing');
        expect(xml.body).not.toContain('Secret thing');
        expect(xml.body).not.toContain('secret');
        for (const feed of ['.as', '.atom'])
          expect((await t.app.inject({ url: `${API}${fanTips}${feed}`, headers: viewer })).body).not.toContain(
            'Secret thing',
          );
      }
      // the tipper's own list: not even the tipper sees another user's hidden thing
      expect(await ids('/user/tips', bearer(fan.token))).toEqual([shown]);
      // the thing's owner sees the tip on it everywhere
      expect(await ids(fanTips, bearer(owner.token))).toEqual([secret, shown]);
      expect(await ids(`${fanTips}?count=1`, bearer(owner.token))).toEqual([secret]);
      expect((await t.app.inject({ url: `${API}${fanTips}.xml`, headers: bearer(owner.token) })).body).toContain(
        'Secret thing',
      );
      // the hidden thing's own tip list: empty to others, complete to its owner
      expect(await ids(`/things/${secret}/tips`, bearer(stranger.token))).toEqual([]);
      expect(await ids(`/things/${secret}/tips`, bearer(fan.token))).toEqual([]);
      expect(
        (await t.app.inject({ url: `${API}/things/${secret}/tips.as`, headers: bearer(fan.token) })).body,
      ).not.toContain(fan.user.username);
      expect(await ids(`/things/${secret}/tips`, bearer(owner.token))).toEqual([secret]);
    });
  });

  describe('the per-viewer `tipped` field', () => {
    it('flips from false to true after a tip, for the tipper only', async () => {
      clock.set(T0 + 500);
      const owner = await buildUser(t.services);
      const tipper = await buildUser(t.services);
      const bystander = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      const other = await buildThing(t.services, owner);

      const get = async (token?: string) =>
        json(await t.app.inject({ url: `${API}/things/${id}`, headers: token ? bearer(token) : {} }));
      expect(await get()).not.toHaveProperty('tipped');
      expect((await get(tipper.token)).tipped).toBe(false);
      const listed = async (token: string) =>
        json<any[]>(
          await t.app.inject({ url: `${API}/users/${owner.user.username}/things`, headers: bearer(token) }),
        ).map((x) => [x.id, x.tipped]);
      expect(await listed(tipper.token)).toEqual([
        [other, false],
        [id, false],
      ]);

      expect((await tip(id, tipper.token)).statusCode).toBe(200);

      expect((await get(tipper.token)).tipped).toBe(true);
      expect((await get(bystander.token)).tipped).toBe(false);
      expect((await get(owner.token)).tipped).toBe(false);
      expect(await get()).not.toHaveProperty('tipped');
      expect(await listed(tipper.token)).toEqual([
        [other, false],
        [id, true],
      ]);
      const multi = json<any[]>(
        await t.app.inject({ url: `${API}/things/${id},${other}`, headers: bearer(tipper.token) }),
      );
      expect(multi.map((x) => [x.id, x.tipped])).toEqual([
        [id, true],
        [other, false],
      ]);
      // the owner sees last_tip_at move to the tip's time
      expect((await get(owner.token)).last_tip_at).toBe(T0 + 500);
    });
  });

  it('keeps things.tips equal to the number of tip rows and tips_user_count to distinct tippers for every thing', async () => {
    const rows = await db()
      .selectFrom('things')
      .leftJoin('tips', 'tips.thing_id', 'things.id')
      .select([
        'things.id',
        'things.tips',
        'things.tips_user_count',
        sql<number>`count(tips.id)`.as('n'),
        sql<number>`count(distinct tips.tipper_id)`.as('d'),
      ])
      .groupBy(['things.id', 'things.tips', 'things.tips_user_count'])
      .execute();
    expect(rows.length).toBeGreaterThan(10);
    for (const r of rows) {
      expect({ id: r.id, tips: r.tips, users: r.tips_user_count }).toEqual({
        id: r.id,
        tips: Number(r.n),
        users: Number(r.d),
      });
    }
  });
});
