/**
 * Browser test of the account life cycle, in Debian's Chromium driven by playwright-core, with
 * mail through a real SMTP server on 127.0.0.1 (test/helpers/smtp.ts) and the mail dispatcher as
 * `serve` runs it: a new user signs up, follows the verification link from the message, logs out,
 * forgets the password, follows the reset link, sets a new one (and is logged in), downloads the
 * data, and deletes the account; the username then answers 404 and log-in fails.
 * Screenshots of every page on the way, at 1280 and 390 px, go to test/e2e/screenshots/.
 * Without /usr/bin/chromium the suite is skipped with a warning (.ci/run installs it).
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startMailDispatcher, type RunningMailDispatcher } from '../../src/mail/dispatcher.ts';
import { smtpTransport } from '../../src/mail/transport.ts';
import { HAVE_CHROMIUM, launchChromium, SCREENSHOTS, shoot } from '../helpers/browser.ts';
import { ENGINES } from '../helpers/db.ts';
import { uniqueName } from '../helpers/factories.ts';
import { listenTestApp, type ListeningApp } from '../helpers/server.ts';
import { linkIn, TestSmtpServer } from '../helpers/smtp.ts';

describe.skipIf(!HAVE_CHROMIUM).each(ENGINES)('browser: sign up, verify, reset, delete (%s)', (engine) => {
  let browser: Browser;
  let t: ListeningApp;
  let site: string;
  let mailer: RunningMailDispatcher;
  const smtp = new TestSmtpServer();

  beforeAll(async () => {
    browser = await launchChromium();
    await smtp.start();
    t = await listenTestApp(engine);
    site = t.site;
    mailer = startMailDispatcher(t.services, smtpTransport(smtp.url, { from: 'Tipjar <no-reply@127.0.0.1>' }), {
      intervalSeconds: 1,
    });
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await mailer?.stop();
    await t?.close();
    await smtp.stop();
  });

  it('walks the whole life of an account', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      const username = uniqueName('life');
      const address = `${username}@example.com`;

      // sign up: the account works at once, its address is not verified yet
      await page.goto(`${site}/signup`);
      await page.fill('#username', username);
      await page.fill('#email', address);
      await page.fill('#password', 'the first passphrase');
      await Promise.all([page.waitForURL(`${site}/`), page.click('button[type=submit]:has-text("Create account")')]);
      await page.goto(`${site}/settings`);
      expect(await page.textContent('main')).toContain(`${address} — not verified`);
      await shoot(page, 'settings-unverified');

      // the verification link from the real message
      const verification = await smtp.latest(address, 'Confirm your e-mail address');
      await page.goto(linkIn(verification, `${site}/verify-email/`));
      expect(await page.textContent('main')).toContain('verified');
      await shoot(page, 'verify-email');
      await page.goto(`${site}/settings`);
      expect(await page.textContent('main')).toContain(`${address} — verified`);

      // log out, forget the password, reset it from the link
      await page.click('header details.menu summary');
      await Promise.all([page.waitForURL(`${site}/login`), page.click('header button:has-text("Log out")')]);
      expect(await page.textContent('p.notice')).toBe('You are logged out.');
      await Promise.all([page.waitForURL(`${site}/password/forgot`), page.click('text=Forgot your password?')]);
      await page.fill('#email', address.toUpperCase());
      await page.click('button:has-text("Send me a link")');
      await page.waitForSelector('p.notice:has-text("If an account has this address")');
      await shoot(page, 'password-forgot-sent');
      const reset = await smtp.latest(address, 'Reset your Tipjar password');
      await page.goto(linkIn(reset, `${site}/password/reset/`));
      await shoot(page, 'password-reset');
      await page.fill('#password', 'the second passphrase');
      await Promise.all([page.waitForURL(`${site}/settings`), page.click('button:has-text("Set my password")')]);
      expect(await page.textContent('header')).toContain(username);
      // the link worked once
      await page.goto(linkIn(reset, `${site}/password/reset/`));
      expect(await page.textContent('main')).toMatch(/expired|used/);

      // the data, then the account goes
      const exported = await page.request.get(`${site}/settings/export`);
      expect(exported.status()).toBe(200);
      expect(((await exported.json()) as { profile: { username: string } }).profile.username).toBe(username);
      await page.goto(`${site}/settings`);
      await shoot(page, 'settings-verified');
      await Promise.all([page.waitForURL(`${site}/settings/delete`), page.click('a:has-text("Delete my account")')]);
      await shoot(page, 'delete-account');
      await page.fill('#password', 'the second passphrase');
      await page.check('input[name=confirm]');
      await Promise.all([page.waitForURL(`${site}/`), page.click('button:has-text("Delete my account for good")')]);
      await shoot(page, 'account-deleted');
      expect((await fetch(`${site}/rest/v2/users/${username}`)).status).toBe(404);

      // the old password and the new one both fail now
      await page.goto(`${site}/login`);
      await page.fill('#username', username);
      await page.fill('#password', 'the second passphrase');
      await page.click('main button[type=submit]');
      await page.waitForLoadState('load');
      expect(await page.textContent('main')).toContain('Wrong username or password.');
    } finally {
      await context.close();
    }
  }, 120_000);
});
