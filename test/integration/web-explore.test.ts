/**
 * Finding things on the website: `/search` (words, category, language and sort filters, paging),
 * `/explore`, `/category/:id`, `/tag/:tag` and the paged things of `/profile/:username`. Hidden
 * things are never listed to others; bad input is a page with the reason, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, principalOf, tokenWith, uniqueName, type TestUser } from '../helpers/factories.ts';
import { buildWebUser, html, WebClient } from '../helpers/web.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { LIST_PAGE_SIZE } from '../../src/web/paging.ts';

/** The thing ids linked from a page, in order (each once). */
function thingLinks(body: string): number[] {
  return [...new Set([...body.matchAll(/href="\/thing\/(\d+)"/g)].map((m) => Number(m[1])))];
}

describe.each(ENGINES)('finding things on the website on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  const db = () => t.db.database.db;
  const visitor = () => new WebClient(t.app);
  const hide = (id: number) => db().updateTable('things').set({ hidden: 1 }).where('id', '=', id).execute();

  /** A user who can log in to the website, with a token to create things. */
  async function webOwner(): Promise<TestUser> {
    const user = await buildWebUser(t.services);
    return { user, token: await tokenWith(t.services, user.username, 'thing') };
  }

  /** `n` things of `owner` whose titles hold `word`, oldest first. */
  async function things(owner: TestUser, word: string, n: number, fields: Record<string, unknown> = {}) {
    const ids: number[] = [];
    for (let i = 0; i < n; i++)
      ids.push(await buildThing(t.services, owner, { title: `${word} number ${i}`, ...fields }));
    return ids;
  }

  describe('the header', () => {
    it('every page has a labelled search box (GET /search, field q) and links to /explore', async () => {
      for (const path of ['/', '/login', '/explore', '/no/such/page']) {
        const res = await visitor().get(path);
        expect(res.body).toContain(
          '<form class="site-search" method="get" action="/search" role="search" aria-label="Search the site">',
        );
        expect(res.body).toContain('<label class="visually-hidden" for="site-q">Search things</label>');
        expect(res.body).toContain('id="site-q" name="q"');
        expect(res.body).toContain('<a href="/explore">Explore</a>');
      }
    });
  });

  describe('/search', () => {
    it('without words or filters shows the form and a way to explore, not a search', async () => {
      const body = html(await visitor().get('/search'));
      expect(body).toContain('<h1>Search</h1>');
      expect(body).toContain('<a href="/explore">explore</a>');
      expect(body).not.toContain('found</p>');
    });

    it('finds things by words, links them, counts them and keeps the words in the boxes', async () => {
      const owner = await buildUser(t.services);
      const word = uniqueName('needle');
      const [a, b] = await things(owner, word, 2);
      await buildThing(t.services, owner, { title: 'something else' });
      const body = html(await visitor().get(`/search?q=${word}`));
      expect(thingLinks(body).sort()).toEqual([a, b].sort());
      expect(body).toContain('2 things found');
      expect(body).toContain(`value="${word}"`);
      expect(body).toContain(`by ${owner.user.username}`);
      expect(body).not.toContain('class="pager"'); // one page only
    });

    it('pages results: 20 a page, "page N of M", previous and next links keeping the filters; past the end links back', async () => {
      const owner = await buildUser(t.services);
      const word = uniqueName('paged');
      const ids = await things(owner, word, LIST_PAGE_SIZE + 5, { category: 'software' });
      const first = html(await visitor().get(`/search?q=${word}&category=software`));
      expect(first).toContain(`${LIST_PAGE_SIZE + 5} things found`);
      expect(first).toContain('Page 1 of 2');
      expect(thingLinks(first)).toHaveLength(LIST_PAGE_SIZE);
      expect(first).toContain(`<a rel="next" href="/search?q=${word}&amp;category=software&amp;page=2">`);
      const second = html(await visitor().get(`/search?q=${word}&category=software&page=2`));
      expect(second).toContain('Page 2 of 2');
      expect(second).toContain(`<a rel="prev" href="/search?q=${word}&amp;category=software">`);
      expect(thingLinks(second)).toHaveLength(5);
      expect(new Set([...thingLinks(first), ...thingLinks(second)])).toEqual(new Set(ids));
      const past = html(await visitor().get(`/search?q=${word}&category=software&page=9`));
      expect(past).toContain('There is no page 9');
      expect(past).toContain(`href="/search?q=${word}&amp;category=software&amp;page=2">Go to the last page`);
      expect(thingLinks(past)).toEqual([]);
    });

    it('filters by category and language, and orders by tips', async () => {
      const owner = await buildUser(t.services);
      const word = uniqueName('filtered');
      const [audio] = await things(owner, word, 1, { category: 'audio', language: 'de_DE' });
      const [video] = await things(owner, word, 1, { category: 'video', language: 'en_GB' });
      const [tipped] = await things(owner, word, 1, { category: 'video', language: 'en_GB' });
      const fan = await buildUser(t.services);
      await tipThing(t.services, principalOf(fan.user), tipped!);
      expect(thingLinks(html(await visitor().get(`/search?q=${word}&category=audio`)))).toEqual([audio]);
      expect(thingLinks(html(await visitor().get(`/search?q=${word}&language=de_DE`)))).toEqual([audio]);
      const byTips = html(await visitor().get(`/search?q=${word}&category=video&sort=tips`));
      expect(thingLinks(byTips)).toEqual([tipped, video]);
      expect(byTips).toContain('<option value="tips" selected>');
      expect(byTips).toContain('<option value="video" selected>');
      const newest = html(await visitor().get(`/search?q=${word}&category=video&sort=relevance`));
      expect(thingLinks(newest)).toHaveLength(2);
    });

    it('a search with no result says so', async () => {
      const body = html(await visitor().get(`/search?q=${uniqueName('nothing')}`));
      expect(body).toContain('Nothing found.');
      expect(thingLinks(body)).toEqual([]);
    });

    it('bad filters, sort, page or query are a page with the reason (400), never a 500; the query is escaped', async () => {
      const cases: [string, string][] = [
        ['/search?q=x&category=nope', 'Unknown category &quot;nope&quot;. Pick one from the list.'],
        ['/search?q=x&language=xx_XX', 'Unknown language'],
        ['/search?q=x&sort=cheapest', 'sort must be one of'],
        ['/search?q=x&page=0', 'The page must be a whole number'],
        ['/search?q=x&page=abc', 'The page must be a whole number'],
        ['/search?q=x&page=99999999', 'The page must be a whole number'],
        [`/search?q=${'word+'.repeat(40)}`, 'at most 32 words'],
        [`/search?q=${'a'.repeat(501)}`, 'at most 500 characters'],
      ];
      for (const [url, reason] of cases) {
        const body = html(await visitor().get(url), 400);
        expect(body, url).toContain('class="error" role="alert"');
        expect(body, url).toContain(reason);
      }
      const evil = '<script>alert(1)</script>"\'&';
      const body = html(
        await visitor().get(`/search?q=${encodeURIComponent(evil)}&category=${encodeURIComponent(evil)}`),
        400,
      );
      expect(body).not.toContain('<script>alert(1)');
      expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;');
      const found = html(await visitor().get(`/search?q=${encodeURIComponent(evil)}`));
      expect(found).not.toContain('<script>alert(1)');
    });

    it('repeated parameters take the first value; a sort alone lists every thing', async () => {
      const owner = await buildUser(t.services);
      const word = uniqueName('twice');
      const [id] = await things(owner, word, 1);
      expect(thingLinks(html(await visitor().get(`/search?q=${word}&q=other`)))).toEqual([id]);
      expect(thingLinks(html(await visitor().get('/search?sort=relevance')))).toContain(id);
    });

    it('hidden things are found only by their owner', async () => {
      const owner = await webOwner();
      const ownerUser = owner.user;
      const word = uniqueName('secret');
      const [hidden, shown] = await things(owner, word, 2);
      await hide(hidden!);
      const anonymous = html(await visitor().get(`/search?q=${word}`));
      expect(thingLinks(anonymous)).toEqual([shown]);
      expect(anonymous).toContain('1 thing found');
      const other = new WebClient(t.app);
      await other.login((await buildWebUser(t.services)).username);
      expect(thingLinks(html(await other.get(`/search?q=${word}`)))).toEqual([shown]);
      const asOwner = new WebClient(t.app);
      await asOwner.login(ownerUser.username);
      const own = html(await asOwner.get(`/search?q=${word}`));
      expect(thingLinks(own).sort()).toEqual([hidden, shown].sort());
      expect(own).toContain('hidden, only you see it');
    });
  });

  describe('/explore', () => {
    it('shows popular, trending and newest things, recent public tips, every category and the used tags; nothing hidden', async () => {
      const owner = await buildUser(t.services);
      const tag = uniqueName('exploretag');
      const [popular, quiet, hiddenThing] = await things(owner, uniqueName('explored'), 3, { tags: [tag, 'Shared'] });
      const hiddenTag = uniqueName('onlyhidden');
      const [secret] = await things(owner, uniqueName('secret'), 1, { tags: [hiddenTag] });
      const fan = await buildUser(t.services);
      const shy = await buildUser(t.services);
      await db().updateTable('users').set({ hide_tips: 1 }).where('id', '=', shy.user.id).execute();
      await tipThing(t.services, principalOf(fan.user), popular!);
      await tipThing(t.services, principalOf(shy.user), quiet!);
      await tipThing(t.services, principalOf(fan.user), hiddenThing!);
      await hide(hiddenThing!);
      await hide(secret!);

      const body = html(await visitor().get('/explore'));
      const section = (id: string) =>
        body.slice(body.indexOf(`<h2 id="${id}">`), body.indexOf('</section>', body.indexOf(`<h2 id="${id}">`)));
      expect(thingLinks(section('popular'))).toContain(popular);
      expect(thingLinks(section('trending'))).toContain(popular);
      expect(thingLinks(section('newest'))).toContain(quiet);
      const tips = section('tips');
      expect(tips).toContain(`/profile/${fan.user.username}`);
      expect(tips).toContain(`href="/thing/${popular}"`);
      expect(tips).not.toContain(shy.user.username); // hides their tips
      expect(tips).not.toContain(`/thing/${quiet}`);
      for (const c of ['text', 'images', 'video', 'audio', 'software', 'people', 'rest'])
        expect(section('categories')).toContain(`<a href="/category/${c}">`);
      expect(section('tags')).toContain(`<a href="/tag/${tag}">${tag} <span class="muted">(2)</span></a>`);
      expect(section('tags')).toContain('<a href="/tag/shared">');
      expect(body).not.toContain(hiddenTag);
      expect(thingLinks(body)).not.toContain(hiddenThing);
      expect(thingLinks(body)).not.toContain(secret);
      // not even the owner sees hidden things on the explore page
      const asOwner = new WebClient(t.app);
      await asOwner.login((await buildWebUser(t.services)).username);
      expect(thingLinks(html(await asOwner.get('/explore')))).not.toContain(hiddenThing);
    });
  });

  describe('/category/:id and /tag/:tag', () => {
    it('a category page lists its things, paged, with the total', async () => {
      const fresh = await buildTestApp(engine);
      try {
        const owner = await buildUser(fresh.services);
        const ids: number[] = [];
        for (let i = 0; i < LIST_PAGE_SIZE + 1; i++)
          ids.push(await buildThing(fresh.services, owner, { title: `people ${i}`, category: 'people' }));
        const hidden = await buildThing(fresh.services, owner, {
          title: 'hidden person',
          category: 'people',
          hidden: true,
        });
        await buildThing(fresh.services, owner, { title: 'a text', category: 'text' });
        const c = new WebClient(fresh.app);
        const first = html(await c.get('/category/people'));
        expect(first).toContain('<h1>People</h1>');
        expect(first).toContain(`${LIST_PAGE_SIZE + 1} things`);
        expect(first).toContain('Page 1 of 2');
        expect(thingLinks(first)).toEqual(ids.slice(1).reverse()); // newest first
        const second = html(await c.get('/category/people?page=2'));
        expect(thingLinks(second)).toEqual([ids[0]]);
        expect(second).toContain('<a rel="prev" href="/category/people">');
        expect(thingLinks(second)).not.toContain(hidden);
        expect(html(await c.get('/category/people?sort=bogus'), 400)).toContain('sort must be one of');
        expect(html(await c.get('/category/people?page=-1'), 400)).toContain('The page must be a whole number');
        expect(html(await c.get('/category/nope'), 404)).toContain('There is no such category.');
      } finally {
        await fresh.close();
      }
    });

    it('a tag page lists the things with that tag (any case), hidden ones only to their owner; an impossible tag is 404', async () => {
      const owner = await webOwner();
      const ownerUser = owner.user;
      const tag = uniqueName('Tagged');
      const [a, b, hidden] = await things(owner, 'tagged', 3, { tags: [tag] });
      await things(owner, 'untagged', 1);
      await hide(hidden!);
      const body = html(await visitor().get(`/tag/${tag.toUpperCase()}`));
      expect(body).toContain(`Tagged “${tag.toLowerCase()}”`);
      expect(body).toContain('2 things');
      expect(thingLinks(body)).toEqual([b, a]);
      const asOwner = new WebClient(t.app);
      await asOwner.login(ownerUser.username);
      expect(thingLinks(html(await asOwner.get(`/tag/${tag}`)))).toEqual([hidden, b, a]);
      for (const bad of ['a%20b', 'a%7Cb', 'x'.repeat(65)])
        expect(html(await visitor().get(`/tag/${bad}`), 404)).toContain('There is no such tag.');
      expect(html(await visitor().get('/tag/%01'), 400)).toContain('control character');
      expect(html(await visitor().get(`/tag/${uniqueName('none')}`))).toContain('No things here yet.');
      const hostile = html(await visitor().get(`/tag/${encodeURIComponent('<i>"x')}`));
      expect(hostile).not.toContain('<i>"x');
      expect(hostile).toContain('Tagged “&lt;i&gt;&quot;x”');
    });
  });

  describe('/profile/:username', () => {
    it('pages the things with the total; hidden ones count only for their owner', async () => {
      const owner = await webOwner();
      const ownerUser = owner.user;
      const ids = await things(owner, 'profiled', LIST_PAGE_SIZE + 2);
      await hide(ids[ids.length - 1]!);
      const path = `/profile/${ownerUser.username}`;
      const first = html(await visitor().get(path));
      expect(first).toContain(`${LIST_PAGE_SIZE + 1} things`);
      expect(first).toContain('Page 1 of 2');
      expect(thingLinks(first.slice(0, first.indexOf('<h2>Tips</h2>')))).toEqual(ids.slice(1, -1).reverse());
      expect(first).toContain(`<a rel="next" href="${path}?page=2">`);
      const second = html(await visitor().get(`${path}?page=2`));
      expect(thingLinks(second.slice(0, second.indexOf('<h2>Tips</h2>')))).toEqual([ids[0]]);
      const asOwner = new WebClient(t.app);
      await asOwner.login(ownerUser.username);
      const own = html(await asOwner.get(path));
      expect(own).toContain(`${LIST_PAGE_SIZE + 2} things`);
      expect(thingLinks(own)[0]).toBe(ids[ids.length - 1]);
      expect(html(await visitor().get(`${path}?page=x`), 400)).toContain('The page must be a whole number');
      expect(html(await visitor().get(`${path}?page=5`))).toContain('There is no page 5');
    });

    it('pages the tips with their total (tips_page), keeping the things page; tips on hidden things count only for their owner', async () => {
      const owner = await webOwner();
      const ids = await things(owner, 'tippable', LIST_PAGE_SIZE + 3);
      const fan = await buildWebUser(t.services);
      for (const id of ids) await tipThing(t.services, principalOf(fan), id);
      await hide(ids[0]!);
      const path = `/profile/${fan.username}`;
      const tipsOf = (body: string) => thingLinks(body.slice(body.indexOf('<h2>Tips</h2>')));
      const first = html(await visitor().get(path));
      expect(first).toContain(`${LIST_PAGE_SIZE + 2} tips`);
      expect(tipsOf(first)).toHaveLength(LIST_PAGE_SIZE);
      expect(first).toContain(`<a rel="next" href="${path}?tips_page=2">`);
      const second = html(await visitor().get(`${path}?page=1&tips_page=2`));
      expect(tipsOf(second)).toEqual([ids[2], ids[1]]);
      const asOwner = new WebClient(t.app);
      await asOwner.login(owner.user.username);
      const own = html(await asOwner.get(`${path}?tips_page=2`));
      expect(own).toContain(`${LIST_PAGE_SIZE + 3} tips`);
      expect(tipsOf(own)).toEqual([ids[2], ids[1], ids[0]]);
      expect(html(await visitor().get(`${path}?tips_page=0`), 400)).toContain('The page must be a whole number');
      await db().updateTable('users').set({ hide_tips: 1 }).where('id', '=', fan.id).execute();
      const hidden = html(await visitor().get(path));
      expect(hidden).toContain('keeps their tips private');
      expect(tipsOf(hidden)).toEqual([]);
    });

    it('a user with no things says so; one thing is "1 thing"', async () => {
      const owner = await webOwner();
      const user = owner.user;
      expect(html(await visitor().get(`/profile/${user.username}`))).toContain('No things yet.');
      await buildThing(t.services, owner);
      expect(html(await visitor().get(`/profile/${user.username}`))).toContain('1 thing</p>');
    });
  });
});
