/**
 * Password reset, password change and address change on the website (src/web/routes/password.ts,
 * src/domain/credentials.ts), on every engine, with the messages sent through the mail dispatcher
 * to a real SMTP server on 127.0.0.1 and their links followed: a reset link works once, expires
 * after an hour, ends every session and logs the user in; asking for a link answers the same for
 * unknown and known addresses (only the known one gets mail), with a per-address limit that is the
 * same for both; changing the password needs the current one and ends the other sessions; changing
 * the address sends a verification link to the new one and tells the old one.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/domain/secrets.ts';
import type { UserRecord } from '../../src/domain/records.ts';
import { deliverDueMail } from '../../src/mail/dispatcher.ts';
import { smtpTransport, type MailTransport } from '../../src/mail/transport.ts';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, fixedClock, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { uniqueName } from '../helpers/factories.ts';
import { linkIn, TestSmtpServer, type ReceivedMail } from '../helpers/smtp.ts';
import { buildWebUser, csrfOf, html, PASSWORD, WebClient } from '../helpers/web.ts';

const FROM = 'Tipjar <no-reply@tipjar.test>';
const RESET_SUBJECT = 'Reset your Tipjar password';
const SENT = 'If an account has this address, we sent it a link to choose a new password.';
const DEAD = 'This link to reset your password has expired or was already used.';
const NEW_PASSWORD = 'a brand new passphrase';
/** Failed log-ins per (username, IP) in this suite, so the pause is reached in a few attempts. */
const PAIR_FAILURES = 3;

let ipSeq = 0;
/** A client address no other test uses (every form counts against its IP). */
const freshIp = () => `10.9.${(++ipSeq >> 8) & 255}.${ipSeq & 255}`;

/** A page's HTML with its CSRF tokens blanked (they differ per visitor and per page). */
const withoutCsrf = (body: string) => body.replace(/name="_csrf" value="[^"]*"/g, 'name="_csrf" value=""');

