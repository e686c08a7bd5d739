/**
 * The authorization endpoint's pages, `GET/POST /oauth/authorize` (RFC 6749 §4.1.1,
 * §4.1.2, §4.1.2.1, §4.2.2): error page vs redirect, log-in then back, the consent page, Approve /
 * Deny, the signed consent form (tampering, another session, expiry), and the whole code flow
 * through POST /oauth/token to a tip with the issued token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_DESCRIPTIONS } from '../../src/auth/oauth/authorize.ts';
import { deleteClient } from '../../src/auth/oauth/clients.ts';
import { CONSENT_TTL } from '../../src/web/routes/authorize.ts';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, uniqueName } from '../helpers/factories.ts';
import { basic, buildClient, pkcePair, REDIRECT_URI, type TestClient } from '../helpers/oauth.ts';
import { buildWebUser, csrfOf, html, PASSWORD, WebClient } from '../helpers/web.ts';

describe.each(ENGINES)('authorization endpoint pages on %s', (engine) => {
  let t: TestApp;
  let client: TestClient;
  const clock = fixedClock(Date.UTC(2026, 2, 15) / 1000);
  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
    client = await buildClient(t.services, { name: 'Reader App' });
  });
  afterAll(async () => t.close());

  const db = () => t.db.database.db;
  const codeCount = async () => (await db().selectFrom('oauth_codes').select('id').execute()).length;
  const authorizeUrl = (params: Record<string, string>, c: TestClient = client) =>
    `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: c.clientId, redirect_uri: REDIRECT_URI, ...params })}`;

  async function loggedIn() {
    const user = await buildWebUser(t.services);
    const c = new WebClient(t.app);
    await c.login(user.username);
    return { user, c };
  }

  /** The hidden signed request on a consent page. */
  const signedOf = (body: string) => /name="request" value="([^"]+)"/.exec(body)![1]!;

  describe('RFC 6749 §4.1.2.1: invalid client or redirect_uri → an error page, never a redirect', () => {
    it.each([
      ['no client_id', { client_id: '' }, 'client_id is required'],
      ['an unknown client_id', { client_id: 'no-such-client' }, 'No application has this client_id'],
      ['a redirect_uri outside the callback domain', { redirect_uri: 'https://evil.example/cb' }, ''],
      ['a redirect_uri on a look-alike domain', { redirect_uri: 'https://app.example.com.evil.example/cb' }, ''],
      ['a plain http redirect_uri', { redirect_uri: 'http://app.example.com/cb' }, ''],
    ])('%s', async (_name, params, message) => {
      const { c } = await loggedIn();
      const res = await c.get(authorizeUrl(params));
      const body = html(res, 400);
      expect(res.headers.location).toBeUndefined();
      expect(body).toContain('This application link is not valid');
      expect(body).toContain('you were not sent anywhere');
      if (message) expect(body).toContain(message);
      expect(body).not.toContain('evil.example/cb"');
    });

    it('an unknown client is refused before any log-in is asked for', async () => {
      const res = await new WebClient(t.app).get(authorizeUrl({ client_id: 'nope' }));
      html(res, 400);
    });
  });

  describe('RFC 6749 §4.1.2.1: other errors → redirected to the client with error and state', () => {
    it.each([
      ['an unknown response_type', { response_type: 'password' }, 'unsupported_response_type'],
      ['no response_type', { response_type: '' }, 'invalid_request'],
      ['an unknown scope', { scope: 'tip admin' }, 'invalid_scope'],
      ['PKCE plain', { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
    ])('%s → 302 with error', async (_name, params, error) => {
      const res = await new WebClient(t.app).get(authorizeUrl({ state: 'st-123', ...params }));
      expect(res.statusCode).toBe(302);
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe('st-123');
    });
  });

  describe('not logged in → the log-in page, then back to the same authorize URL', () => {
    it('logs in and returns to the consent page', async () => {
      const user = await buildWebUser(t.services);
      const c = new WebClient(t.app);
      const url = authorizeUrl({ scope: 'tip', state: 'abc' });
      const res = await c.get(url);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(`/login?return_to=${encodeURIComponent(url)}`);
      const login = html(await c.get(res.headers.location as string));
      const back = await c.post('/login', {
        _csrf: csrfOf(login),
        username: user.username,
        password: PASSWORD,
        return_to: url,
      });
      expect(back.statusCode).toBe(303);
      expect(back.headers.location).toBe(url);
      expect(html(await c.get(url))).toContain('Allow “Reader App” to use your account?');
    });

    it('signing up on the way works too', async () => {
      const c = new WebClient(t.app);
      const url = authorizeUrl({ scope: 'thing' });
      const signup = html(await c.get(`/signup?return_to=${encodeURIComponent(url)}`));
      const res = await c.post('/signup', {
        _csrf: csrfOf(signup),
        username: uniqueName('via'),
        email: 'n@example.com',
        password: PASSWORD,
        return_to: url,
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(url);
    });
  });

  describe('the consent page', () => {
    it('names the app and each scope in plain words, with Approve and Deny forms', async () => {
      const { user, c } = await loggedIn();
      const before = await codeCount();
      const body = html(await c.get(authorizeUrl({ scope: 'tip,thing extendedread', state: 's' })));
      expect(body).toContain('<h1>Allow “Reader App” to use your account?</h1>');
      expect(body).toContain(`<strong>Reader App</strong> wants to act for <strong>${user.username}</strong>`);
      for (const scope of ['tip', 'thing', 'extendedread'] as const)
        expect(body).toContain(`<li>${SCOPE_DESCRIPTIONS[scope]}</li>`);
      expect(body).toContain('You will be sent back to <span class="mono">app.example.com</span>');
      expect(body.match(/<form method="post" action="\/oauth\/authorize">/g)).toHaveLength(2);
      expect(body).toContain('<input type="hidden" name="decision" value="approve">');
      expect(body).toContain('<input type="hidden" name="decision" value="deny">');
      expect(await codeCount()).toBe(before); // showing the page issues nothing
    });

    it('Approve → 303 to the client with code and state; the code is exchanged at /oauth/token and the token tips', async () => {
      const { user, c } = await loggedIn();
      const { verifier, challenge } = pkcePair();
      const page = html(
        await c.get(
          authorizeUrl({ scope: 'tip', state: 'xyz', code_challenge: challenge, code_challenge_method: 'S256' }),
        ),
      );
      const res = await c.post('/oauth/authorize', {
        _csrf: csrfOf(page),
        request: signedOf(page),
        decision: 'approve',
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers['cache-control']).toBe('no-store');
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect([...location.searchParams.keys()].sort()).toEqual(['code', 'state']);
      expect(location.searchParams.get('state')).toBe('xyz');

      const exchanged = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/json', ...basic(client.clientId, client.clientSecret) },
        payload: {
          grant_type: 'authorization_code',
          code: location.searchParams.get('code'),
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
        },
      });
      expect(exchanged.statusCode, exchanged.body).toBe(200);
      const { access_token: token, scope } = json(exchanged);
      expect(scope).toBe('tip');
      const owner = await buildUser(t.services);
      const thing = await buildThing(t.services, owner);
      const tipped = await t.app.inject({ method: 'POST', url: `${API}/things/${thing}/tip`, headers: bearer(token) });
      expect(tipped.statusCode, tipped.body).toBe(200);
      const tip = await db().selectFrom('tips').selectAll().where('thing_id', '=', thing).executeTakeFirstOrThrow();
      expect(tip).toMatchObject({ tipper_id: user.id, client_id: client.client.id });
    });

    it('Deny → 303 to the client with error=access_denied and state; nothing issued', async () => {
      const { c } = await loggedIn();
      const before = await codeCount();
      const page = html(await c.get(authorizeUrl({ scope: 'tip', state: 'no-thanks' })));
      const res = await c.post('/oauth/authorize', { _csrf: csrfOf(page), request: signedOf(page), decision: 'deny' });
      expect(res.statusCode).toBe(303);
      const location = new URL(res.headers.location as string);
      expect(location.searchParams.get('error')).toBe('access_denied');
      expect(location.searchParams.get('state')).toBe('no-thanks');
      expect(location.searchParams.get('code')).toBeNull();
      expect(await codeCount()).toBe(before);
    });

    it('response_type=token → the token in the fragment (RFC 6749 §4.2.2), and it works', async () => {
      const { c } = await loggedIn();
      const page = html(await c.get(authorizeUrl({ response_type: 'token', scope: 'extendedread', state: 'frag' })));
      const res = await c.post('/oauth/authorize', {
        _csrf: csrfOf(page),
        request: signedOf(page),
        decision: 'approve',
      });
      expect(res.statusCode).toBe(303);
      const location = res.headers.location as string;
      expect(location.startsWith(`${REDIRECT_URI}#`)).toBe(true);
      const fragment = new URLSearchParams(location.split('#')[1]);
      expect(fragment.get('token_type')).toBe('bearer');
      expect(fragment.get('state')).toBe('frag');
      const me = await t.app.inject({ url: `${API}/user`, headers: bearer(fragment.get('access_token')!) });
      expect(me.statusCode).toBe(200);
      expect(json(me)).toHaveProperty('email');
    });

    it('an unknown decision → 400 page, nothing issued', async () => {
      const { c } = await loggedIn();
      const before = await codeCount();
      const page = html(await c.get(authorizeUrl({ scope: 'tip' })));
      html(await c.post('/oauth/authorize', { _csrf: csrfOf(page), request: signedOf(page), decision: 'maybe' }), 400);
      expect(await codeCount()).toBe(before);
    });
  });

  describe('the signed consent form cannot be tampered with', () => {
    it('an altered request (scope widened) → 400 page, nothing issued', async () => {
      const { c } = await loggedIn();
      const before = await codeCount();
      const page = html(await c.get(authorizeUrl({ scope: 'tip' })));
      const [body, sig] = signedOf(page).split('.');
      const payload = JSON.parse(Buffer.from(body!, 'base64url').toString());
      payload.q.scope = 'tip thing extendedread';
      const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`;
      const res = await c.post('/oauth/authorize', { _csrf: csrfOf(page), request: forged, decision: 'approve' });
      expect(html(res, 400)).toContain('The authorization request was altered or is too old.');
      expect(res.headers.location).toBeUndefined();
      for (const bad of ['', 'garbage', `${body}.`, `${body}.${sig}.x`]) {
        html(await c.post('/oauth/authorize', { _csrf: csrfOf(page), request: bad, decision: 'approve' }), 400);
      }
      expect(await codeCount()).toBe(before);
    });

    it("another session's signed request → 400 page", async () => {
      const a = await loggedIn();
      const b = await loggedIn();
      const pageA = html(await a.c.get(authorizeUrl({ scope: 'tip' })));
      const pageB = html(await b.c.get(authorizeUrl({ scope: 'tip' })));
      const res = await b.c.post('/oauth/authorize', {
        _csrf: csrfOf(pageB),
        request: signedOf(pageA),
        decision: 'approve',
      });
      html(res, 400);
    });

    it('a consent page older than CONSENT_TTL → 400 page', async () => {
      const { c } = await loggedIn();
      const page = html(await c.get(authorizeUrl({ scope: 'tip' })));
      clock.advance(CONSENT_TTL + 1);
      try {
        const res = await c.post('/oauth/authorize', {
          _csrf: csrfOf(page),
          request: signedOf(page),
          decision: 'approve',
        });
        expect(html(res, 400)).toContain('This consent page has expired');
      } finally {
        clock.advance(-(CONSENT_TTL + 1));
      }
    });

    it('the client deleted between consent and approval → 400 page, no redirect, nothing issued', async () => {
      const doomed = await buildClient(t.services, { name: 'Doomed App' });
      const { c } = await loggedIn();
      const before = await codeCount();
      const page = html(await c.get(authorizeUrl({ scope: 'tip' }, doomed)));
      await deleteClient(t.services, doomed.clientId);
      const res = await c.post('/oauth/authorize', {
        _csrf: csrfOf(page),
        request: signedOf(page),
        decision: 'approve',
      });
      html(res, 400);
      expect(res.headers.location).toBeUndefined();
      expect(await codeCount()).toBe(before);
    });

    it('POST /oauth/authorize without a session → the log-in page', async () => {
      const c = new WebClient(t.app);
      const res = await c.submit('/login', '/oauth/authorize', { request: 'x', decision: 'approve' });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/login');
    });
  });
});
