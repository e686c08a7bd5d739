/**
 * The website's limits (docs/api.md "Website" → "Limits"), on every engine and counter store
 * (memory; Redis when TEST_REDIS_URL is set, shared by two instances): failed log-ins per
 * (username, IP) and per username, log-in and sign-up submissions per IP, accounts per IP, and
 * page views per IP. Every refusal is 429 with Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { API, buildTestApp, fixedClock, type TestApp } from '../helpers/app.ts';
import { uniqueName } from '../helpers/factories.ts';
import { buildWebUser, html, PASSWORD, setCookie, WebClient } from '../helpers/web.ts';
import { STORES, storeEnv } from '../helpers/stores.ts';

/** 2026-06-10T12:02:00Z: 780 s before the quarter hour ends, 3480 s before the hour ends. */
const HOUR_START = Date.UTC(2026, 5, 10, 12) / 1000;
const NOW = HOUR_START + 120;
const TO_QUARTER_END = 780;
const TO_HOUR_END = 3480;

let ipSeq = 0;
/** A client address no other test uses. */
const freshIp = () => `10.8.${(++ipSeq >> 8) & 255}.${ipSeq & 255}`;

/** Asserts a 429 page with the website's headers, Retry-After and `message`; returns the body. */
function expectRefused(res: LightMyRequestResponse, retryAfter: number, message: string): string {
  const body = html(res, 429);
  expect(res.headers['retry-after']).toBe(String(retryAfter));
  expect(body).toContain(message);
  return body;
}

const PAUSED = 'Too many failed log-in attempts. For your safety, log-in is paused.';

