/**
 * The layout every website page shares: the header (logo, search, Explore; logged in, the account
 * pages and an account menu holding Log out as a CSRF form), the footer linking to the API
 * documentation, and the icon at /favicon.svg and /favicon.ico (SVG, cached, outside the page limit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { buildWebUser, csrfOf, html, WebClient } from '../helpers/web.ts';

describe.each(ENGINES)('website layout on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  it('every page, logged out: logo, icon link, Log in and Sign up, no account menu, the footer', async () => {
    for (const [path, status] of [
      ['/', 200],
      ['/login', 200],
      ['/explore', 200],
      ['/no/such/page', 404],
    ] as const) {
      const body = html(await new WebClient(t.app).get(path), status);
      expect(body).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
      expect(body).toMatch(/<a class="brand" href="\/"><svg class="logo"[^>]*aria-hidden="true"/);
      expect(body).toContain('<a href="/login">Log in</a>');
      expect(body).not.toContain('details class="menu"');
      expect(body).not.toContain('action="/logout"');
      expect(body).toContain('<footer class="site">');
      expect(body).toContain('<a href="/docs/api">API documentation</a>');
    }
  });

  it('logged in: the account pages, and an account menu with the profile, Settings, applications and Log out (with CSRF)', async () => {
    const user = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(user.username);
    const body = html(await c.get('/explore'));
    for (const link of ['/subscriptions', '/funds', '/earnings'])
      expect(body).toContain(`<a class="wide" href="${link}">`);
    const menu = body.slice(body.indexOf('<details class="menu">'), body.indexOf('</details>'));
    expect(menu).toContain(`<span class="who">${user.username}</span>`);
    for (const link of [
      `/profile/${user.username}`,
      '/settings',
      '/apps',
      '/authorized',
      '/subscriptions',
      '/earnings',
    ])
      expect(menu).toContain(`href="${link}"`);
    expect(menu).toContain('<form method="post" action="/logout">');
    expect(menu).toContain(`name="_csrf" value="${csrfOf(body)}"`);
    expect(body).not.toContain('<a href="/login">Log in</a>');
  });

  it.each(['/favicon.svg', '/favicon.ico'])('%s: the logo as SVG, cached for a day', async (path) => {
    const res = await t.app.inject({ url: path });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  it('no page names an internal file', async () => {
    const user = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(user.username);
    for (const path of [
      '/',
      '/settings',
      '/apps',
      '/authorized',
      '/funds',
      '/earnings',
      '/subscriptions',
      '/explore',
    ]) {
      const text = html(await c.get(path)).replace(/<[^>]*>/g, ' ');
      expect(text, path).not.toMatch(/\bsrc\/|\.eta\b|\b[\w-]+\.ts\b/);
    }
  });
});