describe.each(ENGINES)('password reset and credential changes on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(Date.UTC(2026, 6, 1, 9) / 1000);
  const smtp = new TestSmtpServer();
  let transport: MailTransport;

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock, env: { LOGIN_FAILURES_PER_USER_AND_IP: String(PAIR_FAILURES) } });
    await smtp.start();
    transport = smtpTransport(smtp.url, { from: FROM, timeoutMs: 2000 });
  });
  afterAll(async () => {
    transport.close();
    await smtp.stop();
    await t.close();
  });

  const db = () => t.db.database.db;
  const userRow = (id: number) => db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const sessionCount = async (userId: number) =>
    (await db().selectFrom('sessions').select('id_hash').where('user_id', '=', userId).execute()).length;
  const client = () => new WebClient(t.app, freshIp());
  /** Sends what the outbox holds, through SMTP. */
  const deliver = () => deliverDueMail(t.services, transport);
  const resetMailsTo = (address: string) => smtp.to(address).filter((m) => m.subject === RESET_SUBJECT);
  /** The path of a mailed link (the site's origin is PUBLIC_URL). */
  const pathOf = (link: string) => {
    expect(link.startsWith(`${PUBLIC_URL}/`)).toBe(true);
    return new URL(link).pathname;
  };

  /** A user logged in on a new client. */
  async function loggedIn(): Promise<{ user: UserRecord; c: WebClient }> {
    const user = await buildWebUser(t.services);
    const c = client();
    await c.login(user.username);
    return { user, c };
  }

  /** Asks for a reset link for `address` through the form, delivers the mail, returns the link's path. */
  async function resetLinkFor(address: string): Promise<string> {
    const before = resetMailsTo(address).length;
    const res = await client().submit('/password/forgot', '/password/forgot', { email: address });
    expect(res.statusCode, res.body).toBe(303);
    await deliver();
    const mails = resetMailsTo(address);
    expect(mails).toHaveLength(before + 1);
    return pathOf(linkIn(mails.at(-1)!, `${PUBLIC_URL}/password/reset/`));
  }

  /** Logs in through the form; returns the status (303: in, 401: wrong password). */
  const tryLogin = async (username: string, password: string) =>
    (await client().submit('/login', '/login', { username, password })).statusCode;

  describe('asking for a reset link', () => {
    it('the log-in page links to "Forgot your password?", a form with a CSRF token', async () => {
      const c = client();
      expect(html(await c.get('/login'))).toContain('<a href="/password/forgot">Forgot your password?</a>');
      const page = html(await c.get('/password/forgot'));
      expect(page).toContain('<form method="post" action="/password/forgot">');
      expect(page).toContain('name="email"');
      expect(csrfOf(page).length).toBeGreaterThan(20);
    });

    it('answers an unknown and a known address alike (status, headers, page); only the known one gets a link, stored hashed', async () => {
      const user = await buildWebUser(t.services);
      const unknown = `${uniqueName('nobody')}@example.com`;
      const answer = async (email: string) => {
        const c = client();
        const token = await c.csrf('/password/forgot');
        const res = await c.post('/password/forgot', { _csrf: token, email });
        const page = await c.get(String(res.headers.location));
        return { res, page };
      };
      // the known address typed with other letter cases and spaces around it
      const known = await answer(`  ${user.email.toUpperCase()} `);
      const other = await answer(unknown);

      const shape = ({ res }: { res: LightMyRequestResponse }) => {
        const { date: _date, ...headers } = res.headers;
        return { status: res.statusCode, headers, body: res.body };
      };
      expect(shape(known)).toEqual(shape(other));
      expect(known.res.statusCode).toBe(303);
      expect(known.res.headers.location).toBe('/password/forgot');
      const page = html(known.page);
      expect(page).toContain(SENT);
      expect(withoutCsrf(page)).toBe(withoutCsrf(html(other.page)));
      expect(known.page.statusCode).toBe(other.page.statusCode);

      await deliver();
      expect(smtp.to(unknown)).toEqual([]);
      const [mail] = resetMailsTo(user.email);
      expect(mail!.text).toContain(`Hello ${user.username},`);
      const token = linkIn(mail!, `${PUBLIC_URL}/password/reset/`).split('/').at(-1)!;
      const rows = await db()
        .selectFrom('account_tokens')
        .selectAll()
        .where('user_id', '=', user.id)
        .where('purpose', '=', 'password_reset')
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        token_hash: hashSecret(token),
        detail: user.email,
        expires_at: clock.now() + 3600,
        used_at: null,
      });
      expect(JSON.stringify(rows)).not.toContain(token);
    });

    it('limits requests per address to 5 an hour, from any IP, alike for unknown and known addresses', async () => {
      const user = await buildWebUser(t.services);
      const unknown = `${uniqueName('nobody')}@example.com`;
      const refusals: string[] = [];
      for (const address of [user.email, unknown]) {
        for (let i = 0; i < 5; i++) {
          const res = await client().submit('/password/forgot', '/password/forgot', { email: address });
          expect(res.statusCode).toBe(303);
        }
        const refused = await client().submit('/password/forgot', '/password/forgot', { email: address });
        const body = html(refused, 429);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        expect(body).toContain('Too many password resets were asked for this address in the last hour.');
        refusals.push(withoutCsrf(body).replace(`value="${address}"`, 'value=""'));
      }
      expect(refusals[0]).toBe(refusals[1]);
      await deliver();
      expect(resetMailsTo(user.email)).toHaveLength(5);
      expect(smtp.to(unknown)).toEqual([]);
    });

    it('refuses an empty or malformed address with 400 and the form, queuing nothing', async () => {
      for (const email of ['', '   ', 'not an address', 'a@b', 'two@@example.com']) {
        const res = await client().submit('/password/forgot', '/password/forgot', { email });
        const body = html(res, 400);
        expect(body, JSON.stringify(email)).toMatch(/Please enter (your|a valid) e-mail address\./);
        expect(body).toContain('<form method="post" action="/password/forgot">');
      }
      expect((await deliver()).attempted).toBe(0);
    });

    it('refuses a form without a valid CSRF token (403), queuing nothing', async () => {
      const user = await buildWebUser(t.services);
      await deliver();
      const res = await client().post('/password/forgot', { email: user.email });
      expect(res.statusCode).toBe(403);
      expect((await deliver()).attempted).toBe(0);
    });
  });

  describe('the reset link', () => {
    it('works once: GET leaves it live, POST sets the password, ends every session, marks the address verified and logs in', async () => {
      const { user, c: old } = await loggedIn();
      const other = client();
      await other.login(user.username);
      expect(await sessionCount(user.id)).toBe(2);
      expect((await userRow(user.id)).email_verified_at).toBeNull();

      const path = await resetLinkFor(user.email);
      const visitor = client();
      // a mail scanner's prefetch, then the person: both see the form
      for (let i = 0; i < 2; i++) {
        const page = html(await visitor.get(path));
        expect(page).toContain(`<form method="post" action="${path}">`);
        expect(page).toContain(`<strong>${user.username}</strong>`);
      }
      // too short: 400, the link still works
      const short = await visitor.submit(path, path, { password: 'short' });
      expect(html(short, 400)).toContain('The password must have at least 8 characters.');
      expect(await tryLogin(user.username, PASSWORD)).toBe(303);

      const done = await visitor.submit(path, path, { password: NEW_PASSWORD });
      expect(done.statusCode).toBe(303);
      expect(done.headers.location).toBe('/settings');
      // the visitor is logged in, in a new session; every earlier session is gone
      expect(await sessionCount(user.id)).toBe(1);
      const settings = html(await visitor.get('/settings'));
      expect(settings).toContain(`<span class="who">${user.username}</span>`);
      expect(settings).toContain('Your password was changed.');
      expect((await old.get('/settings')).statusCode).toBe(302);
      expect((await other.get('/settings')).headers.location).toBe('/login?return_to=%2Fsettings');
      // the link went to the account's address: following it proves the address
      expect((await userRow(user.id)).email_verified_at).toBe(clock.now());
      expect(await tryLogin(user.username, PASSWORD)).toBe(401);
      expect(await tryLogin(user.username, NEW_PASSWORD)).toBe(303);

      // a second use fails, and changes nothing
      const again = client();
      const dead = html(await again.get(path), 404);
      expect(dead).toContain(DEAD);
      expect(dead).toContain('<a href="/password/forgot">');
      const second = await again.post(path, {
        _csrf: await again.csrf('/password/forgot'),
        password: 'yet another passphrase',
      });
      expect(html(second, 404)).toContain(DEAD);
      expect(await tryLogin(user.username, 'yet another passphrase')).toBe(401);
      expect(await tryLogin(user.username, NEW_PASSWORD)).toBe(303);
    });

    it('expires after one hour', async () => {
      const user = await buildWebUser(t.services);
      const path = await resetLinkFor(user.email);
      const c = client();
      clock.advance(3599);
      html(await c.get(path));
      const token = csrfOf((await c.get(path)).body);
      clock.advance(1);
      expect(html(await c.get(path), 404)).toContain(DEAD);
      expect(html(await c.post(path, { _csrf: token, password: NEW_PASSWORD }), 404)).toContain(DEAD);
      expect(await tryLogin(user.username, NEW_PASSWORD)).toBe(401);
      expect(await tryLogin(user.username, PASSWORD)).toBe(303);
    });

    it('using one link ends the account’s other reset links', async () => {
      const user = await buildWebUser(t.services);
      const first = await resetLinkFor(user.email);
      const second = await resetLinkFor(user.email);
      expect(first).not.toBe(second);
      expect((await client().submit(second, second, { password: NEW_PASSWORD })).statusCode).toBe(303);
      expect(html(await client().get(first), 404)).toContain(DEAD);
    });

    it('two requests racing with one link: exactly one sets the password', async () => {
      const user = await buildWebUser(t.services);
      const path = await resetLinkFor(user.email);
      const [a, b] = [client(), client()];
      const [ta, tb] = [csrfOf((await a.get(path)).body), csrfOf((await b.get(path)).body)];
      const results = await Promise.all([
        a.post(path, { _csrf: ta, password: 'password of racer a' }),
        b.post(path, { _csrf: tb, password: 'password of racer b' }),
      ]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([303, 404]);
      const winner = results[0]!.statusCode === 303 ? 'a' : 'b';
      expect(await tryLogin(user.username, `password of racer ${winner}`)).toBe(303);
      expect(await tryLogin(user.username, `password of racer ${winner === 'a' ? 'b' : 'a'}`)).toBe(401);
      expect(await sessionCount(user.id)).toBe(2); // the winner's session and the log-in just above
    });

    it('an unknown token is the same page as a dead link, and changes nothing', async () => {
      const c = client();
      const page = html(await c.get('/password/reset/not-a-token'), 404);
      expect(page).toContain(DEAD);
      const res = await c.post('/password/reset/not-a-token', {
        _csrf: await c.csrf('/password/forgot'),
        password: NEW_PASSWORD,
      });
      expect(html(res, 404)).toContain(DEAD);
    });
  });

  describe('settings: change password', () => {
    it('needs the current password, then ends every other session and keeps this one', async () => {
      const { user, c } = await loggedIn();
      const elsewhere = client();
      await elsewhere.login(user.username);

      const wrong = await c.submit('/settings', '/settings/password', {
        current_password: 'not my password',
        password: NEW_PASSWORD,
      });
      expect(html(wrong, 403)).toContain('The current password is wrong.');
      const short = await c.submit('/settings', '/settings/password', {
        current_password: PASSWORD,
        password: 'short',
      });
      expect(html(short, 400)).toContain('The password must have at least 8 characters.');
      const noCsrf = await c.post('/settings/password', { current_password: PASSWORD, password: NEW_PASSWORD });
      expect(noCsrf.statusCode).toBe(403);
      expect(await sessionCount(user.id)).toBe(2);
      expect(await tryLogin(user.username, NEW_PASSWORD)).toBe(401);

      const done = await c.submit('/settings', '/settings/password', {
        current_password: PASSWORD,
        password: NEW_PASSWORD,
      });
      expect(done.statusCode).toBe(303);
      expect(done.headers.location).toBe('/settings');
      expect(html(await c.get('/settings'))).toContain('Your password was changed.');
      expect((await elsewhere.get('/settings')).statusCode).toBe(302);
      expect(await sessionCount(user.id)).toBe(1);
      expect(await tryLogin(user.username, PASSWORD)).toBe(401);
      expect(await tryLogin(user.username, NEW_PASSWORD)).toBe(303);
    });

    it('ends the account’s open reset links', async () => {
      const { user, c } = await loggedIn();
      const path = await resetLinkFor(user.email);
      const done = await c.submit('/settings', '/settings/password', {
        current_password: PASSWORD,
        password: NEW_PASSWORD,
      });
      expect(done.statusCode).toBe(303);
      expect(html(await client().get(path), 404)).toContain(DEAD);
    });

    it('counts wrong current passwords as failed log-ins: past the limit, password checks pause (429)', async () => {
      const { user, c } = await loggedIn();
      for (let i = 0; i < PAIR_FAILURES; i++) {
        const res = await c.submit('/settings', '/settings/password', {
          current_password: `wrong ${i}`,
          password: NEW_PASSWORD,
        });
        expect(res.statusCode).toBe(403);
      }
      const paused = await c.submit('/settings', '/settings/password', {
        current_password: PASSWORD,
        password: NEW_PASSWORD,
      });
      expect(html(paused, 429)).toContain('Too many wrong passwords.');
      expect(Number(paused.headers['retry-after'])).toBeGreaterThan(0);
      // the same pair cannot log in either; the password was not changed
      const login = await new WebClient(t.app, c.remoteAddress).submit('/login', '/login', {
        username: user.username,
        password: PASSWORD,
      });
      expect(login.statusCode).toBe(429);
      expect(await tryLogin(user.username, PASSWORD)).toBe(303);
    });

    it('limits the settings forms to 10 an hour per account, from any IP', async () => {
      const { user, c } = await loggedIn();
      for (let i = 0; i < 10; i++) {
        const res = await c.submit('/settings', '/settings/email', { email: 'not an address', current_password: '' });
        expect(res.statusCode).toBe(400);
      }
      const elsewhere = client();
      await elsewhere.login(user.username);
      const refused = await elsewhere.submit('/settings', '/settings/password', {
        current_password: PASSWORD,
        password: NEW_PASSWORD,
      });
      expect(html(refused, 429)).toContain('Too many changes to your password or address in the last hour.');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(await tryLogin(user.username, PASSWORD)).toBe(303);
    });

    it('sends a visitor who is not logged in to the log-in page, changing nothing', async () => {
      const c = client();
      const res = await c.submit('/login', '/settings/password', {
        current_password: PASSWORD,
        password: NEW_PASSWORD,
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/login?return_to=%2Fsettings');
    });
  });

  describe('settings: change e-mail', () => {
    it('sends a verification link to the new address, tells the old one, and leaves the new one unverified until the link is followed', async () => {
      const { user, c } = await loggedIn();
      await db().updateTable('users').set({ email_verified_at: clock.now() }).where('id', '=', user.id).execute();
      const oldResetLink = await resetLinkFor(user.email);
      const fresh = `${uniqueName('moved')}@example.org`;

      const wrong = await c.submit('/settings', '/settings/email', { email: fresh, current_password: 'nope nope' });
      const wrongPage = html(wrong, 403);
      expect(wrongPage).toContain('The current password is wrong.');
      expect(wrongPage).toContain(`value="${fresh}"`);
      const same = await c.submit('/settings', '/settings/email', {
        email: ` ${user.email.toUpperCase()} `,
        current_password: PASSWORD,
      });
      expect(html(same, 400)).toContain('This is already the address of your account.');
      const bad = await c.submit('/settings', '/settings/email', { email: 'nowhere', current_password: PASSWORD });
      expect(html(bad, 400)).toContain('Please enter a valid e-mail address.');
      expect((await userRow(user.id)).email).toBe(user.email);
      expect((await deliver()).attempted).toBe(0);

      const done = await c.submit('/settings', '/settings/email', { email: ` ${fresh} `, current_password: PASSWORD });
      expect(done.statusCode).toBe(303);
      expect(done.headers.location).toBe('/settings');
      const row = await userRow(user.id);
      expect(row.email).toBe(fresh);
      expect(row.email_verified_at).toBeNull();
      const settings = html(await c.get('/settings'));
      expect(settings).toContain('Your e-mail address was changed.');
      expect(settings).toContain(`<strong>${fresh}</strong> — not verified`);

      await deliver();
      const [told] = smtp
        .to(user.email)
        .filter((m: ReceivedMail) => m.subject === 'Your Tipjar e-mail address was changed');
      expect(told!.text).toContain(fresh);
      const [verify] = smtp.to(fresh);
      expect(smtp.to(fresh)).toHaveLength(1);
      expect(verify!.subject).toBe('Confirm your e-mail address');
      const link = linkIn(verify!, `${PUBLIC_URL}/verify-email/`);
      const tokens = await db()
        .selectFrom('account_tokens')
        .selectAll()
        .where('user_id', '=', user.id)
        .where('purpose', '=', 'verify_email')
        .where('used_at', 'is', null)
        .where('expires_at', '>', clock.now())
        .execute();
      expect(tokens).toHaveLength(1);
      expect(tokens[0]).toMatchObject({ token_hash: hashSecret(link.split('/').at(-1)!), detail: fresh });

      // the reset link sent to the old address no longer works
      expect(html(await client().get(oldResetLink), 404)).toContain(DEAD);

      // following the link verifies the new address, where that page exists on this branch
      if (t.app.hasRoute({ method: 'GET', url: '/verify-email/:token' })) {
        await c.get(pathOf(link));
        expect((await userRow(user.id)).email_verified_at).not.toBeNull();
      }
    });
  });
});
