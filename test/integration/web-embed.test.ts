/**
 * What a creator embeds on other sites: the SVG badge (`/thing/:id/badge.svg`), the framable button
 * page (`/thing/:id/button`), the script (`/js/button.js`), and the owner's copy-paste snippets on
 * the thing page. Hidden, deleted and unknown things are the same 404, and none of these sets a
 * cookie.
 */
import { readFileSync } from 'node:fs';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThing, deleteThing, getThing, updateThing } from '../../src/domain/things.ts';
import { parseNewThing } from '../../src/domain/thing-input.ts';
import { tipThing } from '../../src/domain/tips.ts';
import type { UserRecord } from '../../src/domain/records.ts';
import { badgeSvg, NOT_FOUND_TEXT } from '../../src/web/routes/embed.ts';
import { ENGINES } from '../helpers/db.ts';
import { API, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { principalOf, uniqueName } from '../helpers/factories.ts';
import { buildWebUser, html, WebClient } from '../helpers/web.ts';

/** Summaries of real npm packages with `& < > " '` in them, and made-up ones with quotes and emoji. */
const ODD_TITLES = [
  ...readFileSync(new URL('../../../shared/data/npm-packages.tsv', import.meta.url), 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t')[3] ?? '')
    .filter((summary) => /[&<>"']/.test(summary) && summary.length < 150)
    .slice(0, 3),
  `<script>alert("x'y")</script> & ]]> --> 🎉`,
];

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', htmlEntities: true });

/** The badge's `<title>` and its count text, after checking it is well-formed XML. */
function readBadge(svg: string): { title: string; texts: string[]; role: string } {
  expect(XMLValidator.validate(svg)).toBe(true);
  const doc = parser.parse(svg).svg;
  const texts = (doc.g as { text?: unknown }[]).flatMap((g) => (g.text === undefined ? [] : [g.text]));
  return {
    title: String(doc.title),
    texts: (texts.flat() as unknown[]).map((t) => String(typeof t === 'object' ? (t as any)['#text'] : t)),
    role: doc['@role'],
  };
}

describe.each(ENGINES)('embeds: badge, button and script on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  async function thingOf(owner: UserRecord, title = 'A thing'): Promise<number> {
    return createThing(
      t.services,
      principalOf(owner),
      parseNewThing({ url: `https://example.com/${uniqueName('thing')}`, title }),
    );
  }

  async function tipBy(id: number, n: number): Promise<void> {
    for (let i = 0; i < n; i++) await tipThing(t.services, principalOf(await buildWebUser(t.services)), id);
  }

  /** A hidden thing, a deleted thing and ids of none, each owned by `owner`. */
  async function unavailable(owner: UserRecord): Promise<string[]> {
    const hidden = await thingOf(owner, 'Secret plan');
    await updateThing(t.services, principalOf(owner), hidden, { hidden: true });
    const deleted = await thingOf(owner, 'Gone');
    await deleteThing(t.services, principalOf(owner), deleted);
    return [String(hidden), String(deleted), '999999999', 'abc', '1e3'];
  }

  describe('GET /thing/:id/badge.svg', () => {
    it('is well-formed SVG with role="img", a title naming the thing, and the tip count', async () => {
      const owner = await buildWebUser(t.services);
      const id = await thingOf(owner, 'Left-pad & friends');
      await tipBy(id, 2);
      const res = await t.app.inject({ url: `/thing/${id}/badge.svg` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['set-cookie']).toBeUndefined();
      const badge = readBadge(res.body);
      expect(badge.role).toBe('img');
      expect(badge.title).toBe('“Left-pad & friends” on Tipjar: 2 tips');
      expect(badge.texts).toEqual(['tipjar', '2 tips']);
      expect((await getThing(t.services, id)).tips).toBe(2);
    });

    it('says "1 tip" and "0 tips", and escapes every title (npm summaries, markup, emoji)', async () => {
      const owner = await buildWebUser(t.services);
      const none = await thingOf(owner);
      expect(readBadge((await t.app.inject({ url: `/thing/${none}/badge.svg` })).body).texts[1]).toBe('0 tips');
      await tipBy(none, 1);
      expect(readBadge((await t.app.inject({ url: `/thing/${none}/badge.svg` })).body).texts[1]).toBe('1 tip');
      expect(ODD_TITLES.length).toBeGreaterThan(1);
      for (const title of ODD_TITLES) {
        const id = await thingOf(owner, title);
        const res = await t.app.inject({ url: `/thing/${id}/badge.svg` });
        expect(res.statusCode).toBe(200);
        expect(res.body).not.toContain('<script');
        expect(readBadge(res.body).title).toBe(`“${title.replace(/\s+/g, ' ').trim()}” on Tipjar: 0 tips`);
      }
    });

    it('leaves out characters XML cannot carry and cuts long titles', async () => {
      const owner = await buildWebUser(t.services);
      const thing = await getThing(t.services, await thingOf(owner));
      const svg = badgeSvg({ ...thing, title: `a\u0001b\uFFFEc\uD800d ${'x'.repeat(300)}` });
      const { title } = readBadge(svg);
      expect(title.startsWith('“abcd xxx')).toBe(true);
      expect(title).toContain('…” on Tipjar');
      expect(title.length).toBeLessThan(130);
    });

    it('has a strong ETag: If-None-Match → 304 with the same validators; a new tip changes it', async () => {
      const owner = await buildWebUser(t.services);
      const id = await thingOf(owner);
      const first = await t.app.inject({ url: `/thing/${id}/badge.svg` });
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await t.app.inject({ url: `/thing/${id}/badge.svg`, headers: { 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['cache-control']).toBe('public, max-age=300');
      const listed = await t.app.inject({
        url: `/thing/${id}/badge.svg`,
        headers: { 'if-none-match': `"other", W/${etag}` },
      });
      expect(listed.statusCode).toBe(304);
      const other = await t.app.inject({ url: `/thing/${id}/badge.svg`, headers: { 'if-none-match': '"other"' } });
      expect(other.statusCode).toBe(200);
      await tipBy(id, 1);
      const changed = await t.app.inject({ url: `/thing/${id}/badge.svg`, headers: { 'if-none-match': etag } });
      expect(changed.statusCode).toBe(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(readBadge(changed.body).texts[1]).toBe('1 tip');
    });

    it('is the same 404 for hidden, deleted and unknown things, even for their owner', async () => {
      const owner = await buildWebUser(t.services);
      const c = new WebClient(t.app);
      await c.login(owner.username);
      const bodies = new Set<string>();
      for (const id of await unavailable(owner)) {
        for (const res of [
          await t.app.inject({ url: `/thing/${id}/badge.svg` }),
          await c.get(`/thing/${id}/badge.svg`),
        ]) {
          expect(res.statusCode, id).toBe(404);
          expect(res.headers['set-cookie']).toBeUndefined();
          expect(res.body).not.toContain('Secret plan');
          bodies.add(res.body);
        }
      }
      expect(bodies.size).toBe(1);
    });
  });

  describe('GET /thing/:id/button', () => {
    it('is a page any site may frame, sets no cookie, and links to the thing page in a new tab', async () => {
      const owner = await buildWebUser(t.services);
      const id = await thingOf(owner, 'Tom & "Jerry" <3');
      await tipBy(id, 3);
      const res = await t.app.inject({ url: `/thing/${id}/button`, headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['x-frame-options']).toBeUndefined();
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain('frame-ancestors *');
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain('script-src');
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(res.body).not.toContain('<script');
      expect(res.body).not.toContain('<form');
      expect(res.body).toContain(`href="${PUBLIC_URL}/thing/${id}" target="_blank" rel="noopener"`);
      expect(res.body).toContain('<span class="n" aria-hidden="true">3</span>');
      expect(res.body).toContain(
        'aria-label="Tip “Tom &amp; &quot;Jerry&quot; &lt;3” on Tipjar (3 tips; opens in a new tab)"',
      );
      const again = await t.app.inject({ url: `/thing/${id}/button`, headers: { 'if-none-match': res.headers.etag! } });
      expect(again.statusCode).toBe(304);
    });

    it('sets no cookie for a logged-in visitor either, while the site’s own pages keep refusing frames', async () => {
      const owner = await buildWebUser(t.services);
      const id = await thingOf(owner);
      const c = new WebClient(t.app);
      await c.login(owner.username);
      const before = new Map(c.cookies);
      const res = await c.get(`/thing/${id}/button`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(c.cookies).toEqual(before);
      // The thing page itself: DENY and frame-ancestors 'none' (checked by html()).
      html(await c.get(`/thing/${id}`));
      html(await new WebClient(t.app).get(`/thing/${id}`));
    });

    it('is the same 404 for hidden, deleted and unknown things', async () => {
      const owner = await buildWebUser(t.services);
      for (const id of await unavailable(owner)) {
        const res = await t.app.inject({ url: `/thing/${id}/button`, headers: { accept: 'text/html' } });
        expect(res.statusCode, id).toBe(404);
        expect(res.headers['set-cookie']).toBeUndefined();
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.body).toContain(`<p>${NOT_FOUND_TEXT}</p>`);
      }
    });
  });

  describe('GET /js/button.js', () => {
    it('is JavaScript with caching headers and the site’s addresses filled in', async () => {
      const res = await t.app.inject({ url: '/js/button.js' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.body).toContain(`var SITE = "${PUBLIC_URL}";`);
      expect(res.body).toContain(`var API = "${PUBLIC_URL}${API}";`);
      expect(res.body).not.toContain('__TIPJAR_');
      expect(() => new Function(res.body)).not.toThrow();
      const again = await t.app.inject({ url: '/js/button.js', headers: { 'if-none-match': res.headers.etag! } });
      expect(again.statusCode).toBe(304);
    });

    it('reads counts from API endpoints that any origin may call', async () => {
      const owner = await buildWebUser(t.services);
      const id = await thingOf(owner);
      await tipBy(id, 2);
      const origin = { origin: 'https://creator.example' };
      const one = await t.app.inject({ url: `${API}/things/${id}`, headers: origin });
      expect(one.statusCode).toBe(200);
      expect(one.headers['access-control-allow-origin']).toBe('*');
      expect(json(one).tips).toBe(2);
      const { url } = await getThing(t.services, id);
      const auto = `${PUBLIC_URL}/submit/auto?url=${encodeURIComponent(url)}&user_id=${owner.username}`;
      const lookup = await t.app.inject({
        url: `${API}/things/lookup?url=${encodeURIComponent(auto)}`,
        headers: origin,
      });
      expect(lookup.statusCode).toBe(302);
      expect(lookup.headers['access-control-allow-origin']).toBe('*');
      expect(lookup.headers.location).toBe(`${PUBLIC_URL}${API}/things/${id}`);
    });
  });

  describe('snippets on the thing page', () => {
    it('are shown to the owner only, escaped, with absolute addresses', async () => {
      const owner = await buildWebUser(t.services);
      const id = await thingOf(owner);
      const c = new WebClient(t.app);
      await c.login(owner.username);
      const page = html(await c.get(`/thing/${id}`));
      const base = `${PUBLIC_URL}/thing/${id}`;
      expect(page).toContain('<summary>Put a Tip button or badge on your site</summary>');
      expect(page).toContain(`[![Tip on Tipjar](${base}/badge.svg)](${base})`);
      expect(page).toContain(
        `&lt;a href=&quot;${base}&quot;&gt;&lt;img src=&quot;${base}/badge.svg&quot; alt=&quot;Tip on Tipjar&quot; height=&quot;20&quot;&gt;&lt;/a&gt;`,
      );
      expect(page).toContain(`&lt;iframe src=&quot;${base}/button&quot;`);
      expect(page).toContain(
        `&lt;a class=&quot;tipjar-button&quot; data-tipjar-thing=&quot;${id}&quot; href=&quot;${base}&quot;&gt;Tip on Tipjar&lt;/a&gt;`,
      );
      expect(page).toContain(`&lt;script src=&quot;${PUBLIC_URL}/js/button.js&quot; async&gt;&lt;/script&gt;`);
      expect(page).toContain(`<img src="/thing/${id}/badge.svg"`);
      expect(page).not.toContain('<script');

      const stranger = new WebClient(t.app);
      await stranger.login((await buildWebUser(t.services)).username);
      for (const other of [stranger, new WebClient(t.app)]) {
        const body = html(await other.get(`/thing/${id}`));
        expect(body).not.toContain('tipjar-button');
        expect(body).not.toContain('badge.svg');
      }
    });

    it('say that a hidden thing shows nothing to others, without a broken preview', async () => {
      const owner = await buildWebUser(t.services);
      const id = await thingOf(owner);
      await updateThing(t.services, principalOf(owner), id, { hidden: true });
      const c = new WebClient(t.app);
      await c.login(owner.username);
      const page = html(await c.get(`/thing/${id}`));
      expect(page).toContain(
        'While this thing is hidden, the badge, the button and the script show nothing to others.',
      );
      expect(page).not.toContain(`<img src="/thing/${id}/badge.svg"`);
    });
  });
});
