/**
 * Users endpoints (api-v2.md "User", "Endpoints / Users"; DECISIONS.md "Wire format"), on every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith, uniqueName, type TestUser } from '../helpers/factories.ts';
import { expectError } from '../helpers/errors.ts';
import { XMLParser } from 'fast-xml-parser';
import { setMonthlyBudget } from '../../src/domain/money/account.ts';
import { registerUser } from '../../src/domain/users.ts';
import { markEmailVerified } from '../../src/domain/verification.ts';

const START = 1_710_000_000;
const USER_KEYS = [
  'about',
  'avatar',
  'city',
  'country',
  'firstname',
  'lastname',
  'link',
  'resource',
  'type',
  'url',
  'username',
];
const EXTENDED_KEYS = [
  ...USER_KEYS,
  'email',
  'email_verified',
  'registered_at',
  'budget_cents',
  'period_budget_cents',
].sort();
const keys = (o: object) => Object.keys(o).sort();

describe.each(ENGINES)('users on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(START);
  let plain: TestUser;
  let profiled: TestUser;

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
    clock.set(START + 11);
    plain = await buildUser(t.services, { username: uniqueName('Plain') });
    clock.set(START + 22);
    profiled = await buildUser(t.services, { username: uniqueName('Ada'), email: 'ada@example.org' });
    await t.db.database.db
      .updateTable('users')
      .set({
        firstname: 'Ada',
        lastname: 'Lovelace',
        avatar: 'https://img.example.org/ada.png',
        about: 'Analytical <b>engines</b>',
        city: 'London',
        country: 'GB',
        url: 'https://ada.example.org/',
      })
      .where('id', '=', profiled.user.id)
      .execute();
  });
  afterAll(async () => t.close());

  const get = (url: string, token?: string) =>
    t.app.inject({ method: 'GET', url: `${API}${url}`, headers: token ? bearer(token) : {} });

  describe('GET /users/:username', () => {
    it('exactly the public User fields, all strings, empty when unset', async () => {
      const res = await get(`/users/${plain.user.username}`);
      expect(res.statusCode).toBe(200);
      const u = json(res);
      expect(keys(u)).toEqual(USER_KEYS);
      for (const k of USER_KEYS) expect(typeof u[k], k).toBe('string');
      expect(u).toEqual({
        type: 'user',
        resource: `${PUBLIC_URL}${API}/users/${plain.user.username}`,
        link: `${PUBLIC_URL}/profile/${plain.user.username}`,
        username: plain.user.username,
        firstname: '',
        lastname: '',
        avatar: '',
        about: '',
        city: '',
        country: '',
        url: '',
      });
    });

    it('profile fields are returned as stored', async () => {
      const u = json(await get(`/users/${profiled.user.username}`));
      expect(keys(u)).toEqual(USER_KEYS);
      expect(u).toMatchObject({
        username: profiled.user.username,
        firstname: 'Ada',
        lastname: 'Lovelace',
        avatar: 'https://img.example.org/ada.png',
        about: 'Analytical <b>engines</b>',
        city: 'London',
        country: 'GB',
        url: 'https://ada.example.org/',
      });
    });

    it('never carries email or registered_at, even for the user itself with extendedread', async () => {
      const u = json(await get(`/users/${profiled.user.username}`));
      expect(u).not.toHaveProperty('email');
      expect(u).not.toHaveProperty('registered_at');
      expect(JSON.stringify(u)).not.toContain('ada@example.org');
    });

    it('looks the username up case-insensitively and answers with the registered spelling', async () => {
      const name = profiled.user.username;
      for (const asked of [name.toUpperCase(), name.toLowerCase()]) {
        const res = await get(`/users/${asked}`);
        expect(res.statusCode).toBe(200);
        const u = json(res);
        expect(u.username).toBe(name);
        expect(u.resource).toBe(`${PUBLIC_URL}${API}/users/${name}`);
      }
    });

    it('an unknown user → 404 not_found in the error shape', async () => {
      expectError(await get(`/users/${uniqueName('ghost')}`), 404, 'not_found');
    });

    it('a username no user can have: too long → 404 not_found; a control character → 400 invalid_request, never a server error', async () => {
      expectError(await get(`/users/${'x'.repeat(300)}`), 404, 'not_found');
      for (const name of ['a%00b', '%07', 'a%0Ab', '%7F', '%ED%A0%80'])
        expectError(await get(`/users/${name}`), 400, 'invalid_request');
    });

    it('tolerates a trailing slash', async () => {
      const res = await get(`/users/${plain.user.username}/`);
      expect(res.statusCode).toBe(200);
      expect(json(res).username).toBe(plain.user.username);
    });
  });

  describe('GET /user', () => {
    it('without a token → 401 unauthorized with WWW-Authenticate', async () => {
      const res = await get('/user');
      expectError(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
    });

    it('with an invalid token → 401 unauthorized', async () => {
      expectError(await get('/user', 'not-a-real-token'), 401, 'unauthorized');
    });

    it.each([['tip'], ['thing'], ['tip thing']])(
      'with scope "%s" (no extendedread): the public fields only',
      async (scopes) => {
        const token = await tokenWith(t.services, profiled.user.username, scopes);
        const res = await get('/user', token);
        expect(res.statusCode).toBe(200);
        const u = json(res);
        expect(keys(u)).toEqual(USER_KEYS);
        expect(u).toMatchObject({ type: 'user', username: profiled.user.username, firstname: 'Ada', city: 'London' });
      },
    );

    it('with scope extendedread: also email and registered_at (an integer, Unix seconds)', async () => {
      const token = await tokenWith(t.services, profiled.user.username, 'extendedread');
      const res = await get('/user', token);
      expect(res.statusCode).toBe(200);
      const u = json(res);
      expect(keys(u)).toEqual(EXTENDED_KEYS);
      expect(u.email).toBe('ada@example.org');
      expect(Number.isInteger(u.registered_at)).toBe(true);
      expect(u.registered_at).toBe(START + 22);
      expect(u).toMatchObject({
        type: 'user',
        resource: `${PUBLIC_URL}${API}/users/${profiled.user.username}`,
        link: `${PUBLIC_URL}/profile/${profiled.user.username}`,
        username: profiled.user.username,
        lastname: 'Lovelace',
      });
    });

    it("answers for the token's own user", async () => {
      const u = json(await get('/user', plain.token));
      expect(keys(u)).toEqual(EXTENDED_KEYS);
      expect(u.username).toBe(plain.user.username);
      expect(u.email).toBe(`${plain.user.username}@example.com`);
      expect(u.registered_at).toBe(START + 11);
    });

    it('with extendedread tells whether the address is verified (email_verified), in JSON and XML; without it, neither email nor email_verified', async () => {
      const u = await buildUser(t.services, { funded: false });
      const xml = async (token: string) => {
        const res = await get('/user.xml', token);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/xml/);
        return new XMLParser({ parseTagValue: false }).parse(res.body).user as Record<string, string>;
      };
      const before = json(await get('/user', u.token));
      expect(before).toMatchObject({ email: u.user.email, email_verified: false });
      // next to email, in the representation's order
      expect(Object.keys(before).indexOf('email_verified')).toBe(Object.keys(before).indexOf('email') + 1);
      expect(await xml(u.token)).toMatchObject({ email: u.user.email, email_verified: 'false' });

      await markEmailVerified(t.services, u.user.username);
      expect(json(await get('/user', u.token))).toMatchObject({ email: u.user.email, email_verified: true });
      expect(await xml(u.token)).toMatchObject({ email: u.user.email, email_verified: 'true' });

      const narrow = await tokenWith(t.services, u.user.username, 'tip thing');
      const plainJson = json(await get('/user', narrow));
      expect(plainJson).not.toHaveProperty('email_verified');
      expect(plainJson).not.toHaveProperty('email');
      const plainXml = await xml(narrow);
      expect(plainXml).not.toHaveProperty('email_verified');
      expect(plainXml).not.toHaveProperty('email');
      // never on the public User
      expect(json(await get(`/users/${u.user.username}`, u.token))).not.toHaveProperty('email_verified');
    });

    it('/openapi.json documents email_verified as an optional boolean of the User', async () => {
      const doc = JSON.parse((await t.app.inject({ url: '/openapi.json' })).body);
      const user = doc.components.schemas.User;
      expect(user.properties.email_verified).toMatchObject({ type: 'boolean' });
      expect(user.properties.email_verified.description).toContain('extendedread');
      expect(user.required ?? []).not.toContain('email_verified');
    });

    it('email_verified is false for an account without an address', async () => {
      const name = uniqueName('NoMail');
      await registerUser(t.services, { username: name });
      const token = await tokenWith(t.services, name, 'extendedread');
      expect(json(await get('/user', token))).toMatchObject({ email: '', email_verified: false });
    });

    it("with extendedread reports the budget setting and the period's budget, fixed at the first tip of the period", async () => {
      const fan = await buildUser(t.services);
      expect(json(await get('/user', fan.token))).toMatchObject({ budget_cents: 500, period_budget_cents: 500 });
      const owner = await buildUser(t.services);
      const thing = await buildThing(t.services, owner);
      expect(
        (await t.app.inject({ method: 'POST', url: `${API}/things/${thing}/tip`, headers: bearer(fan.token) }))
          .statusCode,
      ).toBe(200);
      await setMonthlyBudget(t.services, fan.user.id, 80);
      expect(json(await get('/user', fan.token))).toMatchObject({ budget_cents: 80, period_budget_cents: 500 });
      // a token without extendedread sees neither
      const narrow = json(await get('/user', await tokenWith(t.services, fan.user.username, 'tip')));
      expect(keys(narrow)).toEqual(USER_KEYS);
    });
  });
});
