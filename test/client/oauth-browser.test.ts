/**
 * The OAuth 2 code flow of `@tipjar/client` through the real consent page, in Debian's Chromium
 * (playwright-core; skipped with a notice without /usr/bin/chromium), on every engine. The real
 * app listens on 127.0.0.1; a third-party application (node:http, on another loopback port, so
 * another origin) uses the client library on both of its sides:
 * - its server: `/start` sends the user to `oauth.authorizationUrl` (state, PKCE S256) and keeps
 *   the state and verifier itself; `/callback` reads the code with `oauth.callbackCode`, exchanges
 *   it with `oauth.exchangeCode` and tips a thing with the token (`tips.tip`);
 * - its page: the built module (`packages/client/dist/index.js`, with `openapi-fetch`, through an
 *   import map) runs in the browser and reads `me.get()` and `things.get()` from the API across
 *   origins (CORS) with the token.
 * The user logs in on the site, denies once (the client sees `access_denied`), then approves;
 * finally the application revokes the token (`oauth.revoke`) and the page's next call is refused
 * with `unauthorized`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { Tipjar, TipjarError, type Authorization, type OAuthToken } from '@tipjar/client';
import { HAVE_CHROMIUM, launchChromium } from '../helpers/browser.ts';
import { ENGINES } from '../helpers/db.ts';
import { listenTestApp, type ListeningApp } from '../helpers/server.ts';
import { buildThing, buildUser } from '../helpers/factories.ts';
import { buildWebUser, PASSWORD } from '../helpers/web.ts';
import { buildClient } from '../helpers/oauth.ts';

const CLIENT_MODULE = fileURLToPath(new URL('../../packages/client/dist/index.js', import.meta.url));
const OPENAPI_FETCH_MODULE = fileURLToPath(new URL('../../node_modules/openapi-fetch/dist/index.mjs', import.meta.url));

/** The page the application shows after the exchange: the client library at work in the browser. */
function resultPage(site: string, token: string, thingId: number, server: string): string {
  const script = `
import { Tipjar, TipjarError } from '@tipjar/client';
const tipjar = new Tipjar({ baseUrl: ${JSON.stringify(site)}, accessToken: ${JSON.stringify(token)} });
const show = (id, text) => { document.getElementById(id).textContent = text; };
try {
  const me = await tipjar.me.get();
  show('me', me.username);
  const thing = await tipjar.things.get(${thingId});
  show('thing', \`\${thing.id} tips=\${thing.tips} tipped=\${thing.tipped}\`);
} catch (err) {
  show('me', err instanceof TipjarError ? \`error \${err.status} \${err.code}\` : \`failure \${err}\`);
}
document.body.dataset.done = 'yes';
`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>App</title>
<script type="importmap">{"imports": {"@tipjar/client": "/lib/tipjar-client.js", "openapi-fetch": "/lib/openapi-fetch.js"}}</script>
</head><body><h1 id="server">${server}</h1><p id="me"></p><p id="thing"></p>
<script type="module">${script}</script></body></html>`;
}

/** The third-party application, on a loopback port of its own. */
function thirdPartyApp(opts: { site: string; thingId: number; clientId: string; clientSecret: string }) {
  const tipjar = new Tipjar({ baseUrl: opts.site });
  const state: { pending?: Authorization; token?: OAuthToken; redirectUri: string } = { redirectUri: '' };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', state.redirectUri);
      const html = (status: number, body: string) =>
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      if (url.pathname === '/start') {
        // What the library hands back is the application's to keep (here: in memory, one user).
        state.pending = await tipjar.oauth.authorizationUrl({
          clientId: opts.clientId,
          redirectUri: state.redirectUri,
          scope: ['tip', 'extendedread'],
        });
        res.writeHead(302, { location: state.pending.url }).end();
      } else if (url.pathname === '/callback') {
        const pending = state.pending!;
        state.pending = undefined;
        try {
          const code = tipjar.oauth.callbackCode(url, pending.state);
          state.token = await tipjar.oauth.exchangeCode({
            clientId: opts.clientId,
            clientSecret: opts.clientSecret,
            code,
            redirectUri: state.redirectUri,
            codeVerifier: pending.codeVerifier,
          });
          const asUser = new Tipjar({ baseUrl: opts.site, accessToken: state.token.access_token });
          const tip = await asUser.tips.tip(opts.thingId);
          html(200, resultPage(opts.site, state.token.access_token, opts.thingId, `tipped ${tip.thing.tips}`));
        } catch (err) {
          html(400, `<h1 id="server">${err instanceof TipjarError ? `refused ${err.code}` : String(err)}</h1>`);
        }
      } else if (url.pathname === '/again') {
        html(200, resultPage(opts.site, state.token!.access_token, opts.thingId, 'again'));
      } else if (url.pathname === '/lib/tipjar-client.js' || url.pathname === '/lib/openapi-fetch.js') {
        const file = url.pathname === '/lib/tipjar-client.js' ? CLIENT_MODULE : OPENAPI_FETCH_MODULE;
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(file));
      } else {
        res.writeHead(404).end();
      }
    })();
  });
  return {
    server,
    state,
    tipjar,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      state.redirectUri = `${origin}/callback`;
      return origin;
    },
  };
}

describe.skipIf(!HAVE_CHROMIUM).each(ENGINES)('@tipjar/client: the OAuth code flow in Chromium (%s)', (engine) => {
  let browser: Browser;
  let server: ListeningApp;

  beforeAll(async () => {
    browser = await launchChromium();
    server = await listenTestApp(engine);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('deny, approve, exchange, tip, the library in the page, revoke', async () => {
    const site = server.site;
    const owner = await buildUser(server.services);
    const thingId = await buildThing(server.services, owner, { title: 'Tipped through the client' });
    const user = await buildWebUser(server.services);
    const registered = await buildClient(server.services, { callbackDomain: '127.0.0.1', name: 'Client Library App' });
    const app = thirdPartyApp({ site, thingId, clientId: registered.clientId, clientSecret: registered.clientSecret });
    const origin = await app.listen();

    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      // log in on the site
      await page.goto(`${site}/login`);
      await page.fill('#username', user.username);
      await page.fill('#password', PASSWORD);
      await Promise.all([page.waitForURL(`${site}/`), page.click('main button[type=submit]')]);

      // the application sends the user to the consent page; the user denies
      await page.goto(`${origin}/start`);
      await page.waitForURL(new RegExp(`^${site}/oauth/authorize\\?`));
      expect(await page.textContent('h1')).toBe('Allow “Client Library App” to use your account?');
      const consent = new URL(page.url());
      expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
      await Promise.all([page.waitForURL(new RegExp(`^${origin}/callback\\?`)), page.click('#deny')]);
      expect(await page.textContent('#server')).toBe('refused access_denied');
      expect(app.state.token).toBeUndefined();

      // again, and approve: the application exchanges the code and tips with the token
      await page.goto(`${origin}/start`);
      await page.waitForURL(new RegExp(`^${site}/oauth/authorize\\?`));
      await Promise.all([page.waitForURL(new RegExp(`^${origin}/callback\\?code=`)), page.click('#approve')]);
      expect(await page.textContent('#server')).toBe('tipped 1');
      expect(app.state.token).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        scope: 'tip extendedread',
      });

      // the library in the browser, across origins, with the token
      await page.waitForSelector('body[data-done="yes"]');
      expect(await page.textContent('#me')).toBe(user.username);
      expect(await page.textContent('#thing')).toBe(`${thingId} tips=1 tipped=true`);

      // the application revokes the token: the page's next call is refused
      await app.tipjar.oauth.revoke({
        clientId: registered.clientId,
        clientSecret: registered.clientSecret,
        token: app.state.token!.access_token,
      });
      await page.goto(`${origin}/again`);
      await page.waitForSelector('body[data-done="yes"]');
      expect(await page.textContent('#me')).toBe('error 401 unauthorized');
    } finally {
      await context.close();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
    }
  }, 120_000);
});
