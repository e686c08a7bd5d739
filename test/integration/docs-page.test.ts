/**
 * The docs page every `error_uri` points into (DECISIONS.md "Wire format": an anchor that exists
 * on the page as a browser renders it; docs/api.md; docs/adr/0017-api-docs-page.md), on every
 * engine: `GET /docs/api` is HTML to browsers (ids on every heading, GitHub-style) and the markdown
 * to `Accept: text/markdown`; every `error_uri` the API can send — every docs section, every
 * `/docs/api#…` written in the sources, and those of real error responses, the rate-limit one
 * included — and the OAuth metadata's `service_documentation` name an id of that HTML; the page's
 * own links to `#…` resolve too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Parser } from 'htmlparser2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { DOCS_ANCHORS, errorUri } from '../../src/http/plugins/errors.ts';
import type { DocsSection } from '../../src/domain/errors.ts';
import { PAGE_HEADERS } from '../../src/web/render.ts';

const DOCS = `${PUBLIC_URL}/docs/api`;
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const MARKDOWN = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

/** Every heading's `id` in an HTML document, and every same-page link (`href="#…"`). */
function idsAndLinks(html: string): { ids: string[]; links: string[] } {
  const ids: string[] = [];
  const links: string[] = [];
  const parser = new Parser({
    onopentag(name, attrs) {
      if (attrs.id !== undefined && /^h[1-6]$/.test(name)) ids.push(attrs.id);
      if (attrs.href?.startsWith('#')) links.push(decodeURIComponent(attrs.href.slice(1)));
    },
  });
  parser.write(html);
  parser.end();
  return { ids, links };
}

