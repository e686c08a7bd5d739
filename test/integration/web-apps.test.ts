/**
 * "Your applications" and "Authorized applications": register a client (name, callback
 * domain), the client id, the secret shown once (stored hashed), rotation, deletion; the grants a
 * user made and their revocation (the token then answers 401).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/auth/secrets.ts';
import { authenticateClient, createClient } from '../../src/auth/oauth/clients.ts';
import { SCOPE_DESCRIPTIONS } from '../../src/auth/oauth/authorize.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { buildWebUser, html, WebClient } from '../helpers/web.ts';

describe.each(ENGINES)('website applications pages on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  const db = () => t.db.database.db;
  const clientsOf = (userId: number) =>
    db().selectFrom('oauth_clients').selectAll().where('owner_user_id', '=', userId).execute();

  async function loggedIn() {
    const user = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(user.username);
    return { user, c };
  }

  /** The client id and secret shown on a page after registration or rotation. */
  function shownSecret(body: string): { clientId: string; clientSecret: string } {
    const id = /<dd class="mono" id="new-client-id">([^<]+)<\/dd>/.exec(body);
    const secret = /<dd class="secret" id="new-client-secret">([^<]+)<\/dd>/.exec(body);
    if (!id || !secret) throw new Error(`no secret on the page:\n${body}`);
    return { clientId: id[1]!, clientSecret: secret[1]! };
  }

  it.each(['/apps', '/authorized'])('GET %s without a session → the log-in page, then back', async (page) => {
    const res = await new WebClient(t.app).get(page);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/login?return_to=${encodeURIComponent(page)}`);
  });

  it('registers an application: client id and secret shown once, the secret stored as a hash only', async () => {
    const { user, c } = await loggedIn();
    expect(html(await c.get('/apps'))).toContain('You have not registered an application yet.');
    const res = await c.submit('/apps', '/apps', { name: 'My Reader', callback_domain: 'Reader.Example.COM' });
    const body = html(res, 201);
    expect(body).toContain('Copy it now: it is shown only this once.');
    const { clientId, clientSecret } = shownSecret(body);
    expect(clientId).toMatch(/^[0-9a-f]{40}$/);
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const rows = await clientsOf(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      client_id: clientId,
      name: 'My Reader',
      callback_domain: 'reader.example.com',
      secret_hash: hashSecret(clientSecret),
      deleted_at: null,
    });
    expect(JSON.stringify(rows)).not.toContain(clientSecret);
    expect(await authenticateClient(t.services, clientId, clientSecret)).toBeDefined();

    // listed afterwards with its id and domain, never with the secret
    const list = html(await c.get('/apps'));
    expect(list).toContain('<strong class="app-name">My Reader</strong>');
    expect(list).toContain(`<dd class="mono client-id">${clientId}</dd>`);
    expect(list).toContain('<dd class="mono">reader.example.com</dd>');
    expect(list).not.toContain(clientSecret);
  });

  it.each([
    ['no name', { name: '', callback_domain: 'a.example' }, 'name is required'],
    ['a too long name', { name: 'n'.repeat(101), callback_domain: 'a.example' }, 'name must be at most 100 characters'],
    ['a URL as domain', { name: 'X', callback_domain: 'https://a.example/cb' }, 'callback_domain must be a host name'],
    ['no domain', { name: 'X', callback_domain: '' }, 'callback_domain is required'],
  ])('refuses %s with 400 and the reason, registering nothing', async (_n, fields, message) => {
    const { user, c } = await loggedIn();
    const body = html(await c.submit('/apps', '/apps', fields), 400);
    expect(body).toContain(message);
    expect(body).toContain(`value="${fields.callback_domain}"`);
    expect(await clientsOf(user.id)).toHaveLength(0);
  });

  it('registers exact redirect URIs from the form (one per line) and lists them; without any, says what matches', async () => {
    const { user, c } = await loggedIn();
    html(await c.submit('/apps', '/apps', { name: 'Plain', callback_domain: 'plain.example' }), 201);
    const body = html(
      await c.submit('/apps', '/apps', {
        name: 'Exact',
        callback_domain: 'exact.example',
        redirect_uris: ' https://exact.example/cb\r\nhttps://m.exact.example/cb?app=1\r\n\r\n',
      }),
      201,
    );
    const { clientId } = shownSecret(body);
    const rows = await clientsOf(user.id);
    expect(JSON.parse(rows.find((r) => r.client_id === clientId)!.redirect_uris)).toEqual([
      'https://exact.example/cb',
      'https://m.exact.example/cb?app=1',
    ]);

    const list = html(await c.get('/apps'));
    expect(list).toContain(
      '<ul class="uris"><li class="mono">https://exact.example/cb</li><li class="mono">https://m.exact.example/cb?app=1</li></ul>',
    );
    expect(list).toContain('Any https address on plain.example or its subdomains');
    // the change form holds the current URIs, one per line
    expect(list).toContain(`>https://exact.example/cb\nhttps://m.exact.example/cb?app=1</textarea>`);
  });

  it('refuses a redirect URI the rules refuse, with 400, the reason and the text kept, registering nothing', async () => {
    const { user, c } = await loggedIn();
    const body = html(
      await c.submit('/apps', '/apps', {
        name: 'Bad',
        callback_domain: 'bad.example',
        redirect_uris: 'https://bad.example/cb?code=1',
      }),
      400,
    );
    expect(body).toContain(
      'Redirect URI &quot;https://bad.example/cb?code=1&quot; refused: redirect_uri must not carry &quot;code&quot; in its query',
    );
    expect(body).toContain('>https://bad.example/cb?code=1</textarea>');
    expect(await clientsOf(user.id)).toHaveLength(0);
  });

  it('changes the redirect URIs of a client (303 and a notice), clears them, and refuses bad ones keeping the form open', async () => {
    const { user, c } = await loggedIn();
    const { clientId } = shownSecret(
      html(
        await c.submit('/apps', '/apps', {
          name: 'Changer',
          callback_domain: 'chg.example',
          redirect_uris: 'https://chg.example/old',
        }),
        201,
      ),
    );
    const uris = async () => JSON.parse((await clientsOf(user.id))[0]!.redirect_uris);

    const res = await c.submit('/apps', `/apps/${clientId}/redirect-uris`, {
      redirect_uris: 'https://chg.example/new\nhttps://chg.example/newer',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/apps');
    expect(html(await c.get('/apps'))).toContain('The redirect URIs were saved.');
    expect(await uris()).toEqual(['https://chg.example/new', 'https://chg.example/newer']);

    const refused = html(
      await c.submit('/apps', `/apps/${clientId}/redirect-uris`, {
        redirect_uris: 'https://chg.example/ok\nhttp://chg.example/plain',
      }),
      400,
    );
    // the reason inside that application's open form, next to the text sent; a pointer to it on top
    expect(refused).toContain(
      `<p class="error" role="alert">The redirect URIs were not saved: <a href="#redirect_uris-${clientId}">see why below</a>.</p>`,
    );
    expect(refused).toMatch(
      /<details class="edit" open>\n<summary>Change redirect URIs<\/summary>\n<form [^>]+>\n<input [^>]+>\n<p class="error">Redirect URI &quot;http:\/\/chg.example\/plain&quot; refused: redirect_uri must use https/,
    );
    expect(refused).toContain('>https://chg.example/ok\nhttp://chg.example/plain</textarea>');
    expect(await uris()).toEqual(['https://chg.example/new', 'https://chg.example/newer']);

    expect((await c.submit('/apps', `/apps/${clientId}/redirect-uris`, { redirect_uris: '' })).statusCode).toBe(303);
    expect(await uris()).toEqual([]);
    expect(html(await c.get('/apps'))).toContain('Any https address on chg.example or its subdomains');
  });

  it('rotates the secret: the new one is shown once and works, the old one stops working', async () => {
    const { user, c } = await loggedIn();
    const first = shownSecret(
      html(await c.submit('/apps', '/apps', { name: 'Rotator', callback_domain: 'rot.example' }), 201),
    );
    const apps = html(await c.get('/apps'));
    expect(apps).toContain(`href="/apps/${first.clientId}/secret"`);
    expect(apps).not.toContain(`action="/apps/${first.clientId}/secret"`);
    const confirmPage = html(await c.get(`/apps/${first.clientId}/secret`));
    expect(confirmPage).toContain('Rotate the secret of “Rotator”?');
    expect(confirmPage).toContain(`<form method="post" action="/apps/${first.clientId}/secret">`);
    expect(confirmPage).toContain('<input type="hidden" name="confirm" value="1">');
    // without the confirmation: 400 with the confirmation page, the secret unchanged
    const refused = html(await c.submit(`/apps/${first.clientId}/secret`, `/apps/${first.clientId}/secret`), 400);
    expect(refused).toContain('Nothing was changed');
    expect(await authenticateClient(t.services, first.clientId, first.clientSecret)).toBeDefined();

    const res = await c.submit(`/apps/${first.clientId}/secret`, `/apps/${first.clientId}/secret`, { confirm: '1' });
    const second = shownSecret(html(res));
    expect(second.clientId).toBe(first.clientId);
    expect(second.clientSecret).not.toBe(first.clientSecret);
    expect(await authenticateClient(t.services, first.clientId, first.clientSecret)).toBeUndefined();
    expect(await authenticateClient(t.services, first.clientId, second.clientSecret)).toBeDefined();
    expect((await clientsOf(user.id))[0]!.secret_hash).toBe(hashSecret(second.clientSecret));
  });

  it('deletes a client and revokes its tokens', async () => {
    const { user, c } = await loggedIn();
    const { clientId } = shownSecret(
      html(await c.submit('/apps', '/apps', { name: 'Doomed', callback_domain: 'doomed.example' }), 201),
    );
    const row = (await clientsOf(user.id))[0]!;
    const other = await buildWebUser(t.services);
    const token = await issueToken(t.services, other.username, 'tip', row.id);
    expect((await t.app.inject({ url: `${API}/user`, headers: bearer(token) })).statusCode).toBe(200);

    const confirmPage = html(await c.get(`/apps/${clientId}/delete`));
    expect(confirmPage).toContain('Delete “Doomed”?');
    expect(confirmPage).toContain('href="/apps">Cancel</a>');
    html(await c.submit(`/apps/${clientId}/delete`, `/apps/${clientId}/delete`), 400);
    expect((await clientsOf(user.id))[0]!.deleted_at).toBeNull();
    expect((await t.app.inject({ url: `${API}/user`, headers: bearer(token) })).statusCode).toBe(200);

    const res = await c.submit(`/apps/${clientId}/delete`, `/apps/${clientId}/delete`, { confirm: '1' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/apps');
    const list = html(await c.get('/apps'));
    expect(list).toContain('The application was deleted and its tokens revoked.');
    expect(list).not.toContain(clientId);
    expect((await clientsOf(user.id))[0]!.deleted_at).not.toBeNull();
    expect((await t.app.inject({ url: `${API}/user`, headers: bearer(token) })).statusCode).toBe(401);
  });

  it("another user's client cannot be rotated or deleted (404 page, nothing changed)", async () => {
    const owner = await buildWebUser(t.services);
    const { clientId } = await createClient(t.services, {
      name: 'Not yours',
      callbackDomain: 'mine.example',
      ownerUserId: owner.id,
    });
    const before = await clientsOf(owner.id);
    const { c } = await loggedIn();
    for (const action of ['secret', 'delete', 'redirect-uris']) {
      for (const fields of (action === 'redirect-uris'
        ? [{ redirect_uris: 'https://mine.example/stolen' }]
        : [{}, { confirm: '1' }]) as Record<string, string>[]) {
        const res = await c.submit('/apps', `/apps/${clientId}/${action}`, fields);
        expect(html(res, 404)).toContain('No such application');
      }
      if (action !== 'redirect-uris') {
        const page = html(await c.get(`/apps/${clientId}/${action}`), 404);
        expect(page).toContain('No such application');
        expect(page).not.toContain('Not yours');
      }
    }
    expect(await clientsOf(owner.id)).toEqual(before);
  });

  it('Authorized applications: lists the grants with scopes in words; revoking makes the tokens answer 401', async () => {
    const dev = await buildWebUser(t.services);
    const app1 = await createClient(t.services, {
      name: 'Tipping Bot',
      callbackDomain: 'bot.example',
      ownerUserId: dev.id,
    });
    const { user, c } = await loggedIn();
    expect(html(await c.get('/authorized'))).toContain('You have not allowed any application to act for you.');
    const t1 = await issueToken(t.services, user.username, 'tip', app1.client.id);
    const t2 = await issueToken(t.services, user.username, 'thing extendedread', app1.client.id);
    const own = await issueToken(t.services, user.username, 'tip');

    const body = html(await c.get('/authorized'));
    expect(body).toContain('<strong class="app-name">Tipping Bot</strong> <span class="muted">(bot.example)</span>');
    for (const scope of ['tip', 'thing', 'extendedread'] as const)
      expect(body).toContain(`<li>${SCOPE_DESCRIPTIONS[scope]}</li>`);
    expect(body).toContain(`href="/authorized/${app1.clientId}/revoke"`);
    const revokePath = `/authorized/${app1.clientId}/revoke`;
    const confirmPage = html(await c.get(revokePath));
    expect(confirmPage).toContain('Revoke the access of “Tipping Bot”?');
    expect(confirmPage).toContain(`<form method="post" action="${revokePath}">`);
    html(await c.submit(revokePath, revokePath), 400);
    expect((await t.app.inject({ url: `${API}/user`, headers: bearer(t1) })).statusCode).toBe(200);

    const res = await c.submit(revokePath, revokePath, { confirm: '1' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/authorized');
    for (const token of [t1, t2])
      expect((await t.app.inject({ url: `${API}/user`, headers: bearer(token) })).statusCode).toBe(401);
    // tokens not issued to that client keep working
    expect((await t.app.inject({ url: `${API}/user`, headers: bearer(own) })).statusCode).toBe(200);
    const after = html(await c.get('/authorized'));
    expect(after).toContain('Access revoked: the application can no longer act for you.');
    expect(after).not.toContain('Tipping Bot');
  });

  it('revoking an unknown client is a 404 page', async () => {
    const { c } = await loggedIn();
    for (const fields of [{}, { confirm: '1' }] as Record<string, string>[])
      expect(html(await c.submit('/authorized', '/authorized/no-such-client/revoke', fields), 404)).toContain(
        'No such application',
      );
    expect(html(await c.get('/authorized/no-such-client/revoke'), 404)).toContain('No such application');
  });

  it('the confirmation pages require log-in', async () => {
    const c = new WebClient(t.app);
    for (const path of ['/apps/x/secret', '/apps/x/delete', '/authorized/x/revoke']) {
      const res = await c.get(path);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toMatch(/^\/login/);
    }
  });
});
