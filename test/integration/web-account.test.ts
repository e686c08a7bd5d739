/**
 * Website accounts: sign-up, log-in, log-out, sessions (cookie attributes, hashed ids,
 * new id at log-in, expiry), and same-site return paths (no open redirect). Their limits are in
 * web-limits.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/auth/secrets.ts';
import { SESSION_TTL } from '../../src/web/sessions.ts';
import { safeReturnPath } from '../../src/web/return-path.ts';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, fixedClock, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { uniqueName } from '../helpers/factories.ts';
import { buildWebUser, csrfOf, html, PASSWORD, setCookie, WebClient } from '../helpers/web.ts';

describe.each(ENGINES)('website accounts on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(Date.UTC(2026, 5, 10) / 1000);
  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
  });
  afterAll(async () => t.close());

  const db = () => t.db.database.db;
  const sessionsOf = async (userId: number) =>
    db().selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();

  describe('sign-up', () => {
    it('GET /signup: a form with a CSRF token, readable on a phone, and an HttpOnly SameSite=Lax CSRF cookie', async () => {
      const c = new WebClient(t.app);
      const res = await c.get('/signup');
      const body = html(res);
      expect(body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(body).toContain('<link rel="stylesheet" href="/static/site.css">');
      expect(body).toContain('<form method="post" action="/signup">');
      expect(body).not.toContain('<script');
      expect(csrfOf(body).length).toBeGreaterThan(20);
      const cookie = setCookie(res, 'tipjar_csrf')!;
      expect(cookie).toMatch(/; Path=\/; HttpOnly; SameSite=Lax$/);
      expect(cookie).not.toContain('Secure');
    });

    it('creates the account (scrypt hash), starts a session and goes to the home page', async () => {
      const c = new WebClient(t.app);
      const username = uniqueName('Signup');
      const res = await c.submit('/signup', '/signup', {
        username,
        email: `${username}@example.com`,
        password: PASSWORD,
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/');
      const cookie = setCookie(res, 'tipjar_session')!;
      expect(cookie).toMatch(
        new RegExp(`^tipjar_session=[A-Za-z0-9_-]{43}; Max-Age=${SESSION_TTL}; Path=/; HttpOnly; SameSite=Lax$`),
      );

      const user = await db()
        .selectFrom('users')
        .selectAll()
        .where('username', '=', username)
        .executeTakeFirstOrThrow();
      expect(user.email).toBe(`${username}@example.com`);
      expect(user.password_hash).toMatch(/^scrypt\$65536\$8\$1\$/);
      expect(user.password_hash).not.toContain(PASSWORD);
      // the session id is stored hashed only
      const sessionId = c.cookies.get('tipjar_session')!;
      const rows = await sessionsOf(user.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.id_hash).toBe(hashSecret(sessionId));
      expect(rows[0]!.expires_at).toBe(clock.now() + SESSION_TTL);
      expect(JSON.stringify(rows)).not.toContain(sessionId);

      const home = html(await c.get('/'));
      expect(home).toContain('Welcome to Tipjar! Your account is ready.');
      expect(home).toContain(`You are logged in as <strong>${username}</strong>`);
      expect(home).toContain('<form method="post" action="/logout">');
    });

    it('goes on to a same-site return_to after sign-up', async () => {
      const c = new WebClient(t.app);
      const page = html(await c.get('/signup?return_to=%2Fthing%2F7'));
      expect(page).toContain('<input type="hidden" name="return_to" value="/thing/7">');
      const username = uniqueName('ret');
      const res = await c.post('/signup', {
        _csrf: csrfOf(page),
        username,
        email: `${username}@example.com`,
        password: PASSWORD,
        return_to: '/thing/7',
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/thing/7');
    });

    it.each([
      ['a bad username', { username: 'a' }, 'Invalid username'],
      ['a username with a dot', { username: 'bad.name' }, 'Invalid username'],
      ['a short password', { password: 'short' }, 'The password must have at least 8 characters.'],
      ['no e-mail', { email: '' }, 'Please enter your e-mail address.'],
      ['a bad e-mail', { email: 'not-an-email' }, 'Invalid email'],
    ])('refuses %s with 400 and the reason, creating nothing', async (_name, change, message) => {
      const c = new WebClient(t.app);
      const username = uniqueName('bad');
      const before = await db().selectFrom('users').select('id').execute();
      const res = await c.submit('/signup', '/signup', {
        username,
        email: `${username}@example.com`,
        password: PASSWORD,
        ...change,
      });
      const body = html(res, 400);
      expect(body).toContain(message);
      expect(setCookie(res, 'tipjar_session')).toBeUndefined();
      expect(await db().selectFrom('users').select('id').execute()).toHaveLength(before.length);
    });

    it('refuses a taken username, case-insensitively, keeping the form values', async () => {
      const existing = await buildWebUser(t.services);
      const c = new WebClient(t.app);
      const res = await c.submit('/signup', '/signup', {
        username: existing.username.toUpperCase(),
        email: 'x@example.com',
        password: PASSWORD,
      });
      const body = html(res, 400);
      expect(body).toContain(`The username &quot;${existing.username.toUpperCase()}&quot; is taken`);
      expect(body).toContain('value="x@example.com"');
    });

    it('a logged-in visitor opening /signup or /login goes on to return_to', async () => {
      const user = await buildWebUser(t.services);
      const c = new WebClient(t.app);
      await c.login(user.username);
      for (const page of ['/signup', '/login']) {
        const res = await c.get(`${page}?return_to=%2Fsettings`);
        expect(res.statusCode).toBe(302);
        expect(res.headers.location).toBe('/settings');
      }
    });
  });

  describe('log-in and log-out', () => {
    it('logs in with the right password (username case-insensitive) and goes to return_to', async () => {
      const user = await buildWebUser(t.services);
      const c = new WebClient(t.app);
      const res = await c.submit('/login?return_to=%2Fapps', '/login', {
        username: user.username.toUpperCase(),
        password: PASSWORD,
        return_to: '/apps',
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/apps');
      expect(setCookie(res, 'tipjar_session')).toMatch(/HttpOnly; SameSite=Lax$/);
      expect(await sessionsOf(user.id)).toHaveLength(1);
      expect(html(await c.get('/settings'))).toContain('<h1>Settings</h1>');
    });

    it('a wrong password and an unknown user get the same 401 message and no session', async () => {
      const user = await buildWebUser(t.services);
      for (const [username, password] of [
        [user.username, 'wrong password'],
        [uniqueName('nobody'), PASSWORD],
      ]) {
        const c = new WebClient(t.app, '10.0.0.1');
        const res = await c.submit('/login', '/login', { username: username!, password: password! });
        const body = html(res, 401);
        expect(body).toContain('Wrong username or password.');
        expect(body).toContain(`value="${username}"`);
        expect(setCookie(res, 'tipjar_session')).toBeUndefined();
      }
      expect(await sessionsOf(user.id)).toHaveLength(0);
    });

    it('a user created without a password (operator command) cannot log in', async () => {
      const { registerUser } = await import('../../src/domain/users.ts');
      const u = await registerUser(t.services, { username: uniqueName('nopw'), email: 'n@example.com' });
      const c = new WebClient(t.app, '10.0.0.2');
      html(await c.submit('/login', '/login', { username: u.username, password: '' }), 401);
      html(await c.submit('/login', '/login', { username: u.username, password: 'anything at all' }), 401);
    });

    it('log-out deletes the session row, clears the cookie, and the old cookie no longer works', async () => {
      const user = await buildWebUser(t.services);
      const c = new WebClient(t.app);
      await c.login(user.username);
      const oldId = c.cookies.get('tipjar_session')!;
      const token = await c.csrf('/settings');
      const res = await c.post('/logout', { _csrf: token });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/login');
      expect(setCookie(res, 'tipjar_session')).toMatch(
        /^tipjar_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/,
      );
      expect(await sessionsOf(user.id)).toHaveLength(0);
      expect(html(await c.get('/login'))).toContain('You are logged out.');
      // replaying the old cookie: logged out
      const replay = await t.app.inject({ url: '/settings', headers: { cookie: `tipjar_session=${oldId}` } });
      expect(replay.statusCode).toBe(302);
      expect(replay.headers.location).toBe('/login?return_to=%2Fsettings');
    });

    it('session fixation: a session id planted before log-in is replaced by a new one, and the old row is deleted', async () => {
      const user = await buildWebUser(t.services);
      const c = new WebClient(t.app);
      c.cookies.set('tipjar_session', 'attacker-chosen-session-id');
      await c.login(user.username);
      const first = c.cookies.get('tipjar_session')!;
      expect(first).not.toBe('attacker-chosen-session-id');
      const planted = await t.app.inject({
        url: '/settings',
        headers: { cookie: 'tipjar_session=attacker-chosen-session-id' },
      });
      expect(planted.statusCode).toBe(302);

      // logging in again while logged in: a new id again, the previous session is gone
      const again = await c.post('/login', {
        _csrf: await c.csrf('/settings'),
        username: user.username,
        password: PASSWORD,
      });
      expect(again.statusCode).toBe(303);
      const second = c.cookies.get('tipjar_session')!;
      expect(second).not.toBe(first);
      const rows = await sessionsOf(user.id);
      expect(rows.map((r) => r.id_hash)).toEqual([hashSecret(second)]);
      const old = await t.app.inject({ url: '/settings', headers: { cookie: `tipjar_session=${first}` } });
      expect(old.statusCode).toBe(302);
    });

    it('a session expires after SESSION_TTL (injected clock)', async () => {
      const user = await buildWebUser(t.services);
      const c = new WebClient(t.app);
      await c.login(user.username);
      clock.advance(SESSION_TTL - 1);
      expect((await c.get('/settings')).statusCode).toBe(200);
      clock.advance(1);
      const res = await c.get('/settings');
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/login?return_to=%2Fsettings');
      // the next log-in (from another browser) tidies the expired row away
      expect(await sessionsOf(user.id)).toHaveLength(1);
      await new WebClient(t.app).login(user.username);
      const rows = await sessionsOf(user.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.expires_at).toBe(clock.now() + SESSION_TTL);
    });
  });

  describe('return paths: same-site only (no open redirect)', () => {
    const attempts = [
      'https://evil.example/',
      'http://evil.example',
      '//evil.example/path',
      '/\\evil.example',
      '\\\\evil.example',
      '/\\/evil.example',
      'javascript:alert(1)',
      'evil.example',
      ' /settings',
      'https:evil.example',
      `${PUBLIC_URL}@evil.example/`,
    ];
    let user: Awaited<ReturnType<typeof buildWebUser>>;
    let loggedIn: WebClient;
    beforeAll(async () => {
      user = await buildWebUser(t.services);
      loggedIn = new WebClient(t.app);
      await loggedIn.login(user.username);
    });

    it.each(attempts)(
      'return_to=%j: the log-in and sign-up forms carry "/" and a logged-in visitor is sent to /',
      async (target) => {
        const anonymous = new WebClient(t.app);
        for (const page of ['/login', '/signup']) {
          const body = html(await anonymous.get(`${page}?return_to=${encodeURIComponent(target)}`));
          expect(body).toContain('<input type="hidden" name="return_to" value="/">');
          const res = await loggedIn.get(`${page}?return_to=${encodeURIComponent(target)}`);
          expect(res.statusCode).toBe(302);
          expect(res.headers.location).toBe('/');
        }
      },
    );

    it.each(['/\r\nLocation: https://evil.example', '/\tevil', '/\u0000x'])(
      'return_to=%j: refused with a 400 page, no redirect',
      async (target) => {
        for (const client of [new WebClient(t.app), loggedIn]) {
          for (const page of ['/login', '/signup']) {
            const res = await client.get(`${page}?return_to=${encodeURIComponent(target)}`);
            expect(html(res, 400)).toContain(
              'The query parameter &quot;return_to&quot; holds a control character or malformed text',
            );
            expect(res.headers.location).toBeUndefined();
          }
        }
        // in a form, line breaks may be text (the return path then falls back to /); other controls are refused
        const res = await new WebClient(t.app).submit('/login', '/login', {
          username: user.username,
          password: PASSWORD,
          return_to: `${target}\u0001`,
        });
        expect(res.statusCode).toBe(400);
        expect(res.headers.location).toBeUndefined();
      },
    );

    it.each(['https://evil.example/', '//evil.example/path', '/\\evil.example'])(
      'POST /login with return_to=%j goes to /',
      async (target) => {
        const c = new WebClient(t.app);
        const res = await c.submit('/login', '/login', {
          username: user.username,
          password: PASSWORD,
          return_to: target,
        });
        expect(res.statusCode).toBe(303);
        expect(res.headers.location).toBe('/');
      },
    );

    it('keeps same-site paths with their query', () => {
      const site = PUBLIC_URL;
      expect(safeReturnPath('/oauth/authorize?client_id=abc&scope=tip%20thing&state=x', site)).toBe(
        '/oauth/authorize?client_id=abc&scope=tip%20thing&state=x',
      );
      expect(safeReturnPath('/thing/12', site)).toBe('/thing/12');
      expect(safeReturnPath('/a/../settings', site)).toBe('/settings');
      expect(safeReturnPath(['/x'], site)).toBe('/');
      expect(safeReturnPath(`/${'a'.repeat(5000)}`, site)).toBe('/');
    });
  });

  describe('https site', () => {
    it('cookies are Secure when SITE_URL is https', async () => {
      const secure = await buildTestApp(engine, { env: { SITE_URL: 'https://tipjar.test' } });
      try {
        const user = await buildWebUser(secure.services);
        const c = new WebClient(secure.app);
        const page = await c.get('/login');
        expect(setCookie(page, 'tipjar_csrf')).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
        const res = await c.post('/login', { _csrf: csrfOf(page.body), username: user.username, password: PASSWORD });
        expect(res.statusCode).toBe(303);
        expect(setCookie(res, 'tipjar_session')).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
      } finally {
        await secure.close();
      }
    });
  });
});