/** The `/docs/api#…` addresses written anywhere in src/ (built error_uri values, documentation links). */
function docsLinksInSources(): string[] {
  const root = fileURLToPath(new URL('../../src/', import.meta.url));
  const found = new Set<string>();
  for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    for (const m of readFileSync(`${root}${file}`, 'utf8').matchAll(/\/docs\/api#([A-Za-z0-9_-]+)/g)) found.add(m[1]!);
  }
  return [...found];
}

describe.each(ENGINES)('the docs page /docs/api on %s', (engine) => {
  let t: TestApp;
  let html: string;
  let ids: Set<string>;
  let broke: TestUser;
  let thingId: number;

  beforeAll(async () => {
    t = await buildTestApp(engine, { env: { RATE_LIMIT_ANONYMOUS: '2' } });
    const owner = await buildUser(t.services);
    broke = await buildUser(t.services, { funded: false });
    thingId = await buildThing(t.services, owner);
    const res = await t.app.inject({ url: '/docs/api', headers: { accept: BROWSER } });
    html = res.body;
    ids = new Set(idsAndLinks(html).ids);
  });
  afterAll(async () => t.close());

  /** Asserts that `uri` is `{PUBLIC_URL}/docs/api#<id>` and the id is on the page. */
  function expectAnchorOnPage(uri: string, what: string): void {
    expect(uri.startsWith(`${DOCS}#`), `${what}: ${uri}`).toBe(true);
    const id = uri.slice(DOCS.length + 1);
    expect(ids.has(id), `${what}: #${id} is not an id of the docs page`).toBe(true);
  }

  it('answers a browser with an HTML page: title, stylesheet, contents, a CSP without scripts', async () => {
    const res = await t.app.inject({ url: '/docs/api', headers: { accept: BROWSER } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers.vary).toBe('Accept');
    expect(res.headers['content-security-policy']).toBe(PAGE_HEADERS['content-security-policy']);
    expect(res.headers['content-security-policy']).not.toContain('script-src');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(res.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.body).toContain('<title>Tipjar API v2 — wire format and decisions · Tipjar</title>');
    expect(res.body).toContain('<link rel="stylesheet" href="/static/site.css">');
    expect(res.body).toContain('<nav class="toc" aria-label="Contents">');
    // inside the site's layout: its header (search box, Explore, log-in), the document as <main class="doc">, its footer
    expect(res.body).toContain('<form class="site-search" method="get" action="/search" role="search"');
    expect(res.body).toContain('<a href="/explore">Explore</a>');
    expect(res.body).toContain('<a href="/login">Log in</a>');
    expect(res.body).toContain('<main class="doc">');
    expect(res.body).toContain('<footer class="site">');
    expect(res.body).not.toMatch(/<script|<style|\son[a-z]+=/i);
    // The stylesheet it names is served, with the page's own rules.
    const css = await t.app.inject({ url: '/static/site.css' });
    expect(css.statusCode).toBe(200);
    expect(css.body).toContain('main.doc');
    // text/html asked for alone, with parameters or preferred over markdown gets the same page.
    for (const accept of ['text/html', 'text/html;charset=UTF-8', 'text/markdown;q=0.5, text/html']) {
      const again = await t.app.inject({ url: '/docs/api', headers: { accept } });
      expect(again.headers['content-type'], accept).toBe('text/html; charset=utf-8');
      expect(again.body, accept).toBe(res.body);
    }
  });

  it('gives every heading a GitHub-style id, each once', () => {
    const all = idsAndLinks(html).ids;
    expect(new Set(all).size).toBe(all.length);
    for (const id of [
      'general',
      'errors',
      'authentication',
      'oauth-2',
      'rate-limits',
      'partners-pending-things-and-webhooks',
      'verification-and-claiming',
    ]) {
      expect(ids.has(id), id).toBe(true);
    }
    const headings = MARKDOWN.split('\n').filter((line) => /^#{1,6} /.test(line)).length;
    expect(all.length).toBe(headings);
  });

  it('answers Accept: text/markdown (and no Accept) with the markdown itself', async () => {
    for (const headers of [
      { accept: 'text/markdown' },
      { accept: 'text/markdown;charset=utf-8, text/html;q=0.5' },
      {},
    ]) {
      const res = await t.app.inject({ url: '/docs/api', headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(res.headers.vary).toBe('Accept');
      expect(res.body).toBe(MARKDOWN);
    }
  });

  it('every docs section an error can name is an id of the page', () => {
    const sections = Object.keys(DOCS_ANCHORS) as DocsSection[];
    expect(sections.length).toBeGreaterThanOrEqual(10);
    for (const section of sections) expectAnchorOnPage(errorUri(PUBLIC_URL, section), `section ${section}`);
  });

  it('every /docs/api#… address in the sources is an id of the page', () => {
    const anchors = docsLinksInSources();
    expect(anchors).toContain('oauth-2');
    for (const id of anchors) expectAnchorOnPage(`${DOCS}#${id}`, 'src/');
  });

  it("the error_uri of real error responses, and the OAuth metadata's service_documentation", async () => {
    const ip = (n: number) => `198.51.100.${n}`;
    const responses = [
      await t.app.inject({ url: `${API}/no/such/thing`, remoteAddress: ip(1) }),
      await t.app.inject({ url: `${API}/user`, remoteAddress: ip(2) }),
      await t.app.inject({ url: `${API}/things/${thingId}.atom`, remoteAddress: ip(3) }),
      await t.app.inject({ url: `${API}/things/search?sort=nonsense`, remoteAddress: ip(4) }),
      await t.app.inject({ url: `${API}/users/nobody-here`, remoteAddress: ip(5) }),
      await t.app.inject({ url: `${API}/users/nobody-here/activities`, remoteAddress: ip(6) }),
      await t.app.inject({ method: 'POST', url: `${API}/things/${thingId}/tip`, headers: bearer(broke.token) }),
      await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        headers: bearer(broke.token),
        payload: { url: 'not a url' },
      }),
      await t.app.inject({
        method: 'DELETE',
        url: `${API}/things/987654321/subscriptions`,
        headers: bearer(broke.token),
      }),
      await t.app.inject({
        method: 'POST',
        url: `${API}/user/verify`,
        headers: bearer(broke.token),
        payload: { identity: 'x' },
      }),
    ];
    // Over the (test's) anonymous limit of 2: 403 rate_limit_exceeded.
    for (let i = 0; i < 3; i++) responses.push(await t.app.inject({ url: `${API}/categories`, remoteAddress: ip(7) }));
    const codes = new Set<string>();
    for (const res of responses) {
      if (res.statusCode < 400) continue;
      const body = json(res);
      codes.add(body.error);
      expectAnchorOnPage(body.error_uri, `${body.error} (${res.statusCode})`);
    }
    expect([...codes].sort()).toEqual([
      'invalid_parameters',
      'no_means',
      'not_acceptable',
      'not_found',
      'rate_limit_exceeded',
      'unauthorized',
      'validation',
    ]);

    const metadata = json(await t.app.inject({ url: '/.well-known/oauth-authorization-server' }));
    expectAnchorOnPage(metadata.service_documentation, 'service_documentation');
  });

  it("the page's own links to #… resolve", () => {
    const { links } = idsAndLinks(html);
    expect(links.length).toBeGreaterThan(20);
    for (const id of links) expect(ids.has(id), `href="#${id}"`).toBe(true);
  });
});