describe.each(ENGINES)('website limits on %s', (engine) => {
  describe.each(STORES)('counted in %s', (store) => {
    const clock = fixedClock(NOW);

    describe('log-in failures with the default limits (10 per username and IP per quarter hour)', () => {
      let t: TestApp;
      const { env, cleanUp } = storeEnv(store);
      beforeAll(async () => {
        t = await buildTestApp(engine, { clock, env });
      });
      afterAll(async () => {
        await t.close();
        await cleanUp();
      });
      const sessionsOf = (userId: number) =>
        t.db.database.db.selectFrom('sessions').select('id_hash').where('user_id', '=', userId).execute();

      it('10 failures from IP A lock (user, A), even the right password, until the quarter hour ends; the user logs in from IP B meanwhile', async () => {
        const user = await buildWebUser(t.services);
        const a = new WebClient(t.app, freshIp());
        for (let i = 0; i < 10; i++)
          html(await a.submit('/login', '/login', { username: user.username, password: `wrong ${i}` }), 401);
        const refused = await a.submit('/login', '/login', {
          username: user.username.toUpperCase(),
          password: PASSWORD,
        });
        const body = expectRefused(refused, TO_QUARTER_END, `${PAUSED} Please try again in 13 minutes.`);
        expect(body).toContain('<form method="post" action="/login">');
        expect(setCookie(refused, 'tipjar_session')).toBeUndefined();
        expect(await sessionsOf(user.id)).toHaveLength(0);

        await new WebClient(t.app, freshIp()).login(user.username);
        // another user from IP A is not affected
        const other = await buildWebUser(t.services);
        await a.login(other.username);

        clock.set(HOUR_START + 900);
        try {
          await new WebClient(t.app, a.remoteAddress).login(user.username);
        } finally {
          clock.set(NOW);
        }
      });
    });

    describe('small limits', () => {
      let t: TestApp;
      const { env, cleanUp } = storeEnv(store);
      beforeAll(async () => {
        t = await buildTestApp(engine, {
          clock,
          env: {
            ...env,
            LOGIN_FAILURES_PER_USER_AND_IP: '2',
            LOGIN_FAILURES_PER_USER: '5',
            RATE_LIMIT_PASSWORD_FORMS: '6',
            RATE_LIMIT_SIGNUPS: '2',
          },
        });
      });
      afterAll(async () => {
        await t.close();
        await cleanUp();
      });
      const login = (c: WebClient, username: string, password: string) =>
        c.submit('/login', '/login', { username, password });
      const signup = (c: WebClient, username = uniqueName('s')) =>
        c.submit('/signup', '/signup', { username, email: `${username}@example.com`, password: PASSWORD });

      it('a successful log-in starts the (username, IP) count again', async () => {
        const user = await buildWebUser(t.services);
        const c = new WebClient(t.app, freshIp());
        // limit 2: a failure and a log-in would make 2, a third attempt would be over it
        for (let round = 0; round < 3; round++) {
          html(await login(c, user.username, 'wrong password'), 401);
          expect((await login(c, user.username, PASSWORD)).statusCode).toBe(303);
          await c.post('/logout', { _csrf: await c.csrf('/settings') });
        }
      });

      it('the per-username ceiling stops an attack spread over many IPs, from every IP, until the hour ends; other users go on', async () => {
        const user = await buildWebUser(t.services);
        // 5 failures from 3 addresses, none of them over its own (username, IP) limit of 2
        for (const n of [2, 2, 1]) {
          const c = new WebClient(t.app, freshIp());
          for (let i = 0; i < n; i++) html(await login(c, user.username, 'wrong password'), 401);
        }
        const owner = new WebClient(t.app, freshIp());
        expectRefused(
          await login(owner, user.username, PASSWORD),
          TO_HOUR_END,
          `${PAUSED} Please try again in 58 minutes.`,
        );
        const other = await buildWebUser(t.services);
        await owner.login(other.username);
        clock.set(HOUR_START + 3600);
        try {
          await new WebClient(t.app, owner.remoteAddress).login(user.username);
        } finally {
          clock.set(NOW);
        }
      });

      it("refusals at one IP's (username, IP) limit do not use up the username's ceiling", async () => {
        const user = await buildWebUser(t.services);
        const attacker = new WebClient(t.app, freshIp());
        for (let i = 0; i < 2; i++) html(await login(attacker, user.username, 'wrong password'), 401);
        for (let i = 0; i < 4; i++)
          expectRefused(await login(attacker, user.username, 'wrong password'), TO_QUARTER_END, PAUSED);
        // 2 failures counted toward the ceiling of 5, not 6: the owner still logs in elsewhere
        await new WebClient(t.app, freshIp()).login(user.username);
      });

      it('log-in and sign-up submissions per IP: the 7th is refused with 429 and Retry-After, the password not checked; other IPs go on', async () => {
        const user = await buildWebUser(t.services);
        const c = new WebClient(t.app, freshIp());
        expect((await signup(c)).statusCode).toBe(303);
        await c.post('/logout', { _csrf: await c.csrf('/settings') });
        html(await c.submit('/signup', '/signup', { username: 'x', email: 'x@example.com', password: PASSWORD }), 400);
        for (let i = 0; i < 3; i++) html(await login(c, uniqueName('nobody'), 'wrong password'), 401);
        expect((await login(c, user.username, PASSWORD)).statusCode).toBe(303);
        await c.post('/logout', { _csrf: await c.csrf('/settings') });
        const refused = await login(c, user.username, PASSWORD);
        expectRefused(
          refused,
          TO_HOUR_END,
          'Too many log-in attempts came from your network in the last hour. Please try again in 58 minutes.',
        );
        expect(setCookie(refused, 'tipjar_session')).toBeUndefined();
        const name = uniqueName('s');
        expectRefused(
          await signup(c, name),
          TO_HOUR_END,
          'Too many forms were sent from your network in the last hour.',
        );
        expect(
          await t.db.database.db.selectFrom('users').select('id').where('username', '=', name).executeTakeFirst(),
        ).toBeUndefined();
        await new WebClient(t.app, freshIp()).login(user.username);
      });

      it('accounts per IP: the 3rd sign-up is 429 with Retry-After and creates nothing; another IP goes on', async () => {
        const ip = freshIp();
        for (let i = 0; i < 2; i++) expect((await signup(new WebClient(t.app, ip))).statusCode).toBe(303);
        const refused = uniqueName('s');
        expectRefused(
          await signup(new WebClient(t.app, ip), refused),
          TO_HOUR_END,
          'Too many accounts were created from your network in the last hour.',
        );
        expect(
          await t.db.database.db.selectFrom('users').select('id').where('username', '=', refused).executeTakeFirst(),
        ).toBeUndefined();
        expect((await signup(new WebClient(t.app, freshIp()))).statusCode).toBe(303);
      });

      it.runIf(store === 'redis')('two instances share the log-in failures through Redis', async () => {
        const two = await buildApp({ config: t.config, database: t.db.database, clock });
        await two.ready();
        try {
          const user = await buildWebUser(t.services);
          const ip = freshIp();
          html(await login(new WebClient(t.app, ip), user.username, 'wrong password'), 401);
          html(await login(new WebClient(two, ip), user.username, 'wrong password'), 401);
          expectRefused(await login(new WebClient(t.app, ip), user.username, PASSWORD), TO_QUARTER_END, PAUSED);
          expectRefused(await login(new WebClient(two, ip), user.username, PASSWORD), TO_QUARTER_END, PAUSED);
        } finally {
          await two.close();
        }
      });
    });

    describe('page views per IP (RATE_LIMIT_PAGES=5)', () => {
      let t: TestApp;
      let two: FastifyInstance | undefined;
      const { env, cleanUp } = storeEnv(store);
      beforeAll(async () => {
        t = await buildTestApp(engine, { clock, env: { ...env, RATE_LIMIT_PAGES: '5' } });
        if (store === 'redis') {
          two = await buildApp({ config: t.config, database: t.db.database, clock });
          await two.ready();
        }
      });
      afterAll(async () => {
        await two?.close();
        await t.close();
        await cleanUp();
      });

      it('the 6th request of the hour is 429 with Retry-After and a small HTML page; the stylesheet, the icon, the API and other IPs are not affected', async () => {
        const user = await buildWebUser(t.services);
        const c = new WebClient(t.app, freshIp());
        for (const page of ['/', '/login', '/signup', `/profile/${user.username}`]) html(await c.get(page));
        // a form post counts too
        html(await c.post('/login', { _csrf: 'stale', username: 'x', password: 'y' }), 403);
        const refused = await c.get('/');
        const body = expectRefused(
          refused,
          TO_HOUR_END,
          'Too many pages were requested from your network in the last hour. Please try again in 58 minutes.',
        );
        expect(body).toContain('<h1>Too many attempts</h1>');
        expectRefused(
          await c.post('/login', { _csrf: 'x', username: 'x', password: 'y' }),
          TO_HOUR_END,
          'Too many pages were requested',
        );
        expect((await c.get('/static/site.css')).statusCode).toBe(200);
        for (const icon of ['/favicon.svg', '/favicon.ico']) expect((await c.get(icon)).statusCode).toBe(200);
        expect((await t.app.inject({ url: `${API}/categories`, remoteAddress: c.remoteAddress })).statusCode).toBe(200);
        html(await new WebClient(t.app, freshIp()).get('/'));
        clock.set(HOUR_START + 3600);
        try {
          html(await c.get('/'));
        } finally {
          clock.set(NOW);
        }
      });

      it.runIf(store === 'redis')('two instances share the page count through Redis', async () => {
        const ip = freshIp();
        const apps = [t.app, two!, t.app, two!, t.app];
        for (const app of apps) html(await new WebClient(app, ip).get('/'));
        expectRefused(await new WebClient(two!, ip).get('/'), TO_HOUR_END, 'Too many pages were requested');
      });
    });
  });
});
