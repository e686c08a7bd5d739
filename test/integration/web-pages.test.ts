/**
 * Website pages: settings (profile, hide my tips, monthly budget), `/profile/:username`
 * and `/thing/:id` (the API's `link` targets) with the Tip button, the stylesheet, HTML 404s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith, uniqueName } from '../helpers/factories.ts';
import { buildWebUser, html, WebClient } from '../helpers/web.ts';
import { TIP_ERROR_TEXT } from '../../src/web/routes/pages.ts';

describe.each(ENGINES)('website pages on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  const db = () => t.db.database.db;
  const userRow = (id: number) => db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  async function loggedIn(opts: { funded?: boolean } = {}) {
    const user = await buildWebUser(t.services, opts);
    const c = new WebClient(t.app);
    await c.login(user.username);
    return { user, c };
  }

  describe('home, stylesheet and unknown pages', () => {
    it('GET / is the home page, with log-in and sign-up links for visitors', async () => {
      const body = html(await new WebClient(t.app).get('/'));
      expect(body).toContain('<a class="button" href="/signup">Sign up</a>');
      expect(body).toContain('<a href="/login">Log in</a>');
    });

    it('GET /static/site.css is the stylesheet, with a phone layout', async () => {
      const res = await t.app.inject({ url: '/static/site.css' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expect(res.body).toContain('@media (max-width: 30rem)');
    });

    it('an address that does not decode, or refused input on an unknown path, is a 400 page for browsers and the error shape otherwise', async () => {
      for (const url of ['/thing/%C0%AF', '/no/such/page?x=%00', `/claim/${'x'.repeat(3000)}?a=%01`]) {
        expect(html(await new WebClient(t.app).get(url), 400)).toContain('<h1>');
        const plain = await t.app.inject({ url });
        expect(plain.statusCode).toBe(400);
        expect(Object.keys(json(plain)).sort()).toEqual(['error', 'error_description', 'error_uri']);
      }
      const api = await new WebClient(t.app).get(`${API}/things/%C0%AF`);
      expect(api.statusCode).toBe(400);
      expect(json(api).error).toBe('invalid_request');
    });

    it('an unknown page asked for as HTML is a 404 page; the API and non-HTML clients keep the JSON error shape', async () => {
      const page = await new WebClient(t.app).get('/no/such/page');
      expect(html(page, 404)).toContain('<h1>Page not found</h1>');
      const api = await new WebClient(t.app).get(`${API}/no/such/resource`);
      expect(api.statusCode).toBe(404);
      expect(json(api)).toEqual({
        error: 'not_found',
        error_description: 'The resource was not found',
        error_uri: `${PUBLIC_URL}/docs/api#errors`,
      });
      const plain = await t.app.inject({ url: '/no/such/page' });
      expect(plain.statusCode).toBe(404);
      expect(json(plain).error).toBe('not_found');
    });
  });

  describe('settings', () => {
    it('GET /settings without a session → the log-in page, then back', async () => {
      const res = await new WebClient(t.app).get('/settings');
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/login?return_to=%2Fsettings');
    });

    it('shows the profile form, the balance, the budget and the month', async () => {
      const { c } = await loggedIn();
      const body = html(await c.get('/settings'));
      expect(body).toContain('<input type="text" id="firstname" name="firstname" value="" maxlength="100">');
      expect(body).toContain('<dt>Balance</dt><dd>€10.00</dd>');
      expect(body).toContain('<dt>Monthly budget</dt><dd>€5.00</dd>');
      expect(body).toContain('<dt>Able to tip</dt><dd>yes</dd>');
      expect(body).toContain('name="budget" value="5.00"');
    });

    it('saves the profile fields and "hide my tips"; the API shows them', async () => {
      const { user, c } = await loggedIn();
      const fields = {
        firstname: 'Ada',
        lastname: 'Lovelace',
        about: 'Line one\nLine two',
        city: 'London',
        country: 'GB',
        url: 'https://ada.example/',
        avatar: 'https://ada.example/me.png',
        hide_tips: '1',
      };
      const res = await c.submit('/settings', '/settings', fields);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/settings');
      expect(html(await c.get('/settings'))).toContain('Your profile was saved.');
      expect(html(await c.get('/settings')), 'the notice shows once').not.toContain('Your profile was saved.');
      const row = await userRow(user.id);
      expect(row).toMatchObject({
        firstname: 'Ada',
        lastname: 'Lovelace',
        about: 'Line one\nLine two',
        city: 'London',
        country: 'GB',
        url: 'https://ada.example/',
        avatar: 'https://ada.example/me.png',
        hide_tips: 1,
      });
      const api = json(await t.app.inject({ url: `${API}/users/${user.username}` }));
      expect(api).toMatchObject({
        firstname: 'Ada',
        lastname: 'Lovelace',
        city: 'London',
        country: 'GB',
        url: 'https://ada.example/',
        avatar: 'https://ada.example/me.png',
      });

      // unticking the box shows tips again
      const res2 = await c.submit('/settings', '/settings', { ...fields, hide_tips: '' });
      expect(res2.statusCode).toBe(303);
      expect((await userRow(user.id)).hide_tips).toBe(0);
    });

    it.each([
      ['url', 'javascript:alert(1)', 'Invalid url: an absolute http or https URL is required'],
      ['avatar', 'ftp://x.example/a.png', 'Invalid avatar: an absolute http or https URL is required'],
      ['firstname', 'x'.repeat(101), 'Invalid firstname: at most 100 characters'],
      ['about', 'y'.repeat(1001), 'Invalid about: at most 1000 characters'],
      ['city', 'bad\tcity', 'Invalid city: control characters are not allowed'],
      // refused at the edge, before the form is read
      ['city', 'bad\u0001city', 'The field "city" holds a control character or malformed text'],
      ['about', 'nul\u0000here', 'The field "about" holds a control character or malformed text'],
    ])('refuses a bad %s with 400 and the reason, changing nothing', async (name, value, message) => {
      const { user, c } = await loggedIn();
      const before = await userRow(user.id);
      const res = await c.submit('/settings', '/settings', { firstname: 'Changed', [name]: value });
      const body = html(res, 400);
      expect(body).toContain(message.replace(/"/g, '&quot;'));
      expect(await userRow(user.id)).toEqual(before);
    });

    it('saves the monthly budget in cents', async () => {
      const { user, c } = await loggedIn();
      const res = await c.submit('/settings', '/settings/budget', { budget_cents: '750' });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/settings');
      expect((await userRow(user.id)).budget_cents).toBe(750);
      const body = html(await c.get('/settings'));
      expect(body).toContain('Your monthly budget was saved.');
      expect(body).toContain('<dt>Monthly budget</dt><dd>€7.50</dd>');
    });

    it("after a tip this month, shows the month's fixed budget beside a changed setting and says the change applies next month", async () => {
      const { user, c } = await loggedIn();
      expect(html(await c.get('/settings'))).not.toContain('Budget of this month');
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      expect((await c.submit(`/thing/${id}`, `/thing/${id}/tip`)).statusCode).toBe(303);
      expect((await c.submit('/settings', '/settings/budget', { budget_cents: '0' })).statusCode).toBe(303);
      expect((await userRow(user.id)).budget_cents).toBe(0);
      const body = html(await c.get('/settings'));
      expect(body).toContain('<dt>Monthly budget</dt><dd>€0.00</dd>');
      expect(body).toContain('<dt>Budget of this month</dt><dd>€5.00 (fixed at your first tip this month)</dd>');
      expect(body).toContain('once you have tipped this month, a change applies from next month');
    });

    it.each(['abc', '-1', '1.5', '', '1000001'])('refuses the budget %j with 400, changing nothing', async (value) => {
      const { user, c } = await loggedIn();
      const res = await c.submit('/settings', '/settings/budget', { budget_cents: value });
      expect(html(res, 400)).toContain('The monthly budget must be a whole number of cents from 0 to 1000000');
      expect((await userRow(user.id)).budget_cents).toBe(500);
    });
  });

  describe('/profile/:username', () => {
    it('shows the profile, the things (hidden ones only to their owner) and the tips; the API link points here', async () => {
      const owner = await buildUser(t.services, { username: uniqueName('prof') });
      const visible = await buildThing(t.services, owner, { title: 'Visible thing' });
      await buildThing(t.services, owner, { title: 'Hidden thing', hidden: true });
      const tipper = await buildUser(t.services);
      const other = await buildThing(t.services, tipper, { title: 'Tipped by owner' });
      await t.app.inject({
        method: 'POST',
        url: `${API}/things/${other}/tip`,
        headers: { authorization: `Bearer ${owner.token}` },
      });

      const link = json(await t.app.inject({ url: `${API}/users/${owner.user.username}` })).link as string;
      expect(link).toBe(`${PUBLIC_URL}/profile/${owner.user.username}`);
      const body = html(await new WebClient(t.app).get(new URL(link).pathname));
      expect(body).toContain(`<h1>${owner.user.username}</h1>`);
      expect(body).toContain(`<a href="/thing/${visible}">Visible thing</a>`);
      expect(body).not.toContain('Hidden thing');
      expect(body).toContain(`<a href="/thing/${other}">Tipped by owner</a>`);
    });

    it("lists a tip on a hidden thing to nobody but the thing's owner, on the profile and the thing page", async () => {
      const ownerUser = await buildWebUser(t.services);
      const owner = { user: ownerUser, token: await tokenWith(t.services, ownerUser.username, 'thing') };
      const fan = await buildWebUser(t.services);
      const secret = await buildThing(t.services, owner, { title: 'Quietly kept' });
      const shown = await buildThing(t.services, owner, { title: 'Openly shown' });
      const c = new WebClient(t.app);
      await c.login(fan.username);
      for (const id of [secret, shown])
        expect((await c.submit(`/thing/${id}`, `/thing/${id}/tip`)).statusCode).toBe(303);
      await db().updateTable('things').set({ hidden: 1 }).where('id', '=', secret).execute();

      const anonymous = html(await new WebClient(t.app).get(`/profile/${fan.username}`));
      expect(anonymous).toContain('Openly shown');
      expect(anonymous).not.toContain('Quietly kept');
      // not even the tipper sees it listed; the owner does
      expect(html(await c.get(`/profile/${fan.username}`))).not.toContain('Quietly kept');
      const asOwner = new WebClient(t.app);
      await asOwner.login(ownerUser.username);
      expect(html(await asOwner.get(`/profile/${fan.username}`))).toContain('Quietly kept');
      expect(html(await asOwner.get(`/thing/${secret}`))).toContain(`/profile/${fan.username}`);
      // the thing page (reached by its id) lists no tippers of a hidden thing to others
      expect(html(await new WebClient(t.app).get(`/thing/${secret}`))).not.toContain(`/profile/${fan.username}`);
      expect(html(await new WebClient(t.app).get(`/thing/${shown}`))).toContain(`/profile/${fan.username}`);
    });

    it('the username is case-insensitive; an unknown user is a 404 page', async () => {
      const u = await buildUser(t.services, { username: uniqueName('Case') });
      expect(html(await new WebClient(t.app).get(`/profile/${u.user.username.toLowerCase()}`))).toContain(
        `<h1>${u.user.username}</h1>`,
      );
      const missing = await new WebClient(t.app).get('/profile/nobody-here-at-all');
      expect(html(missing, 404)).toContain('User not found');
    });

    it('a user who hides their tips: others see a note, the list is empty', async () => {
      const { user, c } = await loggedIn();
      const owner = await buildUser(t.services);
      const thing = await buildThing(t.services, owner, { title: 'Secretly tipped' });
      await c.submit(`/thing/${thing}`, `/thing/${thing}/tip`);
      await c.submit('/settings', '/settings', { hide_tips: '1' });
      const body = html(await new WebClient(t.app).get(`/profile/${user.username}`));
      expect(body).toContain(`${user.username} keeps their tips private.`);
      expect(body).not.toContain('Secretly tipped');
      // the user themself still sees them
      expect(html(await c.get(`/profile/${user.username}`))).toContain('Secretly tipped');
    });
  });

  describe('/thing/:id', () => {
    it('shows title, url (nofollow), owner, tags, tips; visitors get a log-in link instead of the button', async () => {
      const owner = await buildUser(t.services, { username: uniqueName('own') });
      const id = await buildThing(t.services, owner, {
        title: 'A fine thing',
        url: 'https://fine.example/x?y=1',
        tags: 'music,free',
        description: 'About it',
      });
      const link = json(await t.app.inject({ url: `${API}/things/${id}` })).link as string;
      expect(link).toBe(`${PUBLIC_URL}/thing/${id}`);
      const body = html(await new WebClient(t.app).get(`/thing/${id}`));
      expect(body).toContain('<h1>A fine thing</h1>');
      expect(body).toContain(
        '<a href="https://fine.example/x?y=1" rel="nofollow noopener">https://fine.example/x?y=1</a>',
      );
      expect(body).toContain(`<a href="/profile/${owner.user.username}">${owner.user.username}</a>`);
      expect(body).toContain('<a href="/tag/music">music</a> <a href="/tag/free">free</a>');
      expect(body).toContain('<p>About it</p>');
      expect(body).toContain('<dt>Tips</dt><dd>0</dd>');
      expect(body).toContain(`<a class="button" href="/signup?return_to=%2Fthing%2F${id}">Sign up to tip</a>`);
      expect(body).toContain(
        `or <a href="/login?return_to=%2Fthing%2F${id}">log in</a> to tip this thing or subscribe to it.`,
      );
      expect(body).not.toContain(`action="/thing/${id}/tip"`);
    });

    it('the Tip button tips through the same domain rules as the API, once per month', async () => {
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      const { user, c } = await loggedIn();
      const page = html(await c.get(`/thing/${id}`));
      expect(page).toContain(`<form method="post" action="/thing/${id}/tip">`);

      const res = await c.submit(`/thing/${id}`, `/thing/${id}/tip`);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`/thing/${id}`);
      const after = html(await c.get(`/thing/${id}`));
      expect(after).toContain('Thank you — you tipped this thing.');
      // the notice is shown once: a reload shows the page without it
      expect(html(await c.get(`/thing/${id}`))).not.toContain('Thank you — you tipped this thing.');
      expect(after).toContain('<dt>Tips</dt><dd>1</dd>');
      expect(after).toContain('You have tipped this thing this month.');
      expect(after).toContain(`<a href="/profile/${user.username}">${user.username}</a>`);
      const tips = await db().selectFrom('tips').selectAll().where('thing_id', '=', id).execute();
      expect(tips).toHaveLength(1);
      expect(tips[0]).toMatchObject({ tipper_id: user.id, source: 'api', client_id: null });

      // a second tip in the month (e.g. a stale page): 403 with the reason in words
      const again = await c.post(`/thing/${id}/tip`, { _csrf: await c.csrf(`/thing/${id}`) });
      expect(html(again, 403)).toContain(TIP_ERROR_TEXT.tip_once);
      expect(await db().selectFrom('tips').selectAll().where('thing_id', '=', id).execute()).toHaveLength(1);
    });

    it('tipping your own thing → 403 in words; without means → 401 in words; nothing written', async () => {
      const { user, c } = await loggedIn();
      const someone = await buildUser(t.services);
      const theirs = await buildThing(t.services, someone);
      const own = await buildThing(
        t.services,
        { user, token: await tokenWith(t.services, user.username, 'thing') },
        { title: 'Mine' },
      );
      expect(html(await c.get(`/thing/${own}`))).toContain('This is your thing.');
      const res = await c.post(`/thing/${own}/tip`, { _csrf: await c.csrf(`/thing/${own}`) });
      expect(html(res, 403)).toContain(TIP_ERROR_TEXT.tip_owner);

      const poor = await loggedIn({ funded: false });
      const res2 = await poor.c.submit(`/thing/${theirs}`, `/thing/${theirs}/tip`);
      expect(html(res2, 401)).toContain(TIP_ERROR_TEXT.no_means);
      expect(await db().selectFrom('tips').selectAll().where('thing_id', 'in', [own, theirs]).execute()).toHaveLength(
        0,
      );
    });

    it('POST /thing/:id/tip without a session → the log-in page, then back to the thing', async () => {
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      const c = new WebClient(t.app);
      const res = await c.submit('/login', `/thing/${id}/tip`);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`/login?return_to=%2Fthing%2F${id}`);
    });

    it.each(['999999999', 'abc', '0', '12abc', '99999999999999999999'])('/thing/%s is a 404 page', async (id) => {
      const res = await new WebClient(t.app).get(`/thing/${id}`);
      expect(html(res, 404)).toContain('Thing not found');
    });

    it('a deleted thing is a 404 page', async () => {
      const owner = await buildUser(t.services);
      const id = await buildThing(t.services, owner);
      await t.app.inject({
        method: 'DELETE',
        url: `${API}/things/${id}`,
        headers: { authorization: `Bearer ${owner.token}` },
      });
      expect((await new WebClient(t.app).get(`/thing/${id}`)).statusCode).toBe(404);
    });
  });
});
