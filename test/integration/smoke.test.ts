/**
 * The newcomer's path from the README, on every engine: two users, a thing, a tip, read back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildUser } from '../helpers/factories.ts';

describe.each(ENGINES)('README walkthrough on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t.close());

  it('registers a thing, tips it from another account and reads it back', async () => {
    const alice = await buildUser(t.services, { scopes: 'thing' });
    const bob = await buildUser(t.services, { scopes: 'tip' });
    const created = await t.app.inject({
      method: 'POST',
      url: `${API}/things`,
      headers: bearer(alice.token),
      payload: { url: 'https://example.org/readme', title: 'Readme' },
    });
    expect(created.statusCode).toBe(201);
    const { id, link } = json(created);
    expect(link).toBe(`${PUBLIC_URL}${API}/things/${id}`);

    const tipped = await t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(bob.token) });
    expect(tipped.statusCode).toBe(200);
    expect(json(tipped).thing.tips).toBe(1);

    const read = json(await t.app.inject({ url: `${API}/things/${id}`, headers: bearer(bob.token) }));
    expect(read).toMatchObject({ id, tips: 1, tips_user_count: 1, tipped: true, subscribed: false, title: 'Readme' });
    expect(read).not.toHaveProperty('last_tip_at');
  });
});
