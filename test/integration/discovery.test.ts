/**
 * Discovery (DECISIONS.md "Discovery"): POST /tip of an unregistered URL fetches it and, when its
 * HTML or feed links `{site_url}/submit/auto?…` with rel="payment", tips that auto-submit URL.
 * Pages are served by a local server on 127.0.0.1 (DISCOVERY_ALLOW_PRIVATE=on lets the guard
 * through for these tests only): HTML link, feed links (RSS with atom:link, Atom), none,
 * malformed HTML, too large, slow, redirects, the guard, and the one-hour cache.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, bearer, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { createDiscovery, findPaymentLinks } from '../../src/discovery/index.ts';

const auto = (params: Record<string, string>) => `${PUBLIC_URL}/submit/auto?${new URLSearchParams(params).toString()}`;
const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** The local site: path → [content type, body] (or a handler), counting hits per path. */
class Pages {
  server!: Server;
  base = '';
  hits = new Map<string, number>();
  routes = new Map<
    string,
    { type?: string; body?: string | Buffer; status?: number; location?: string; delayMs?: number }
  >();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const r = this.routes.get(path);
      if (!r) return res.writeHead(404).end();
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(r.status ?? 200, {
          ...(r.type ? { 'content-type': r.type } : {}),
          ...(r.location ? { location: `${this.base}${r.location}` } : {}),
        });
        res.end(r.body ?? '');
      };
      if (r.delayMs) setTimeout(send, r.delayMs);
      else send();
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

describe('findPaymentLinks', () => {
  it('finds link rel=payment in HTML (rel tokens, any case, entities decoded) and ignores other links', () => {
    const html = `<!doctype html><html><head><LINK REL="alternate payment" HREF="http://a/submit/auto?url=x&amp;user_id=y"><link rel="stylesheet" href="s.css"><link rel="payments" href="no"></head><body><a rel="payment" href="not-a-link-element">x</a></body></html>`;
    expect(findPaymentLinks(html, false)).toEqual(['http://a/submit/auto?url=x&user_id=y']);
  });
  it('finds atom:link and Atom link elements in feeds, not the RSS <link> text', () => {
    const rss = `<?xml version="1.0"?><rss xmlns:atom="http://www.w3.org/2005/Atom"><channel><link>http://blog/</link><atom:link rel="payment" href="http://a/submit/auto?url=1&amp;user_id=u"/><item><atom:link rel="payment" href="http://a/submit/auto?url=2&amp;user_id=u"/></item></channel></rss>`;
    expect(findPaymentLinks(rss, true)).toEqual([
      'http://a/submit/auto?url=1&user_id=u',
      'http://a/submit/auto?url=2&user_id=u',
    ]);
    const atom = `<feed xmlns="http://www.w3.org/2005/Atom"><link rel="self" href="x"/><link rel="payment" href="http://a/submit/auto?url=3&amp;user_id=u"/></feed>`;
    expect(findPaymentLinks(atom, true)).toEqual(['http://a/submit/auto?url=3&user_id=u']);
  });
});

