/**
 * The website's two journeys, each one walk in Debian's Chromium driven by playwright-core, with
 * mail through a real SMTP server on 127.0.0.1 and the mail dispatcher as `serve` runs it:
 * (a) a creator signs up, verifies the address from the real message, adds a thing, and copies
 *     the button snippet from the thing page into a plain HTML page of their own, served by the
 *     test on another loopback port (another origin);
 * (b) a visitor opens that page, clicks the button (the thing page opens in a new tab), signs up
 *     from there and comes back, is refused the tip for lack of means, adds demo money
 *     and a monthly budget in one form and comes back, tips, and subscribes;
 * then the creator's earnings page shows this month's estimate. Screenshots of every page on the
 * way, at 1280 and 390 px, go to test/e2e/screenshots/journey-*.png.
 * Without /usr/bin/chromium the suite is skipped with a warning (.ci/run installs it).
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startMailDispatcher, type RunningMailDispatcher } from '../../src/mail/dispatcher.ts';
import { smtpTransport } from '../../src/mail/transport.ts';
import { HAVE_CHROMIUM, launchChromium, SCREENSHOTS, shoot } from '../helpers/browser.ts';
import { ENGINES } from '../helpers/db.ts';
import { uniqueName } from '../helpers/factories.ts';
import { freePort } from '../helpers/processes.ts';
import { listenTestApp, type ListeningApp } from '../helpers/server.ts';
import { linkIn, TestSmtpServer } from '../helpers/smtp.ts';

describe.skipIf(!HAVE_CHROMIUM).each(ENGINES)('browser: a creator and a visitor, start to end (%s)', (engine) => {
  let browser: Browser;
  let t: ListeningApp;
  let site: string;
  let mailer: RunningMailDispatcher;
  const smtp = new TestSmtpServer();
  let creatorSite: Server;
  let creatorUrl: string;
  /** the creator's own page: empty until the creator pastes the snippet into it */
  let creatorPage = '';

  beforeAll(async () => {
    browser = await launchChromium();
    await smtp.start();
    t = await listenTestApp(engine);
    site = t.site;
    mailer = startMailDispatcher(t.services, smtpTransport(smtp.url, { from: 'Tipjar <no-reply@127.0.0.1>' }), {
      intervalSeconds: 1,
    });
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
    await mailer?.stop();
    await t?.close();
    await smtp.stop();
  });

  /** Fills the sign-up form on the current page and sends it; waits for the page it returns to. */
  async function signUp(page: Page, username: string, returnsTo: string): Promise<void> {
    await page.fill('#username', username);
    await page.fill('#email', `${username}@example.com`);
    await page.fill('#password', `${username} passphrase`);
    await Promise.all([page.waitForURL(returnsTo), page.click('button[type=submit]:has-text("Create account")')]);
    expect(await page.textContent('p.notice')).toBe('Welcome to Tipjar! Your account is ready.');
  }

  it('a creator publishes a button; a visitor clicks it, signs up, adds money, tips and subscribes', async () => {
    const creator = uniqueName('maker');
    const visitor = uniqueName('fan');
    const thingUrl = `https://example.com/${uniqueName('songs')}`;

    // (a) the creator
    const creatorContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const c = await creatorContext.newPage();
    await c.goto(`${site}/`);
    await shoot(c, 'journey-01-home');
    await Promise.all([c.waitForURL(`${site}/signup`), c.click('main a:has-text("Sign up")')]);
    await shoot(c, 'journey-02-signup');
    await signUp(c, creator, `${site}/`);
    const verification = await smtp.latest(`${creator}@example.com`, 'Confirm your e-mail address');
    await c.goto(linkIn(verification, `${site}/verify-email/`));
    expect(await c.textContent('main')).toContain(`${creator}@example.com is verified`);

    await c.goto(`${site}/profile/${creator}`);
    await Promise.all([c.waitForURL(`${site}/things/new`), c.click('main a:has-text("Add a thing")')]);
    await c.fill('#url', thingUrl);
    await c.fill('#title', 'Songs from the attic');
    await c.fill('#description', 'Home recordings, one a week.');
    await c.selectOption('#category', 'audio');
    await c.fill('#tags', 'music, live');
    await shoot(c, 'journey-03-add-thing');
    await Promise.all([c.waitForURL(/\/thing\/\d+$/), c.click('button:has-text("Add the thing")')]);
    const thingId = Number(/\/thing\/(\d+)$/.exec(c.url())![1]);
    expect(await c.textContent('p.notice')).toBe('Your thing was added. People can tip it now.');
    expect(await c.textContent('h1')).toBe('Songs from the attic');
    await c.click('summary:has-text("Put a Tip button or badge on your site")');
    const snippet = await c.inputValue('#embed-script-html');
    expect(snippet).toContain(`data-tipjar-thing="${thingId}"`);
    await shoot(c, 'journey-04-thing-snippets');
    creatorPage = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>Songs from the attic</title></head>
<body style="font-family:sans-serif;max-width:40rem;margin:1rem auto;padding:0 1rem">
<h1>Songs from the attic</h1><p>Home recordings, one a week. Like them? ${snippet}</p>
</body></html>`;

    // (b) the visitor, in a browser of their own
    const visitorContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const v = await visitorContext.newPage();
    await v.goto(creatorUrl);
    await v.waitForSelector('a.tipjar-button.tipjar-ready');
    expect(await v.getAttribute('a.tipjar-button', 'aria-label')).toBe('Tip on Tipjar (0 tips)');
    await shoot(v, 'journey-05-creator-site');
    const [tab] = await Promise.all([visitorContext.waitForEvent('page'), v.click('a.tipjar-button')]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(`${site}/thing/${thingId}`);
    await tab.setViewportSize({ width: 1280, height: 800 });

    // logged out: sign up from the thing page and come back to it
    await shoot(tab, 'journey-06-thing-visitor');
    await Promise.all([tab.waitForURL(/\/signup\?return_to=/), tab.click('main a:has-text("Sign up to tip")')]);
    await signUp(tab, visitor, `${site}/thing/${thingId}`);

    // no means yet: the refusal links to the funds page, which comes back here
    await tab.click('main button:has-text("Tip")');
    await tab.waitForSelector('p.error:has-text("You have no means to tip yet")');
    await shoot(tab, 'journey-07-no-means');
    await Promise.all([tab.waitForURL(/\/funds\?return_to=/), tab.click('p.error a:has-text("Add money")')]);
    expect(await tab.textContent('p.demo')).toContain('money added here is simulated');
    await tab.fill('#amount', '10.00');
    await tab.fill('#budget', '5.00');
    await shoot(tab, 'journey-08-funds');
    await Promise.all([tab.waitForURL(`${site}/thing/${thingId}`), tab.click('main button:has-text("Add money")')]);
    expect(await tab.textContent('p.notice')).toBe(
      'The money was added to your balance and your monthly budget was saved.',
    );

    // tip, then subscribe
    await tab.click('main button:has-text("Tip")');
    await tab.waitForSelector('p.notice:has-text("Thank you — you tipped this thing.")');
    await tab.click('main button:has-text("Subscribe")');
    await tab.waitForSelector('p.notice:has-text("You subscribed to this thing.")');
    expect(await tab.textContent('main')).toContain(
      'You subscribe to this thing: it is tipped at the start of every month.',
    );
    await shoot(tab, 'journey-09-tipped-subscribed');
    await tab.reload();
    expect(await tab.$('p.notice'), 'the notice shows once').toBeNull();

    // the creator's own page now counts the tip, and the earnings page shows the estimate
    await v.reload();
    await v.waitForSelector('a.tipjar-button.tipjar-ready');
    expect(await v.getAttribute('a.tipjar-button', 'aria-label')).toBe('Tip on Tipjar (1 tip)');
    await c.goto(`${site}/earnings`);
    const estimate = (await c.textContent('main section'))!.replace(/\s+/g, ' ');
    expect(estimate).toContain('Estimate: €5.00 from 1 tip by 1 tipper.');
    await shoot(c, 'journey-10-earnings');

    await visitorContext.close();
    await creatorContext.close();
  }, 180_000);
});
