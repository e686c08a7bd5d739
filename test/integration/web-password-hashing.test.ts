/**
 * The bounded password-hashing queue on the website (PASSWORD_HASH_CONCURRENCY=1,
 * PASSWORD_HASH_QUEUE=1; docs/api.md "Website" → "Limits"), on every engine: with the one slot
 * held and one log-in waiting, a third log-in or a sign-up is answered at once with 503,
 * Retry-After and the form again, and changes nothing; the waiting log-in then completes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { uniqueName } from '../helpers/factories.ts';
import { buildWebUser, html, PASSWORD, setCookie, WebClient } from '../helpers/web.ts';

describe.each(ENGINES)('password hashing queue on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine, {
      env: { PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '1', LOGIN_FAILURES_PER_USER_AND_IP: '1' },
    });
  });
  afterAll(async () => t.close());

  async function until(condition: () => boolean) {
    for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(condition()).toBe(true);
  }

  it('a third concurrent hash is refused with 503 + Retry-After and the form; the waiting one completes; the refused attempt is not counted', async () => {
    const user = await buildWebUser(t.services);
    const hasher = t.app.passwordHasher;
    let release!: () => void;
    const held = hasher.run(() => new Promise<void>((r) => (release = r)));
    expect(hasher.running).toBe(1);

    const waiting = new WebClient(t.app, '10.7.0.1');
    const queued = waiting.submit('/login', '/login', { username: user.username, password: PASSWORD });
    await until(() => hasher.waiting === 1);

    const third = new WebClient(t.app, '10.7.0.2');
    const refused = await third.submit('/login', '/login', { username: user.username, password: PASSWORD });
    const body = html(refused, 503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(body).toContain('The server is busy checking other passwords. Please send the form again in');
    expect(body).toContain('<form method="post" action="/login">');
    expect(body).toContain(`value="${user.username}"`);
    expect(setCookie(refused, 'tipjar_session')).toBeUndefined();

    const name = uniqueName('busy');
    const signup = await new WebClient(t.app, '10.7.0.3').submit('/signup', '/signup', {
      username: name,
      email: `${name}@example.com`,
      password: PASSWORD,
    });
    expect(html(signup, 503)).toContain('<form method="post" action="/signup">');
    expect(Number(signup.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(
      await t.db.database.db.selectFrom('users').select('id').where('username', '=', name).executeTakeFirst(),
    ).toBeUndefined();

    release();
    await held;
    const done = await queued;
    expect(done.statusCode, done.body.slice(0, 500)).toBe(303);
    // The 503 attempt was given back: with LOGIN_FAILURES_PER_USER_AND_IP=1 a counted one would refuse this.
    await third.login(user.username);
  });
});