describe.each(ENGINES)('discovery for POST /tip on %s', (engine) => {
  let t: TestApp;
  const pages = new Pages();
  let owner: TestUser;
  let tipper: TestUser;

  beforeAll(async () => {
    t = await buildTestApp(engine, { env: { DISCOVERY: 'on', DISCOVERY_ALLOW_PRIVATE: 'on' } });
    await pages.start();
    owner = await buildUser(t.services, { scopes: 'thing' });
    tipper = await buildUser(t.services, { scopes: 'tip' });
  });
  afterAll(async () => {
    await pages.stop();
    await t.close();
  });

  const tip = (url: string, token = tipper.token) =>
    t.app.inject({ method: 'POST', url: `${API}/tip`, headers: bearer(token), payload: { url } });

  function expectNotFound(res: Awaited<ReturnType<typeof tip>>) {
    expect(res.statusCode).toBe(404);
    expect(json(res)).toEqual({
      error: 'not_found',
      error_description: 'No thing is registered for this URL',
      error_uri: `${PUBLIC_URL}/docs/api#tips`,
    });
  }

  it('tips the auto-submit URL an HTML page links with rel="payment"', async () => {
    const inner = `https://blog.example.com/${uniqueName('post')}`;
    const href = auto({ url: inner, user_id: owner.user.username, title: 'Found by discovery', tags: 'a,b' });
    pages.routes.set('/html', {
      type: 'text/html; charset=utf-8',
      body: `<html><head><title>Post</title><link rel="payment" href="${escapeAttr(href)}"></head><body>Hi</body></html>`,
    });
    const res = await tip(`${pages.base}/html`);
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body.message).toBe('ok');
    expect(body.thing).toMatchObject({ url: inner, tips: 1, title: 'Found by discovery' });
    const thing = json(await t.app.inject({ url: `${API}/things/${body.thing.id}` }));
    expect(thing.owner.username).toBe(owner.user.username);
    expect(thing.tags).toEqual(['a', 'b']);
  });

  it('tips the auto-submit URL of a feed: RSS with atom:link, and Atom', async () => {
    const inner1 = `https://blog.example.com/${uniqueName('rss')}`;
    pages.routes.set('/rss', {
      type: 'application/rss+xml',
      body: `<?xml version="1.0" encoding="utf-8"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Blog</title><link>https://blog.example.com/</link><atom:link rel="payment" href="${escapeAttr(auto({ url: inner1, user_id: owner.user.username }))}"/></channel></rss>`,
    });
    const r1 = await tip(`${pages.base}/rss`);
    expect(r1.statusCode).toBe(200);
    expect(json(r1).thing.url).toBe(inner1);

    const inner2 = `https://blog.example.com/${uniqueName('atom')}`;
    const identity = 'twitter:user:id:424242';
    pages.routes.set('/atom', {
      type: 'text/xml',
      body: `<feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><link rel="payment" href="${escapeAttr(auto({ url: inner2, owner: identity }))}"/></feed>`,
    });
    const r2 = await tip(`${pages.base}/atom`);
    expect(r2.statusCode).toBe(200);
    const thing = json(await t.app.inject({ url: `${API}/things/${json(r2).thing.id}` }));
    expect(thing).toMatchObject({
      url: inner2,
      owner: { type: 'user', resource: '', link: '', username: '', identity },
    });
  });

  it('answers 404 when the page has no payment link, or only links to another site', async () => {
    pages.routes.set('/none', {
      type: 'text/html',
      body: '<html><head><link rel="alternate" href="/feed"></head><body>nothing</body></html>',
    });
    expectNotFound(await tip(`${pages.base}/none`));
    pages.routes.set('/elsewhere', {
      type: 'text/html',
      body: `<link rel="payment" href="https://other.example/submit/auto?url=https%3A%2F%2Fx.example%2F&user_id=bob">`,
    });
    expectNotFound(await tip(`${pages.base}/elsewhere`));
    pages.routes.set('/gone', {
      status: 410,
      type: 'text/html',
      body: `<link rel="payment" href="${escapeAttr(auto({ url: 'https://blog.example.com/gone', user_id: owner.user.username }))}">`,
    });
    expectNotFound(await tip(`${pages.base}/gone`));
  });

  it('copes with malformed HTML: finds the link in broken markup, and 404 for garbage', async () => {
    const inner = `https://blog.example.com/${uniqueName('broken')}`;
    pages.routes.set('/broken', {
      type: 'text/html',
      body: `<html><head><meta charset=utf-8><div><p><b>never closed <<< >>> &bogus; <LINK rel=PAYMENT href='${auto({ url: inner, user_id: owner.user.username }).replace(/'/g, '%27')}' <title>unclosed</head><script>if (a < b) {}</scr`,
    });
    const res = await tip(`${pages.base}/broken`);
    expect(res.statusCode).toBe(200);
    expect(json(res).thing.url).toBe(inner);
    pages.routes.set('/garbage', {
      type: 'text/html',
      body: Buffer.from([0x3c, 0x00, 0xff, 0xfe, 0x3e, 0x3c, 0x6c, 0x69, 0x6e, 0x6b]),
    });
    expectNotFound(await tip(`${pages.base}/garbage`));
  });

  it('does not search a document larger than 1 MiB', async () => {
    const link = `<link rel="payment" href="${escapeAttr(auto({ url: 'https://blog.example.com/large', user_id: owner.user.username }))}">`;
    pages.routes.set('/large', {
      type: 'text/html',
      body: `<html><head>${link}</head><body>${'x'.repeat(1024 * 1024)}</body></html>`,
    });
    expectNotFound(await tip(`${pages.base}/large`));
    expect(
      await t.db.database.db
        .selectFrom('things')
        .select('id')
        .where('url', '=', 'https://blog.example.com/large')
        .execute(),
    ).toEqual([]);
  });

  it('follows up to 3 redirects, not more', async () => {
    const inner = `https://blog.example.com/${uniqueName('moved')}`;
    pages.routes.set('/target', {
      type: 'text/html',
      body: `<link rel="payment" href="${escapeAttr(auto({ url: inner, user_id: owner.user.username }))}">`,
    });
    pages.routes.set('/r1', { status: 301, location: '/r2' });
    pages.routes.set('/r2', { status: 302, location: '/r3' });
    pages.routes.set('/r3', { status: 307, location: '/target' });
    const res = await tip(`${pages.base}/r1`);
    expect(res.statusCode).toBe(200);
    expect(json(res).thing.url).toBe(inner);
    pages.routes.set('/r0', { status: 302, location: '/r1' });
    expectNotFound(await tip(`${pages.base}/r0`));
  });

  it('caches results for an hour: a second look-up does not fetch again', async () => {
    pages.routes.set('/cached', { type: 'text/html', body: '<p>no link yet</p>' });
    expectNotFound(await tip(`${pages.base}/cached`));
    pages.routes.set('/cached', {
      type: 'text/html',
      body: `<link rel="payment" href="${escapeAttr(auto({ url: 'https://blog.example.com/cached', user_id: owner.user.username }))}">`,
    });
    expectNotFound(await tip(`${pages.base}/cached`));
    expect(pages.hits.get('/cached')).toBe(1);
  });

  it('is refused by the guard when private addresses are not allowed (the default)', async () => {
    const strict = await buildTestApp(engine, { env: { DISCOVERY: 'on' } });
    try {
      const u = await buildUser(strict.services, { scopes: 'tip' });
      pages.hits.delete('/html');
      const res = await strict.app.inject({
        method: 'POST',
        url: `${API}/tip`,
        headers: bearer(u.token),
        payload: { url: `${pages.base}/html` },
      });
      expect(res.statusCode).toBe(404);
      expect(pages.hits.get('/html')).toBeUndefined();
    } finally {
      await strict.close();
    }
  });
});

