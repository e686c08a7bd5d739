/**
 * Accessibility of every website page, in Debian's Chromium driven by playwright-core: each page,
 * logged out and logged in, gets axe-core (the file from node_modules, injected with the page's
 * CSP bypassed: the site itself runs no scripts) and the test fails on any violation of impact
 * "serious" or "critical", listing rule, impact and elements. On the same pages, at 390 px and at
 * 1280 px: no horizontal scrolling, and the header's navigation on one row at 1280 px and within
 * two rows at 390 px. Screenshots of every page go to test/e2e/screenshots/a11y-*.png.
 * Without /usr/bin/chromium the suite is skipped with a warning (.ci/run installs it).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Services } from '../../src/domain/services.ts';
import { createClient } from '../../src/auth/oauth/clients.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { HAVE_CHROMIUM, launchChromium, SCREENSHOTS } from '../helpers/browser.ts';
import { ENGINES } from '../helpers/db.ts';
import { listenTestApp, type ListeningApp } from '../helpers/server.ts';
import { buildThing, ownedThing, tokenWith, uniqueName } from '../helpers/factories.ts';
import { buildWebUser, PASSWORD } from '../helpers/web.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

describe.skipIf(!HAVE_CHROMIUM).each(ENGINES)('browser: accessibility of every page (%s)', (engine) => {
  let browser: Browser;
  let t: ListeningApp;
  let site: string;
  let services: Services;
  const word = uniqueName('findme');
  const tag = uniqueName('tag');
  let username = '';
  let ownThing = 0;
  let othersThing = 0;
  let ownClientId = '';
  let consentPath = '';

  beforeAll(async () => {
    browser = await launchChromium();
    t = await listenTestApp(engine);
    site = t.site;
    services = t.services;

    const me = await buildWebUser(services);
    username = me.username;
    const other = await buildWebUser(services);
    const mine = { user: me, token: await tokenWith(services, me.username, 'thing') };
    const theirs = { user: other, token: await tokenWith(services, other.username, 'thing') };
    ownThing = await buildThing(services, mine, {
      title: `${word} of mine`,
      description: 'A thing to tip.',
      category: 'software',
      tags: [tag],
    });
    othersThing = await buildThing(services, theirs, { title: `${word} of theirs`, category: 'software', tags: [tag] });
    await ownedThing(services, { identity: 'email:0123456789abcdef0123456789abcdef' });
    const own = await createClient(services, {
      name: 'My reader',
      callbackDomain: '127.0.0.1',
      redirectUris: 'http://127.0.0.1/callback',
      ownerUserId: me.id,
    });
    ownClientId = own.clientId;
    const granted = await createClient(services, {
      name: 'Their bot',
      callbackDomain: 'bot.example',
      ownerUserId: other.id,
    });
    await issueToken(services, me.username, 'tip', granted.client.id);
    consentPath = `/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: own.clientId,
      redirect_uri: 'http://127.0.0.1/callback',
      scope: 'tip',
      state: 'xyz',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })}`;
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The serious and critical axe-core violations on the page as it is. */
  async function violations(page: Page): Promise<Violation[]> {
    await page.addScriptTag({ content: AXE_SOURCE });
    // a string, run in the page: this program's types know no DOM
    const all = (await page.evaluate(`axe.run({ resultTypes: ['violations'] }).then((r) =>
      r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`)) as Violation[];
    return all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  }

  /** How the page lays out at `width`: horizontal overflow and the rows the header's items take. */
  async function layoutAt(page: Page, width: number) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    // rows taken by the visible children of an element: a child starts a row when it is below the row so far
    return (await page.evaluate(`(() => {
      const rowsOf = (selector) => {
        const boxes = [...(document.querySelector(selector)?.children ?? [])]
          .filter((e) => e.offsetParent !== null)
          .map((e) => e.getBoundingClientRect())
          .sort((a, b) => a.top - b.top);
        let rows = 0;
        let bottom = -Infinity;
        for (const box of boxes) {
          if (box.top >= bottom - 1) { rows++; bottom = box.bottom; } else bottom = Math.max(bottom, box.bottom);
        }
        return rows;
      };
      const root = document.documentElement;
      return { overflow: root.scrollWidth - root.clientWidth, navRows: rowsOf('header.top nav'), headerRows: rowsOf('header.top .bar') };
    })()`)) as { overflow: number; navRows: number; headerRows: number };
  }

  /** Loads `path` (expecting `status`), checks axe and the layout at both widths; returns the problems found. */
  async function check(page: Page, path: string, status: number, name: string): Promise<string[]> {
    const res = await page.goto(`${site}${path}`);
    expect(res?.status(), path).toBe(status);
    const problems: string[] = [];
    for (const width of [1280, 390]) {
      const layout = await layoutAt(page, width);
      if (layout.overflow > 0) problems.push(`${path} at ${width} px scrolls sideways by ${layout.overflow} px`);
      const maxRows = width === 1280 ? 1 : 2;
      if (layout.headerRows > maxRows) problems.push(`${path} at ${width} px: header on ${layout.headerRows} rows`);
      // The API document is hundreds of screens long: its first screen is shot, not the whole page.
      const fullPage = !path.startsWith('/docs/');
      await page.screenshot({ path: new URL(`a11y-${name}-${width}.png`, SCREENSHOTS).pathname, fullPage });
      for (const v of await violations(page))
        problems.push(
          `${path} at ${width} px: ${v.impact} ${v.id} (${v.help}) on ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
        );
      const text = await page.innerText('body');
      for (const internal of [/\bsrc\//, /\.eta\b/, /\b[\w-]+\.ts\b/])
        if (internal.test(text)) problems.push(`${path} shows an internal file name (${internal})`);
    }
    return problems;
  }

  async function newContext(): Promise<BrowserContext> {
    return browser.newContext({ bypassCSP: true });
  }

  it('axe-core runs and reports a serious or critical violation when there is one', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.setContent('<!doctype html><html lang="en"><title>t</title><main><input type="text"></main></html>');
    expect((await violations(page)).map((v) => v.id)).toContain('label');
    await context.close();
  });

  it('logged out: no serious or critical violations, no sideways scrolling, the header within its rows', async () => {
    const context = await newContext();
    const page = await context.newPage();
    const pages: [string, number, string][] = [
      ['/', 200, 'out-home'],
      ['/signup', 200, 'out-signup'],
      ['/login', 200, 'out-login'],
      ['/password/forgot', 200, 'out-forgot'],
      ['/explore', 200, 'out-explore'],
      [`/search?q=${word}`, 200, 'out-search'],
      ['/category/software', 200, 'out-category'],
      [`/tag/${tag}`, 200, 'out-tag'],
      [`/profile/${username}`, 200, 'out-profile'],
      [`/thing/${othersThing}`, 200, 'out-thing'],
      ['/claim/email:0123456789abcdef0123456789abcdef', 200, 'out-claim'],
      ['/verify-email/not-a-real-link', 400, 'out-verify-email'],
      ['/docs/api', 200, 'out-docs-api'],
      [
        `/submit/auto?url=${encodeURIComponent('https://example.com/not-yet')}&user_id=${username}`,
        200,
        'out-submit-auto',
      ],
      ['/no/such/page', 404, 'out-404'],
    ];
    const problems: string[] = [];
    for (const [path, status, name] of pages) problems.push(...(await check(page, path, status, name)));
    await context.close();
    expect(problems).toEqual([]);
  }, 300_000);

  it('logged in: no serious or critical violations, no sideways scrolling, the header within its rows', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${site}/login`);
    await page.fill('#username', username);
    await page.fill('#password', PASSWORD);
    await Promise.all([
      page.waitForURL((u) => !u.pathname.startsWith('/login')),
      page.click('main button[type=submit]'),
    ]);
    const pages: [string, number, string][] = [
      ['/', 200, 'in-home'],
      ['/explore', 200, 'in-explore'],
      [`/search?q=${word}`, 200, 'in-search'],
      ['/category/software', 200, 'in-category'],
      [`/tag/${tag}`, 200, 'in-tag'],
      [`/profile/${username}`, 200, 'in-profile'],
      [`/thing/${othersThing}`, 200, 'in-thing-visitor'],
      [`/thing/${ownThing}`, 200, 'in-thing-owner'],
      ['/settings', 200, 'in-settings'],
      ['/earnings', 200, 'in-earnings'],
      ['/funds', 200, 'in-funds'],
      ['/subscriptions', 200, 'in-subscriptions'],
      ['/apps', 200, 'in-apps'],
      [`/apps/${ownClientId}/delete`, 200, 'in-apps-delete'],
      ['/authorized', 200, 'in-authorized'],
      [consentPath, 200, 'in-consent'],
      ['/claim/email:0123456789abcdef0123456789abcdef', 200, 'in-claim'],
      ['/verify-email/not-a-real-link', 400, 'in-verify-email'],
      ['/docs/api', 200, 'in-docs-api'],
      ['/things/new', 200, 'in-things-new'],
      [`/thing/${ownThing}/edit`, 200, 'in-thing-edit'],
      [`/thing/${ownThing}/delete`, 200, 'in-thing-delete'],
      ['/settings/delete', 200, 'in-settings-delete'],
      ['/no/such/page', 404, 'in-404'],
    ];
    const problems: string[] = [];
    for (const [path, status, name] of pages) problems.push(...(await check(page, path, status, name)));

    // the account menu opens without JavaScript and shows every account page, Log out included
    await page.goto(`${site}/`);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      await page.click('header details.menu summary');
      expect(await page.getAttribute('header details.menu', 'open'), `menu open at ${width}`).not.toBeNull();
      for (const label of ['Your profile', 'Settings', 'Your applications', 'Authorized apps'])
        expect(await page.isVisible(`header details.menu a:has-text("${label}")`), label).toBe(true);
      expect(await page.isVisible('header details.menu button:has-text("Log out")')).toBe(true);
      for (const label of ['Earnings', 'Subscriptions', 'Funds'])
        expect(await page.isVisible(`header a:visible:has-text("${label}")`), `${label} at ${width}`).toBe(true);
      expect((await layoutAt(page, width)).overflow).toBe(0);
      // Log out is painted on top, not clipped by the header: the point at its centre is the button
      const onTop = await page.evaluate(`(() => {
        const button = document.querySelector('header details.menu button');
        const r = button.getBoundingClientRect();
        return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === button;
      })()`);
      expect(onTop, `Log out reachable at ${width}`).toBe(true);
      await page.screenshot({ path: new URL(`a11y-in-menu-${width}.png`, SCREENSHOTS).pathname });
      await page.click('header details.menu summary');
    }
    await context.close();
    expect(problems).toEqual([]);
  }, 300_000);
});
