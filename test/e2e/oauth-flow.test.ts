/**
 * Browser test of the website and the OAuth code flow, in Debian's Chromium driven by
 * playwright-core (never a downloaded browser). The real app listens on 127.0.0.1; a tiny client
 * application (node:http, also on 127.0.0.1) plays the third party:
 *   a new user signs up, logs out and in, sets a budget, registers an application ("Your
 *   applications": client id + secret shown once, an exact loopback redirect URI without a port);
 *   the client, on a port of the moment, sends the user to
 *   /oauth/authorize (PKCE S256, state); the user approves on the consent page; the client checks
 *   state, exchanges the code at POST /oauth/token and tips a thing with the token; the user revokes
 *   the application under "Authorized applications" and the token answers 401.
 * Screenshots of the consent page and the apps page go to test/e2e/screenshots/ (not committed).
 * Without /usr/bin/chromium the suite is skipped with a warning (.ci/run installs it).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Services } from '../../src/domain/services.ts';
import { HAVE_CHROMIUM, launchChromium, SCREENSHOTS } from '../helpers/browser.ts';
import { ENGINES } from '../helpers/db.ts';
import { listenTestApp, type ListeningApp } from '../helpers/server.ts';
import { buildThing, buildUser, uniqueName } from '../helpers/factories.ts';

/**
 * The third-party client application: `/start` redirects to the authorization endpoint with PKCE
 * and a random state; `/callback` checks the state, exchanges the code (HTTP Basic) and tips
 * `thingId` with the token, then shows what happened.
 */
function clientApp(opts: {
  site: string;
  thingId: number;
  credentials: () => { clientId: string; clientSecret: string };
}) {
  const state = randomBytes(16).toString('base64url');
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const result: { token?: string; tokenStatus?: number; tipStatus?: number; scope?: string } = {};
  let redirectUri = '';
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', redirectUri);
    const { clientId, clientSecret } = opts.credentials();
    if (url.pathname === '/start') {
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'tip',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      res.writeHead(302, { location: `${opts.site}/oauth/authorize?${q}` }).end();
      return;
    }
    if (url.pathname === '/callback') {
      if (url.searchParams.get('state') !== state) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('state mismatch');
        return;
      }
      const tokenRes = await fetch(`${opts.site}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        },
        body: JSON.stringify({
          grant_type: 'authorization_code',
          code: url.searchParams.get('code'),
          redirect_uri: redirectUri,
          code_verifier: verifier,
        }),
      });
      result.tokenStatus = tokenRes.status;
      const body = (await tokenRes.json()) as { access_token?: string; scope?: string };
      result.token = body.access_token;
      result.scope = body.scope;
      const tip = await fetch(`${opts.site}/rest/v2/things/${opts.thingId}/tip`, {
        method: 'POST',
        headers: { authorization: `Bearer ${result.token}` },
      });
      result.tipStatus = tip.status;
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<h1 id="result">token ${result.tokenStatus}, tip ${result.tipStatus}</h1>`);
      return;
    }
    res.writeHead(404).end();
  });
  return {
    server,
    result,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
  };
}

