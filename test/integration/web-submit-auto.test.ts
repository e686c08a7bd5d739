/**
 * Auto-submit links for people: `GET /submit/auto?url=…&user_id=…` shows a browser the thing or
 * what its first tip creates, with a Tip button (`POST /submit/auto/tip`, through POST /tip's own
 * function: created on the first tip only); clients not asking for HTML keep the 404 of unknown paths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, json, type TestApp } from '../helpers/app.ts';
import { uniqueName } from '../helpers/factories.ts';
import { buildWebUser, html, WebClient } from '../helpers/web.ts';
import { TIP_ERROR_TEXT } from '../../src/web/routes/pages.ts';

describe.each(ENGINES)('website auto-submit page on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  const db = () => t.db.database.db;
  const thingsAt = (url: string) => db().selectFrom('things').selectAll().where('url', '=', url).execute();
  const page = (params: Record<string, string>) => `/submit/auto?${new URLSearchParams(params).toString()}`;
  const tipAction = (path: string) => path.replace('/submit/auto', '/submit/auto/tip');

  async function loggedIn(opts: { funded?: boolean } = {}) {
    const user = await buildWebUser(t.services, opts);
    const c = new WebClient(t.app);
    await c.login(user.username);
    return { user, c };
  }

  it('clients not asking for HTML get the 404 of an unknown path, as before', async () => {
    const owner = await buildWebUser(t.services);
    const path = page({ url: `https://blog.example/${uniqueName('p')}`, user_id: owner.username });
    for (const accept of [undefined, 'application/json', '*/*']) {
      const headers = accept ? { accept } : {};
      const res = await t.app.inject({ url: path, headers });
      const unknown = await t.app.inject({ url: '/no/such/page', headers });
      expect(res.statusCode).toBe(404);
      expect(json(res)).toEqual(json(unknown));
      expect(res.headers['content-type']).toBe(unknown.headers['content-type']);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('shows what the first tip creates, creates it on the first tip only, and then shows the thing', async () => {
    const owner = await buildWebUser(t.services);
    const url = `https://blog.example/${uniqueName('post')}`;
    const path = page({ url, user_id: owner.username, title: 'My post', tags: 'music,free', category: 'text' });

    // a visitor: the preview and a log-in link that returns here; nothing is created by looking
    const visitor = new WebClient(t.app);
    let body = html(await visitor.get(path));
    expect(body).toContain('<h1>My post</h1>');
    expect(body).toContain('This page is not on Tipjar yet.');
    expect(body).toContain(`<a href="/profile/${owner.username}">${owner.username}</a>`);
    expect(body).toContain('<dd>music, free</dd>');
    expect(body).toContain(`<a class="button" href="/login?return_to=${encodeURIComponent(path)}">Log in to tip</a>`);
    expect(await thingsAt(url)).toEqual([]);
    const anonymous = await visitor.post(tipAction(path), { _csrf: await visitor.csrf('/login') });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe(`/login?return_to=${encodeURIComponent(path)}`);
    expect(await thingsAt(url)).toEqual([]);

    // a logged-in tipper: the Tip button; the tip creates the thing and tips it
    const { user, c } = await loggedIn();
    body = html(await c.get(path));
    expect(body).toContain(`<form method="post" action="${tipAction(path).replace(/&/g, '&amp;')}">`);
    expect(await thingsAt(url)).toEqual([]);
    const res = await c.submit(path, tipAction(path));
    expect(res.statusCode).toBe(303);
    const [thing] = await thingsAt(url);
    expect(thing).toMatchObject({ title: 'My post', owner_user_id: owner.id, tips: 1 });
    expect(res.headers.location).toBe(`/thing/${thing!.id}`);
    expect(html(await c.get(res.headers.location!))).toContain('Thank you — you tipped this thing.');
    const tips = await db().selectFrom('tips').selectAll().where('thing_id', '=', thing!.id).execute();
    expect(tips.map((x) => x.tipper_id)).toEqual([user.id]);

    // the link now shows the thing; tipping it again this month is refused; another tipper adds a tip
    body = html(await c.get(path));
    expect(body).toContain(`<a href="/thing/${thing!.id}">See this thing on Tipjar</a>`);
    expect(body).toContain('You have tipped this thing this month.');
    const twice = await c.submit(path, tipAction(path));
    expect(html(twice, 403)).toContain(TIP_ERROR_TEXT.tip_once);
    const other = await loggedIn();
    expect((await other.c.submit(path, tipAction(path))).headers.location).toBe(`/thing/${thing!.id}`);
    expect(await thingsAt(url)).toHaveLength(1);
    expect((await thingsAt(url))[0]).toMatchObject({ tips: 2 });
  });

  it('refusals: no means 401, own page 403, nothing created', async () => {
    const owner = await buildWebUser(t.services);
    const url = `https://blog.example/${uniqueName('p')}`;
    const path = page({ url, user_id: owner.username });
    const poor = await loggedIn({ funded: false });
    expect(html(await poor.c.submit(path, tipAction(path)), 401)).toContain(TIP_ERROR_TEXT.no_means);
    const self = new WebClient(t.app);
    await self.login(owner.username);
    const body = html(await self.get(path));
    expect(body).toContain('This is your own page: you cannot tip it.');
    expect(body).not.toContain('/submit/auto/tip');
    expect(html(await self.submit(path, tipAction(path)), 403)).toContain(TIP_ERROR_TEXT.tip_owner);
    expect(await thingsAt(url)).toEqual([]);
  });

  it.each([
    ['no url', { user_id: 'x' }, 400, 'its url parameter is missing'],
    ['not a URL', { url: 'javascript:alert(1)', user_id: 'x' }, 400, 'Invalid url'],
    ['unknown user', { url: 'https://blog.example/u', user_id: 'nobody-like-that' }, 404, 'No user'],
    ['no owner', { url: 'https://blog.example/none' }, 404, 'names no owner'],
    ['a bad title', { url: 'https://blog.example/t', user_id: 'x', title: 'y'.repeat(101) }, 400, 'Invalid title'],
    ['a bad owner identity', { url: 'https://blog.example/o', owner: 'bogus' }, 400, 'owner'],
  ])(
    'a link that cannot be tipped (%s): the reason, no Tip button, nothing created',
    async (_n, params, status, text) => {
      const owner = await buildWebUser(t.services);
      const p = { ...params } as Record<string, string>;
      if (p.user_id === 'x') p.user_id = owner.username;
      const { c } = await loggedIn();
      const before = await db().selectFrom('things').select('id').execute();
      const body = html(await c.get(page(p)), status);
      expect(body).toContain('<h1>This tip link does not work</h1>');
      expect(body).toContain(text);
      expect(body).not.toContain('/submit/auto/tip');
      const posted = await c.post(tipAction(page(p)), { _csrf: await c.csrf('/settings') });
      expect(posted.statusCode).toBe(status);
      expect(await db().selectFrom('things').select('id').execute()).toEqual(before);
    },
  );

  it('requests not asking for HTML are not counted as page views (RATE_LIMIT_PAGES)', async () => {
    const limited = await buildTestApp(engine, { env: { RATE_LIMIT_PAGES: '2' } });
    try {
      const path = page({ url: 'https://blog.example/limited', user_id: 'someone' });
      for (let i = 0; i < 5; i++) {
        const res = await limited.app.inject({ url: path, headers: { accept: 'application/json' } });
        expect(res.statusCode).toBe(404);
        expect(json(res).error).toBe('not_found');
      }
      const browser = new WebClient(limited.app);
      expect((await browser.get(path)).statusCode).toBe(404); // the page: no such user
      expect((await browser.get(path)).statusCode).toBe(404);
      expect((await browser.get(path)).statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('an existing thing of another owner: owner mismatch, 400; a hidden thing is not shown to others', async () => {
    const owner = await buildWebUser(t.services);
    const url = `https://blog.example/${uniqueName('h')}`;
    const path = page({ url, user_id: owner.username, title: 'Link title', hidden: '1' });
    const { c } = await loggedIn();
    expect((await c.submit(path, tipAction(path))).statusCode).toBe(303);
    await db().updateTable('things').set({ description: 'Secret description' }).where('url', '=', url).execute();
    const [thing] = await thingsAt(url);
    expect(thing!.hidden).toBe(1);
    const body = html(await (await loggedIn()).c.get(path));
    expect(body).not.toContain('Secret description');
    expect(body).not.toContain(`/thing/${thing!.id}`);
    expect(body).toContain('<h1>Link title</h1>');
    const ownerClient = new WebClient(t.app);
    await ownerClient.login(owner.username);
    expect(html(await ownerClient.get(path))).toContain('Secret description');

    const stranger = await buildWebUser(t.services);
    const mismatch = html(await c.get(page({ url, user_id: stranger.username })), 400);
    expect(mismatch).toContain('Owner mismatch');
  });
});
