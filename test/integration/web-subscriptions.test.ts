/**
 * The thing page's Subscribe / Pause / Resume / Unsubscribe, `/subscriptions`, tags as links,
 * this month's tippers, the owner's other things, and one-time notices (the flash cookie a form's
 * 303 sets: shown once, old `?done=` links still work).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, fixedClock, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, principalOf, tokenWith } from '../helpers/factories.ts';
import { buildWebUser, html, setCookie, WebClient } from '../helpers/web.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { updateThing } from '../../src/domain/things.ts';

const OCT_20 = Date.UTC(2026, 9, 20, 12) / 1000;
const NOV_2 = Date.UTC(2026, 10, 2, 12) / 1000;

describe.each(ENGINES)('website subscriptions on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(NOV_2);
  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
  });
  afterAll(async () => t.close());

  const db = () => t.db.database.db;
  const subscriptionOf = (userId: number, thingId: number) =>
    db()
      .selectFrom('subscriptions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('thing_id', '=', thingId)
      .executeTakeFirst();
  const tipsOn = (thingId: number) => db().selectFrom('tips').selectAll().where('thing_id', '=', thingId).execute();

  async function loggedIn(opts: { funded?: boolean } = {}) {
    const user = await buildWebUser(t.services, opts);
    const c = new WebClient(t.app);
    await c.login(user.username);
    return { user, c };
  }

  describe('the thing page', () => {
    it("tags link to /tag/<tag>; tippers this month only, those who hide their tips left out; the owner's other things", async () => {
      clock.set(OCT_20);
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner, { title: 'Main', tags: ['music', 'c++'] });
      const other = await buildThing(t.services, owner, { title: 'Other one' });
      const hidden = await buildThing(t.services, owner, { title: 'Secret one' });
      await updateThing(t.services, principalOf(owner.user), hidden, { hidden: true });
      const lastMonth = await buildWebUser(t.services);
      await tipThing(t.services, principalOf(lastMonth), id);
      clock.set(NOV_2);
      const shy = await buildWebUser(t.services);
      await db().updateTable('users').set({ hide_tips: 1 }).where('id', '=', shy.id).execute();
      await tipThing(t.services, principalOf(shy), id);
      const fan = await buildWebUser(t.services);
      await tipThing(t.services, principalOf(fan), id);

      const body = html(await new WebClient(t.app).get(`/thing/${id}`));
      expect(body).toContain('<a href="/tag/music">music</a> <a href="/tag/c%2B%2B">c++</a>');
      expect(body).toContain('<h2>Tippers this month</h2>');
      expect(body).toContain(`<a href="/profile/${fan.username}">${fan.username}</a>`);
      expect(body).not.toContain(lastMonth.username);
      expect(body).not.toContain(shy.username);
      expect(body).toContain(`<h2>More from ${owner.user.username}</h2>`);
      expect(body).toContain(`<a href="/thing/${other}">Other one</a>`);
      expect(body).not.toContain('Secret one');
      expect(body).not.toContain(`<a href="/thing/${id}">Main</a>`);
      // the shy tipper sees their own tip; the owner sees their hidden thing among the others
      const shyClient = new WebClient(t.app);
      await shyClient.login(shy.username);
      expect(html(await shyClient.get(`/thing/${id}`))).toContain(`<a href="/profile/${shy.username}">`);
      // a visitor gets a log-in link, no forms
      expect(body).toContain(`<a href="/login?return_to=%2Fthing%2F${id}">log in</a>`);
      expect(body).not.toContain(`action="/thing/${id}/subscribe"`);
    });

    it('the owner sees the owner forms, no Tip or Subscribe', async () => {
      const owner = await buildWebUser(t.services);
      const c = new WebClient(t.app);
      await c.login(owner.username);
      const id = await buildThing(t.services, {
        user: owner,
        token: await tokenWith(t.services, owner.username, 'thing'),
      });
      const body = html(await c.get(`/thing/${id}`));
      expect(body).toContain(`href="/thing/${id}/delete"`);
      expect(body).not.toContain(`action="/thing/${id}/tip"`);
      expect(body).not.toContain(`action="/thing/${id}/subscribe"`);
    });
  });

  describe('subscribe → pause → resume → unsubscribe', () => {
    it('from the thing page, each with a one-time notice and the domain rules of the API', async () => {
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      const { user, c } = await loggedIn();
      expect(html(await c.get(`/thing/${id}`))).toContain(`<form method="post" action="/thing/${id}/subscribe">`);

      const sub = await c.submit(`/thing/${id}`, `/thing/${id}/subscribe`, { from: 'thing' });
      expect(sub.statusCode).toBe(303);
      expect(sub.headers.location).toBe(`/thing/${id}`);
      expect(setCookie(sub, 'tipjar_flash')).toMatch(/^tipjar_flash=subscribed;.*HttpOnly/i);
      expect(setCookie(sub, 'tipjar_flash')).toMatch(/SameSite=Lax/i);
      expect(setCookie(sub, 'tipjar_flash')).toMatch(/Path=\//);
      expect(await subscriptionOf(user.id, id)).toMatchObject({ active: 1 });
      expect(await tipsOn(id)).toHaveLength(1); // subscribing tips this month
      let page = html(await c.get(`/thing/${id}`));
      expect(page).toContain('You subscribed to this thing and tipped it for this month.');
      expect(page).toContain(`action="/thing/${id}/pause"`);
      expect(page).toContain(`action="/thing/${id}/unsubscribe"`);
      expect(page).toContain('You have tipped this thing this month.');
      expect(page).toContain('You subscribe to this thing: it is tipped at the start of every month.');
      expect(html(await c.get(`/thing/${id}`))).not.toContain('You subscribed'); // shown once

      // subscribing again (a stale page): 403 with the reason, nothing changes
      const again = await c.submit(`/thing/${id}`, `/thing/${id}/subscribe`);
      expect(html(again, 403)).toContain('You are subscribed to this thing already.');

      const pause = await c.submit(`/thing/${id}`, `/thing/${id}/pause`);
      expect(pause.headers.location).toBe(`/thing/${id}`);
      expect(await subscriptionOf(user.id, id)).toMatchObject({ active: 0 });
      page = html(await c.get(`/thing/${id}`));
      expect(page).toContain('Your subscription is paused: the thing is not tipped');
      expect(page).toContain('<p class="muted">Your subscription is paused.</p>');
      expect(page).toContain(`action="/thing/${id}/resume"`);
      // the same form sent twice does not undo itself
      expect((await c.submit(`/thing/${id}`, `/thing/${id}/pause`)).statusCode).toBe(303);
      expect(await subscriptionOf(user.id, id)).toMatchObject({ active: 0 });

      clock.advance(3600);
      expect((await c.submit(`/thing/${id}`, `/thing/${id}/resume`)).statusCode).toBe(303);
      const resumed = await subscriptionOf(user.id, id);
      expect(resumed).toMatchObject({ active: 1, started_at: clock.now() });
      expect(html(await c.get(`/thing/${id}`))).toContain('Your subscription is active again');
      expect((await c.submit(`/thing/${id}`, `/thing/${id}/resume`)).statusCode).toBe(303);
      expect(await subscriptionOf(user.id, id)).toMatchObject({ active: 1, started_at: resumed!.started_at });

      const un = await c.submit(`/thing/${id}`, `/thing/${id}/unsubscribe`);
      expect(un.headers.location).toBe(`/thing/${id}`);
      expect(await subscriptionOf(user.id, id)).toBeUndefined();
      page = html(await c.get(`/thing/${id}`));
      expect(page).toContain('You unsubscribed from this thing.');
      expect(page).toContain(`action="/thing/${id}/subscribe"`);
      expect(await tipsOn(id)).toHaveLength(1);
    });

    it('without means: subscribed, not tipped, and told why', async () => {
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      const { user, c } = await loggedIn({ funded: false });
      expect((await c.submit(`/thing/${id}`, `/thing/${id}/subscribe`)).statusCode).toBe(303);
      expect(await subscriptionOf(user.id, id)).toMatchObject({ active: 1 });
      expect(await tipsOn(id)).toHaveLength(0);
      expect(html(await c.get(`/thing/${id}`))).toContain('you have no means to tip yet');
    });

    it('refusals re-render with the reason and change nothing: own thing 403, no subscription 400, unknown thing 404', async () => {
      const { user, c } = await loggedIn();
      const own = await buildThing(t.services, { user, token: await tokenWith(t.services, user.username, 'thing') });
      const res = await c.submit(`/thing/${own}`, `/thing/${own}/subscribe`);
      expect(html(res, 403)).toContain('This is your own thing: you cannot subscribe to it.');
      expect(await subscriptionOf(user.id, own)).toBeUndefined();
      const other = await buildThing(t.services, await buildUser(t.services));
      for (const action of ['pause', 'resume', 'unsubscribe']) {
        const r = await c.submit(`/thing/${other}`, `/thing/${other}/${action}`);
        expect(html(r, 400)).toContain('You are not subscribed to this thing.');
        const fromList = await c.submit('/subscriptions', `/thing/${other}/${action}`, { from: 'subscriptions' });
        expect(html(fromList, 400)).toContain('<h1>Your subscriptions</h1>');
      }
      for (const bad of ['999999999', 'abc', '1e3']) {
        const r = await c.submit('/subscriptions', `/thing/${bad}/subscribe`);
        expect(html(r, 404)).toContain('<h1>Page not found</h1>');
      }
      expect(await db().selectFrom('subscriptions').selectAll().where('user_id', '=', user.id).execute()).toEqual([]);
    });

    it('log-in required: the log-in page, then back to the thing; nothing changes', async () => {
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      const visitor = new WebClient(t.app);
      for (const action of ['subscribe', 'pause', 'resume', 'unsubscribe']) {
        const res = await visitor.submit('/login', `/thing/${id}/${action}`);
        expect(res.statusCode).toBe(303);
        expect(res.headers.location).toBe(`/login?return_to=%2Fthing%2F${id}`);
      }
      expect(await db().selectFrom('subscriptions').selectAll().where('thing_id', '=', id).execute()).toEqual([]);
      const list = await visitor.get('/subscriptions');
      expect(list.statusCode).toBe(302);
      expect(list.headers.location).toBe('/login?return_to=%2Fsubscriptions');
    });
  });

  describe('/subscriptions', () => {
    it('lists the subscriptions with their state and actions, back to the list; hidden things without title', async () => {
      const owner = await buildUser(t.services);
      const a = await buildThing(t.services, owner, { title: 'Alpha' });
      const b = await buildThing(t.services, owner, { title: 'Beta secret' });
      const { user, c } = await loggedIn();
      expect(html(await c.get('/subscriptions'))).toContain('You have no subscriptions.');
      await c.submit(`/thing/${a}`, `/thing/${a}/subscribe`);
      await c.submit(`/thing/${b}`, `/thing/${b}/subscribe`);
      await updateThing(t.services, principalOf(owner.user), b, { hidden: true });

      let body = html(await c.get('/subscriptions'));
      expect(body).toContain(`<a href="/thing/${a}">Alpha</a>`);
      expect(body).not.toContain('Beta secret');
      expect(body).toContain('A thing its owner has hidden');
      expect(body).toContain(`action="/thing/${a}/pause"`);
      expect(body).toContain(`action="/thing/${b}/unsubscribe"`);
      expect(body).toContain('<input type="hidden" name="from" value="subscriptions">');

      const pause = await c.submit('/subscriptions', `/thing/${a}/pause`, { from: 'subscriptions' });
      expect(pause.headers.location).toBe('/subscriptions');
      body = html(await c.get('/subscriptions'));
      expect(body).toContain('Your subscription is paused');
      expect(body).toContain('Paused');
      expect(body).toContain(`action="/thing/${a}/resume"`);
      const un = await c.submit('/subscriptions', `/thing/${b}/unsubscribe`, { from: 'subscriptions' });
      expect(un.headers.location).toBe('/subscriptions');
      expect(await subscriptionOf(user.id, b)).toBeUndefined();
      expect(html(await c.get('/subscriptions'))).not.toContain(`/thing/${b}/`);
    });
  });

  describe('one-time notices', () => {
    it('a flash shows once; an old ?done= link still shows its notice; an unknown key shows nothing', async () => {
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      const { c } = await loggedIn();
      const res = await c.submit(`/thing/${id}`, `/thing/${id}/tip`);
      expect(res.headers.location).toBe(`/thing/${id}`);
      const first = await c.get(`/thing/${id}`);
      expect(html(first)).toContain('<p class="notice" role="status">Thank you — you tipped this thing.</p>');
      expect(setCookie(first, 'tipjar_flash')).toMatch(/^tipjar_flash=;/);
      expect(html(await c.get(`/thing/${id}`))).not.toContain('class="notice"');
      expect(html(await c.get(`/thing/${id}?done=tipped`))).toContain('Thank you — you tipped this thing.');
      const forged = await c.get(`/thing/${id}`, { cookie: 'tipjar_flash=<script>' });
      expect(html(forged)).not.toContain('class="notice"');
      expect(html(await c.get(`/thing/${id}`, { cookie: 'tipjar_flash=nonsense' }))).not.toContain('class="notice"');
    });
  });
});