describe('discovery limits (createDiscovery)', () => {
  const pages = new Pages();
  beforeAll(() => pages.start());
  afterAll(() => pages.stop());

  it('gives up on a slow page at the deadline', async () => {
    pages.routes.set('/slow', {
      type: 'text/html',
      delayMs: 3000,
      body: `<link rel="payment" href="${escapeAttr(auto({ url: 'https://x.example/', user_id: 'u' }))}">`,
    });
    const d = createDiscovery({ siteUrl: PUBLIC_URL, allowPrivate: true, timeoutMs: 300 });
    const started = Date.now();
    expect(await d.discover(`${pages.base}/slow`)).toBeNull();
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('finds the link of a page within the deadline, and refetches once the hour has passed', async () => {
    const href = auto({ url: 'https://x.example/a', user_id: 'u' });
    pages.routes.set('/page', { type: 'text/html', body: `<link rel="payment" href="${escapeAttr(href)}">` });
    let now = 1_000_000;
    const d = createDiscovery({ siteUrl: PUBLIC_URL, allowPrivate: true, now: () => now });
    expect(await d.discover(`${pages.base}/page`)).toBe(href);
    now += 3599_000;
    expect(await d.discover(`${pages.base}/page`)).toBe(href);
    expect(pages.hits.get('/page')).toBe(1);
    now += 2_000;
    pages.routes.set('/page', { type: 'text/html', body: '<p>removed</p>' });
    expect(await d.discover(`${pages.base}/page`)).toBeNull();
    expect(pages.hits.get('/page')).toBe(2);
  });
});