describe.skipIf(!HAVE_CHROMIUM).each(ENGINES)(
  'browser: sign up, register an app, authorize it, revoke it (%s)',
  (engine) => {
    let browser: Browser;
    let t: ListeningApp;
    let site: string;
    let services: Services;

    beforeAll(async () => {
      browser = await launchChromium();
      t = await listenTestApp(engine);
      site = t.site;
      services = t.services;
      mkdirSync(SCREENSHOTS, { recursive: true });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await t?.close();
    });

    it('runs the whole flow in Chromium', async () => {
      const owner = await buildUser(services);
      const thingId = await buildThing(services, owner, { title: 'Tip me in a browser' });
      const credentials = { clientId: '', clientSecret: '' };
      const client = clientApp({ site, thingId, credentials: () => credentials });
      const clientOrigin = await client.listen();

      const context = await browser.newContext({ viewport: { width: 390, height: 844 } }); // a phone
      const page = await context.newPage();
      try {
        // sign up
        const username = uniqueName('e2e');
        await page.goto(`${site}/signup`);
        await page.fill('#username', username);
        await page.fill('#email', `${username}@example.com`);
        await page.fill('#password', 'a long enough password');
        await Promise.all([page.waitForURL(`${site}/`), page.click('button[type=submit]:has-text("Create account")')]);
        expect(await page.textContent('main')).toContain(`You are logged in as ${username}`);

        // log out (in the account menu), log in
        await page.click('header details.menu summary');
        await Promise.all([page.waitForURL(`${site}/login`), page.click('header button:has-text("Log out")')]);
        await page.fill('#username', username);
        await page.fill('#password', 'a long enough password');
        await Promise.all([page.waitForURL(`${site}/`), page.click('main button[type=submit]')]);
        expect(await page.textContent('main')).toContain(`You are logged in as ${username}`);

        // means to tip: the user adds (demo) money on /funds and sets the budget in Settings
        await page.goto(`${site}/funds`);
        await page.fill('#amount', '10.00');
        await page.click('main button:has-text("Add money")');
        await page.waitForSelector('p.notice:has-text("The money was added to your balance.")');
        expect(await page.textContent('dl.facts')).toContain('Balance€10.00');
        await page.goto(`${site}/settings`);
        await page.fill('#budget', '5.00');
        await page.click('button:has-text("Save budget")');
        await page.waitForSelector('p.notice:has-text("Your monthly budget was saved.")');
        expect(await page.textContent('dl.facts')).toContain('Able to tipyes');

        // register an application: client id and secret shown once
        await page.goto(`${site}/apps`);
        await page.fill('#name', 'E2E Reader');
        await page.fill('#callback_domain', '127.0.0.1');
        // the exact redirect URI, without the port the client will listen on (RFC 8252 §7.3)
        await page.fill('#redirect_uris', 'http://127.0.0.1/callback');
        await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Register")')]);
        expect(await page.textContent('ul.uris')).toBe('http://127.0.0.1/callback');
        credentials.clientId = (await page.textContent('#new-client-id'))!.trim();
        credentials.clientSecret = (await page.textContent('#new-client-secret'))!.trim();
        expect(credentials.clientId).toMatch(/^[0-9a-f]{40}$/);
        expect(credentials.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
        await page.screenshot({ path: new URL('apps.png', SCREENSHOTS).pathname, fullPage: true });

        // the client sends the user to the consent page
        await page.goto(`${clientOrigin}/start`);
        await page.waitForURL(new RegExp(`^${site}/oauth/authorize\\?`));
        expect(await page.textContent('h1')).toBe('Allow “E2E Reader” to use your account?');
        expect(await page.textContent('ul.scopes')).toContain('Tip things and manage your subscriptions for you');
        await page.screenshot({ path: new URL('consent.png', SCREENSHOTS).pathname, fullPage: true });

        // approve → back at the client, which exchanged the code and tipped
        await Promise.all([page.waitForURL(new RegExp(`^${clientOrigin}/callback\\?code=`)), page.click('#approve')]);
        expect(await page.textContent('#result')).toBe('token 200, tip 200');
        expect(client.result.scope).toBe('tip');
        const thing = (await (await fetch(`${site}/rest/v2/things/${thingId}`)).json()) as { tips: number };
        expect(thing.tips).toBe(1);
        const me = await fetch(`${site}/rest/v2/user`, { headers: { authorization: `Bearer ${client.result.token}` } });
        expect(me.status).toBe(200);

        // the user revokes the application; the token stops working
        await page.goto(`${site}/authorized`);
        expect(await page.textContent('.app-name')).toBe('E2E Reader');
        await Promise.all([
          page.waitForURL(new RegExp(`^${site}/authorized/[0-9a-f]+/revoke$`)),
          page.click('main a:has-text("Revoke access")'),
        ]);
        expect(await page.textContent('h1')).toBe('Revoke the access of “E2E Reader”?');
        await Promise.all([page.waitForURL(`${site}/authorized`), page.click('main button:has-text("Revoke access")')]);
        expect(await page.textContent('main')).toContain('You have not allowed any application to act for you.');
        const after = await fetch(`${site}/rest/v2/user`, {
          headers: { authorization: `Bearer ${client.result.token}` },
        });
        expect(after.status).toBe(401);
      } finally {
        await context.close();
        await new Promise<void>((resolve) => client.server.close(() => resolve()));
      }
    }, 120_000);
  },
);
