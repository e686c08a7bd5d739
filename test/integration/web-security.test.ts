/**
 * Website security: CSRF on EVERY form (missing, wrong, another visitor's, a pre-log-in
 * or logged-out token, a token in the query string → 403 and nothing changed), and XSS — titles,
 * profile fields, app names, URLs and usernames full of `<script>` and quotes are rendered escaped
 * on every page (no page ever carries a script).
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/oauth/clients.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { listMail } from '../../src/db/repositories/mail.ts';
import { requestPasswordReset } from '../../src/domain/credentials.ts';
import { parseProfile, updateProfile } from '../../src/domain/users.ts';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, principalOf, tokenWith, uniqueName } from '../helpers/factories.ts';
import { subscribe, toggleSubscription } from '../../src/domain/subscriptions.ts';
import { buildClient, REDIRECT_URI } from '../helpers/oauth.ts';
import { buildWebUser, csrfOf, html, PASSWORD, WebClient } from '../helpers/web.ts';

const XSS = `<script>alert("x'y")</script>`;
const ESCAPED = '&lt;script&gt;alert(&quot;x&#39;y&quot;)&lt;/script&gt;';
/** Hostile text a tag may hold (no white space, `& | ! ( ) ,`: DECISIONS.md "Things"), and as escaped. */
const XSS_TAG = `<script>alert\`x'y"\`</script>`;
const ESCAPED_TAG = '&lt;script&gt;alert`x&#39;y&quot;`&lt;/script&gt;';

