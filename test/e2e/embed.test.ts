/**
 * Browser test of what a creator embeds on their own site, in Debian's Chromium driven by
 * playwright-core: a plain HTML page served by the test on another loopback port (another origin)
 * shows the thing's badge, its button in an `<iframe>`, and links that `/js/button.js` turns into
 * buttons with counts; clicking the framed button opens the thing page in a new tab. The owner's
 * thing page shows the snippets. Screenshots at 1280 and 390 px go to test/e2e/screenshots/.
 * Without /usr/bin/chromium the suite is skipped with a warning (.ci/run installs it).
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Services } from '../../src/domain/services.ts';
import { createThing, getThing, updateThing } from '../../src/domain/things.ts';
import { parseNewThing } from '../../src/domain/thing-input.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { embedSnippets } from '../../src/web/routes/embed.ts';
import { ENGINES } from '../helpers/db.ts';
import { principalOf, uniqueName } from '../helpers/factories.ts';
import { HAVE_CHROMIUM, launchChromium, SCREENSHOTS, shoot } from '../helpers/browser.ts';
import { freePort } from '../helpers/processes.ts';
import { listenTestApp, type ListeningApp } from '../helpers/server.ts';
import { buildWebUser, PASSWORD } from '../helpers/web.ts';

describe.skipIf(!HAVE_CHROMIUM).each(ENGINES)('browser: the button and the badge on another site (%s)', (engine) => {
  let browser: Browser;
  let t: ListeningApp;
  let site: string;
  let services: Services;
  let creatorSite: Server;
  let creatorUrl: string;
  /** the creator's page, set by the test before it is opened */
  let creatorPage = '';

  beforeAll(async () => {
    browser = await launchChromium();
    t = await listenTestApp(engine);
    site = t.site;
    services = t.services;
    // The creator's own site: another origin (another port) serving one plain page.
    creatorSite = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(creatorPage);
    });
    const creatorPort = await freePort();
    await new Promise<void>((resolve) => creatorSite.listen(creatorPort, '127.0.0.1', resolve));
    creatorUrl = `http://127.0.0.1:${creatorPort}/`;
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => creatorSite?.close(resolve));
    await t?.close();
  });

  it('shows the badge, the framed button and the script buttons with counts; a click opens the thing page', async () => {
    const owner = await buildWebUser(services, { username: uniqueName('maker') });
    const id = await createThing(
      services,
      principalOf(owner),
      parseNewThing({ url: `https://example.com/${uniqueName('song')}`, title: 'Songs & "sketches" <live>' }),
    );
    for (let i = 0; i < 3; i++) await tipThing(services, principalOf(await buildWebUser(services)), id);
    const hidden = await createThing(
      services,
      principalOf(owner),
      parseNewThing({ url: `https://example.com/${uniqueName('secret')}`, title: 'Secret' }),
    );
    await updateThing(services, principalOf(owner), hidden, { hidden: true });
    const thing = await getThing(services, id);
    const snippets = embedSnippets(t.config, thing);
    const auto = `${site}/submit/auto?url=${encodeURIComponent('https://example.com/not-registered')}&user_id=${owner.username}`;
    creatorPage = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>My songs</title></head>
<body style="font-family:sans-serif;max-width:40rem;margin:1rem auto;padding:0 1rem">
<h1>My songs</h1>
<p id="badge">Badge: ${snippets.badgeHtml}</p>
<p id="frame">Button: ${snippets.buttonHtml}</p>
<p id="script">Script: ${snippets.scriptHtml.split('\n')[0]}</p>
<p id="auto">Auto-submit: <a class="tipjar-button" href="${auto}">Tip my new song</a></p>
<p id="hidden">Hidden: <a class="tipjar-button" data-tipjar-thing="${hidden}" href="${site}/thing/${hidden}">Tip the secret</a></p>
<p id="span">Any element: <span data-tipjar-thing="${id}"></span></p>
${snippets.scriptHtml.split('\n')[1]}
</body></html>`;

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(creatorUrl);
      // script buttons: the count of the thing, 0 for a thing not registered yet, none for a hidden one
      await page.waitForSelector('#script a.tipjar-ready');
      await page.waitForSelector('#auto a.tipjar-ready');
      await page.waitForSelector('#span .tipjar-ready a');
      expect(await page.getAttribute('#script a', 'aria-label')).toBe('Tip on Tipjar (3 tips)');
      expect((await page.textContent('#script a'))!.replace(/\s+/g, ' ')).toBe('♥ Tip3');
      expect(await page.textContent('#auto a')).toBe('♥ Tip0');
      expect(await page.getAttribute('#span a', 'href')).toBe(`${site}/thing/${id}`);
      expect(await page.textContent('#hidden a')).toBe('Tip the secret');
      // the badge loaded as an image
      await page.waitForFunction('document.querySelector("#badge img").naturalWidth > 0');
      // the framed button
      const frame = page.frameLocator('#frame iframe');
      expect(await frame.locator('a').textContent()).toBe('♥ Tip3');
      await shoot(page, 'embed-creator-site');

      const [tab] = await Promise.all([context.waitForEvent('page'), frame.locator('a').click()]);
      await tab.waitForLoadState();
      expect(tab.url()).toBe(`${site}/thing/${id}`);
      expect(await tab.textContent('h1')).toBe('Songs & "sketches" <live>');
      await tab.close();

      // the owner's snippets on the thing page
      await page.goto(`${site}/login`);
      await page.fill('#username', owner.username);
      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForURL(`${site}/`), page.click('button[type=submit]:has-text("Log in")')]);
      await page.goto(`${site}/thing/${id}`);
      await page.click('summary:has-text("Put a Tip button or badge on your site")');
      expect(await page.inputValue('#embed-script-html')).toBe(snippets.scriptHtml);
      await shoot(page, 'embed-snippets');
    } finally {
      await context.close();
    }
  }, 60_000);
});