describe.each(ENGINES)('website security on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  const db = () => t.db.database.db;

  /** Everything a form could change, as one comparable value. */
  async function snapshot(): Promise<string> {
    const tables = [
      'users',
      'sessions',
      'tips',
      'things',
      'oauth_clients',
      'oauth_codes',
      'access_tokens',
      'identities',
      'account_tokens',
      'mail_outbox',
      'subscriptions',
    ] as const;
    const order = { sessions: 'id_hash', identities: 'identity' } as Record<string, string>;
    const out: Record<string, unknown> = {};
    for (const table of tables)
      out[table] = await db()
        .selectFrom(table)
        .selectAll()
        .orderBy(sql.ref(order[table] ?? 'id'))
        .execute();
    return JSON.stringify(out);
  }

  describe('CSRF on every form → 403, nothing changed', () => {
    let user: Awaited<ReturnType<typeof buildWebUser>>;
    let c: WebClient;
    let forms: { name: string; page: string; action: string; fields: Record<string, string>; anonymous?: boolean }[];

    beforeAll(async () => {
      user = await buildWebUser(t.services);
      c = new WebClient(t.app);
      await c.login(user.username);
      const owner = await buildUser(t.services);
      const thing = await buildThing(t.services, owner);
      const subscribed = await buildThing(t.services, owner);
      const paused = await buildThing(t.services, owner);
      await subscribe(t.services, principalOf(user), subscribed);
      await subscribe(t.services, principalOf(user), paused);
      await toggleSubscription(t.services, principalOf(user), paused);
      const autoPage = `/submit/auto?${new URLSearchParams({ url: `https://auto.example/${uniqueName('p')}`, user_id: owner.user.username })}`;
      const mine = await createClient(t.services, {
        name: 'Mine',
        callbackDomain: 'mine.example',
        ownerUserId: user.id,
      });
      const granted = await buildClient(t.services, { name: 'Granted' });
      await issueToken(t.services, user.username, 'tip', granted.client.id);
      const consent = html(
        await c.get(
          `/oauth/authorize?response_type=code&client_id=${granted.clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&scope=tip`,
        ),
      );
      const signed = /name="request" value="([^"]+)"/.exec(consent)![1]!;
      await requestPasswordReset(t.services, user.email);
      const [resetMail] = await listMail(db(), { recipient: user.email, limit: 1 });
      const resetPath = new URL(String(resetMail!.params.link)).pathname;
      const own = await buildThing(t.services, { user, token: await tokenWith(t.services, user.username, 'thing') });
      forms = [
        {
          name: 'sign-up',
          page: '/signup',
          action: '/signup',
          fields: { username: uniqueName('csrf'), email: 'c@example.com', password: PASSWORD },
          anonymous: true,
        },
        {
          name: 'log-in',
          page: '/login',
          action: '/login',
          fields: { username: user.username, password: PASSWORD },
          anonymous: true,
        },
        { name: 'log-out', page: '/settings', action: '/logout', fields: {} },
        { name: 'profile', page: '/settings', action: '/settings', fields: { firstname: 'Changed', hide_tips: '1' } },
        { name: 'budget', page: '/settings', action: '/settings/budget', fields: { budget_cents: '900' } },
        { name: 'budget in units', page: '/settings', action: '/settings/budget', fields: { budget: '9.00' } },
        { name: 'add money', page: '/funds', action: '/funds', fields: { amount: '10.00', key: 'k'.repeat(24) } },
        { name: 'tip', page: `/thing/${thing}`, action: `/thing/${thing}/tip`, fields: {} },
        { name: 'subscribe', page: `/thing/${thing}`, action: `/thing/${thing}/subscribe`, fields: {} },
        { name: 'pause subscription', page: '/subscriptions', action: `/thing/${subscribed}/pause`, fields: {} },
        { name: 'resume subscription', page: '/subscriptions', action: `/thing/${paused}/resume`, fields: {} },
        { name: 'unsubscribe', page: '/subscriptions', action: `/thing/${subscribed}/unsubscribe`, fields: {} },
        {
          name: 'auto-submit tip',
          page: autoPage,
          action: autoPage.replace('/submit/auto', '/submit/auto/tip'),
          fields: {},
        },
        {
          name: 'register app',
          page: '/apps',
          action: '/apps',
          fields: { name: 'Sneaky', callback_domain: 'sneaky.example' },
        },
        {
          name: 'rotate secret',
          page: `/apps/${mine.clientId}/secret`,
          action: `/apps/${mine.clientId}/secret`,
          fields: { confirm: '1' },
        },
        {
          name: 'redirect URIs',
          page: '/apps',
          action: `/apps/${mine.clientId}/redirect-uris`,
          fields: { redirect_uris: 'https://mine.example/sneaky' },
        },
        {
          name: 'delete app',
          page: `/apps/${mine.clientId}/delete`,
          action: `/apps/${mine.clientId}/delete`,
          fields: { confirm: '1' },
        },
        {
          name: 'revoke grant',
          page: `/authorized/${granted.clientId}/revoke`,
          action: `/authorized/${granted.clientId}/revoke`,
          fields: { confirm: '1' },
        },
        {
          name: 'consent approve',
          page: '/authorized',
          action: '/oauth/authorize',
          fields: { request: signed, decision: 'approve' },
        },
        { name: 'notices', page: '/settings', action: '/settings/notices', fields: { notice: 'receipt' } },
        { name: 'hide thing', page: `/thing/${own}`, action: `/thing/${own}/hide`, fields: { hidden: '1' } },
        {
          name: 'delete thing',
          page: `/thing/${own}/delete`,
          action: `/thing/${own}/delete`,
          fields: { confirm: '1' },
        },
        {
          name: 'add thing',
          page: '/things/new',
          action: '/things/new',
          fields: { url: `https://example.com/${uniqueName('csrf')}`, title: 'New' },
        },
        { name: 'edit thing', page: `/thing/${own}/edit`, action: `/thing/${own}/edit`, fields: { title: 'Changed' } },
        {
          name: 'delete account',
          page: '/settings/delete',
          action: '/settings/delete',
          fields: { password: PASSWORD, confirm: '1' },
        },
        {
          name: 'claim',
          page: '/settings',
          action: `/claim/${encodeURIComponent(`email:${createHash('md5').update(user.email).digest('hex')}`)}`,
          fields: {},
        },
        {
          name: 'forgot password',
          page: '/password/forgot',
          action: '/password/forgot',
          fields: { email: user.email },
          anonymous: true,
        },
        {
          name: 'reset password',
          page: resetPath,
          action: resetPath,
          fields: { password: 'a new passphrase' },
          anonymous: true,
        },
        {
          name: 'change password',
          page: '/settings',
          action: '/settings/password',
          fields: { current_password: PASSWORD, password: 'a new passphrase' },
        },
        {
          name: 'change e-mail',
          page: '/settings',
          action: '/settings/email',
          fields: { email: 'elsewhere@example.org', current_password: PASSWORD },
        },
        {
          name: 'resend verification',
          page: '/settings',
          action: '/verify-email/resend',
          fields: { return_to: '/settings' },
        },
      ];
    });

    /** The client that would legitimately post the form. */
    const actor = (anonymous?: boolean) => (anonymous ? new WebClient(t.app) : c);

    async function expectRefused(client: WebClient, action: string, fields: Record<string, string>, query = '') {
      const before = await snapshot();
      const res = await client.post(`${action}${action.includes('?') ? query.replace('?', '&') : query}`, fields);
      const body = html(res, 403);
      expect(body).toContain('<h1>This form has expired</h1>');
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['set-cookie'] ?? '').not.toMatch(/tipjar_session=[^;]/);
      expect(await snapshot()).toBe(before);
    }

    it('every POST route of the website is in the list', async () => {
      // Fastify prints the POST routes as a tree; rebuild the full paths from the indentation.
      const stack: string[] = [];
      const posts: string[] = [];
      for (const line of t.app.printRoutes({ method: 'POST', commonPrefix: false }).split('\n')) {
        const m = /^([│ ]*)[├└]── (\S+) \(POST\)/.exec(line);
        if (!m) continue;
        stack.length = m[1]!.length / 4;
        stack.push(m[2]!);
        posts.push(stack.join(''));
      }
      // the website's POST routes (the API and the OAuth machine endpoints have no forms; the
      // one-click unsubscription link carries its own credential: notices.test.ts)
      const exempt = ['/notices/unsubscribe/:token'];
      expect(posts.filter((p) => exempt.includes(p))).toEqual(exempt);
      const web = posts.filter(
        (p) => !p.startsWith('/rest/') && p !== '/oauth/token' && p !== '/oauth/revoke' && !exempt.includes(p),
      );
      expect(web.sort()).toEqual(
        [
          '/signup',
          '/login',
          '/logout',
          '/settings',
          '/settings/budget',
          '/thing/:id/tip',
          '/thing/:id/subscribe',
          '/thing/:id/pause',
          '/thing/:id/resume',
          '/thing/:id/unsubscribe',
          '/submit/auto/tip',
          '/apps',
          '/apps/:clientId/secret',
          '/apps/:clientId/redirect-uris',
          '/apps/:clientId/delete',
          '/authorized/:clientId/revoke',
          '/oauth/authorize',
          '/claim/:identity',
          '/password/forgot',
          '/password/reset/:token',
          '/settings/password',
          '/settings/email',
          '/settings/delete',
          '/verify-email/resend',
          '/settings/notices',
          '/thing/:id/hide',
          '/thing/:id/delete',
          '/funds',
          '/things/new',
          '/thing/:id/edit',
        ].sort(),
      );
      expect(forms).toHaveLength(31);
    });

    it.each([
      'sign-up',
      'log-in',
      'log-out',
      'profile',
      'budget',
      'tip',
      'subscribe',
      'pause subscription',
      'resume subscription',
      'unsubscribe',
      'auto-submit tip',
      'register app',
      'rotate secret',
      'redirect URIs',
      'delete app',
      'revoke grant',
      'consent approve',
      'claim',
      'forgot password',
      'reset password',
      'change password',
      'change e-mail',
      'delete account',
      'resend verification',
      'notices',
      'hide thing',
      'delete thing',
      'add thing',
      'edit thing',
    ])(
      "%s: without a token, with a wrong one, with another visitor's, and with one in the query string only",
      async (name) => {
        const form = forms.find((f) => f.name === name)!;
        const client = actor(form.anonymous);
        await expectRefused(client, form.action, form.fields);
        await expectRefused(client, form.action, { ...form.fields, _csrf: 'wrong-token' });
        await expectRefused(client, form.action, { ...form.fields, _csrf: '' });
        const stranger = new WebClient(t.app);
        await expectRefused(client, form.action, { ...form.fields, _csrf: await stranger.csrf('/login') });
        const valid = await client.csrf(form.page);
        await expectRefused(client, form.action, form.fields, `?_csrf=${encodeURIComponent(valid)}`);
      },
    );

    it("a token from before log-in no longer works after it, and a logged-out session's token is dead", async () => {
      const u = await buildWebUser(t.services);
      const v = new WebClient(t.app);
      const anonymousToken = await v.csrf('/login');
      await v.login(u.username);
      await expectRefused(v, '/settings', { _csrf: anonymousToken, firstname: 'Changed' });
      const sessionToken = await v.csrf('/settings');
      const oldSession = v.cookies.get('tipjar_session')!;
      const out = await v.post('/logout', { _csrf: sessionToken });
      expect(out.statusCode).toBe(303);
      // replay the old cookie and its token: the session is gone, the token is refused
      const replay = new WebClient(t.app);
      replay.cookies.set('tipjar_session', oldSession);
      await expectRefused(replay, '/settings', { _csrf: sessionToken, firstname: 'Changed' });
    });

    it('a JSON body (not a form) without the token is refused the same way', async () => {
      const before = await snapshot();
      const res = await t.app.inject({
        method: 'POST',
        url: '/settings/budget',
        headers: { cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/json' },
        payload: { budget_cents: '901' },
      });
      expect(res.statusCode).toBe(403);
      expect(await snapshot()).toBe(before);
    });
  });

  describe('XSS: hostile text is escaped on every page', () => {
    let owner: Awaited<ReturnType<typeof buildWebUser>>;
    let visitor: WebClient;
    let thing: number;
    const hostileUrl = `https://xss.example/?q="><script>alert('u')</script>`;

    beforeAll(async () => {
      owner = await buildWebUser(t.services);
      await updateProfile(
        t.services,
        owner.id,
        parseProfile({
          firstname: XSS,
          lastname: XSS,
          about: XSS,
          city: XSS,
          country: XSS,
          url: `https://xss.example/"><script>alert(1)</script>`,
          avatar: `https://xss.example/a.png"onerror="alert(1)`,
        }),
      );
      thing = await buildThing(
        t.services,
        { user: owner, token: await tokenWith(t.services, owner.username, 'thing') },
        {
          url: hostileUrl,
          title: XSS,
          description: XSS,
          tags: [`tag${XSS_TAG}`],
        },
      );
      visitor = new WebClient(t.app);
      const tipper = await buildWebUser(t.services);
      await visitor.login(tipper.username);
      expect((await visitor.submit(`/thing/${thing}`, `/thing/${thing}/tip`)).statusCode).toBe(303);
    });

    function expectEscaped(body: string) {
      expect(body).not.toContain('<script');
      expect(body).not.toContain('onerror="');
      expect(body).toContain(ESCAPED);
    }

    it('the thing page: title, description, tags and the URL', async () => {
      const body = html(await visitor.get(`/thing/${thing}`));
      expectEscaped(body);
      expect(body).toContain(`<h1>${ESCAPED}</h1>`);
      expect(body).toContain(
        '<a href="https://xss.example/?q=&quot;&gt;&lt;script&gt;alert(&#39;u&#39;)&lt;/script&gt;" rel="nofollow noopener">',
      );
      expect(body).toContain(`">tag${ESCAPED_TAG}</a>`);
      expect(body).not.toContain('href="/tag/tag<');
      expect(body).toContain(`<title>${ESCAPED} · Tipjar</title>`);
    });

    it("the owner's profile: name, about, city, url, avatar and the things list", async () => {
      const body = html(await visitor.get(`/profile/${owner.username}`));
      expectEscaped(body);
      expect(body).toContain(`<p><strong>${ESCAPED} ${ESCAPED}</strong></p>`);
      expect(body).toContain(`<a href="/thing/${thing}">${ESCAPED}</a>`);
      expect(body).toContain('<img class="avatar" src="https://xss.example/a.png&quot;onerror=&quot;alert(1)"');
      expect(body).toContain(
        '<a href="https://xss.example/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" rel="nofollow noopener ugc">',
      );
    });

    it("the tipper's profile: the tips list", async () => {
      const tipperName = /<a href="\/profile\/([^"]+)">/.exec(html(await visitor.get('/settings')))![1]!;
      expectEscaped(html(await visitor.get(`/profile/${tipperName}`)));
    });

    it('the settings page: every profile field in its input', async () => {
      const c = new WebClient(t.app);
      await c.login(owner.username);
      const body = html(await c.get('/settings'));
      expectEscaped(body);
      expect(body).toContain(`name="firstname" value="${ESCAPED}"`);
      expect(body).toContain(`<textarea id="about" name="about" maxlength="1000">${ESCAPED}</textarea>`);
    });

    it('app names on Your applications, Authorized applications and the consent page', async () => {
      const dev = await buildWebUser(t.services);
      const c = new WebClient(t.app);
      await c.login(dev.username);
      const created = html(await c.submit('/apps', '/apps', { name: XSS, callback_domain: 'app.example.com' }), 201);
      expectEscaped(created);
      const clientId = /id="new-client-id">([^<]+)</.exec(created)![1]!;
      expectEscaped(html(await c.get('/apps')));

      const user = await buildWebUser(t.services);
      const u = new WebClient(t.app);
      await u.login(user.username);
      // response_type=token: the grant is a token at once, so the app is listed as authorized
      const consent = html(
        await u.get(
          `/oauth/authorize?response_type=token&client_id=${clientId}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&scope=tip`,
        ),
      );
      expectEscaped(consent);
      expect(consent).toContain(`<h1>Allow “${ESCAPED}” to use your account?</h1>`);
      const approved = await u.post('/oauth/authorize', {
        _csrf: csrfOf(consent),
        request: /name="request" value="([^"]+)"/.exec(consent)![1]!,
        decision: 'approve',
      });
      expect(approved.statusCode).toBe(303);
      expectEscaped(html(await u.get('/authorized')));
    });

    it('usernames full of <script> and quotes are refused, and echoed escaped on the sign-up and log-in forms', async () => {
      const c = new WebClient(t.app, '10.9.9.9');
      const signup = html(
        await c.submit('/signup', '/signup', { username: XSS, email: 'x@example.com', password: PASSWORD }),
        400,
      );
      expectEscaped(signup);
      expect(signup).toContain(`name="username" value="${ESCAPED}"`);
      const login = html(await c.submit('/login', '/login', { username: XSS, password: PASSWORD }), 401);
      expectEscaped(login);
      expect(await db().selectFrom('users').select('id').where('username', 'like', '%<script%').execute()).toHaveLength(
        0,
      );
    });

    it('hostile input in form errors and return paths is escaped', async () => {
      const c = new WebClient(t.app);
      await c.login((await buildWebUser(t.services)).username);
      const bad = html(
        await c.submit('/apps', '/apps', { name: 'ok', callback_domain: `"><script>alert("x'y")</script>` }),
        400,
      );
      expect(bad).not.toContain('<script');
      const page = html(
        await new WebClient(t.app).get(`/login?return_to=${encodeURIComponent(`/x"><script>alert(1)</script>`)}`),
      );
      expect(page).not.toContain('<script');
      expect(page).toContain('name="return_to" value="/x%22%3E%3Cscript%3Ealert(1)%3C/script%3E"');
    });

    it('the claim page: a hostile address in the claim link', async () => {
      const identity = `email:${createHash('md5').update('someone@example.com').digest('hex')}`;
      const body = html(
        await new WebClient(t.app).get(`/claim/${encodeURIComponent(identity)}/owner/${encodeURIComponent(XSS)}`),
      );
      expect(body).not.toContain('<script');
    });

    it("the API keeps the raw text (escaping is the renderer's job)", async () => {
      const res = await t.app.inject({
        url: `${API}/things/${thing}`,
        headers: bearer(await issueToken(t.services, owner.username, 'tip')),
      });
      expect(JSON.parse(res.body).title).toBe(XSS);
    });
  });
});
