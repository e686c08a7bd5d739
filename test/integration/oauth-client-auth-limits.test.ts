/**
 * Limits on failed client authentications at POST /oauth/token and POST /oauth/revoke (docs/api.md
 * "OAuth 2" → "Failed client authentications"), on every engine and counter store (memory; Redis
 * when TEST_REDIS_URL is set, shared by two instances), and the body limit there (413).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { buildTestApp, fixedClock, json, type TestApp } from '../helpers/app.ts';
import { buildUser, type TestUser } from '../helpers/factories.ts';
import { authorizeCode, basic, buildClient, REDIRECT_URI, type TestClient } from '../helpers/oauth.ts';
import { STORES, storeEnv } from '../helpers/stores.ts';

/** 2026-01-01T00:02:00Z: two minutes into a quarter hour, whose end is 780 s away. */
const NOW = 1_767_225_600 + 120;
const QUARTER_END = 1_767_225_600 + 900;

let ipSeq = 0;
/** A client address no other test uses. */
const freshIp = () => `10.9.${(++ipSeq >> 8) & 255}.${ipSeq & 255}`;

/** Asserts the throttle: 429, RFC 6749 body `invalid_request`, Retry-After, no-store. */
function expectThrottled(res: LightMyRequestResponse, retryAfter: number) {
  expect(res.statusCode, res.body).toBe(429);
  const body = json(res);
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body.error).toBe('invalid_request');
  expect(body.error_description).toBe(
    `Too many failed client authentications from this address; try again in ${retryAfter} seconds`,
  );
  expect(res.headers['retry-after']).toBe(String(retryAfter));
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['www-authenticate']).toBeUndefined();
}

describe.each(ENGINES)('OAuth client authentication limits on %s', (engine) => {
  describe.each(STORES)('counted in %s', (store) => {
    let t: TestApp;
    const clock = fixedClock(NOW);
    const { env, cleanUp } = storeEnv(store);
    let user: TestUser;
    let c: TestClient;
    beforeAll(async () => {
      t = await buildTestApp(engine, { clock, env });
      user = await buildUser(t.services);
      c = await buildClient(t.services);
    });
    afterAll(async () => {
      await t.close();
      await cleanUp();
    });

    const post = (
      url: string,
      payload: Record<string, string>,
      headers: Record<string, string>,
      ip: string,
      app: FastifyInstance = t.app,
    ) =>
      app.inject({
        method: 'POST',
        url,
        remoteAddress: ip,
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(payload),
      });
    const exchange = (
      code: string,
      client: { clientId: string; clientSecret: string },
      ip: string,
      app?: FastifyInstance,
    ) =>
      post(
        '/oauth/token',
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
        basic(client.clientId, client.clientSecret),
        ip,
        app,
      );
    const wrong = (client: TestClient) => ({ clientId: client.clientId, clientSecret: 'wrong secret' });
    const codeFor = async (client: TestClient) => (await authorizeCode(t.services, client, user.user.id)).code;

    it('after 10 wrong secrets of a client from one IP, even the right secret is 429 there until the quarter hour ends; other IPs and clients go on', async () => {
      const ip = freshIp();
      const code = await codeFor(c);
      for (let i = 0; i < 10; i++) expect((await exchange(code, wrong(c), ip)).statusCode).toBe(401);
      // the right secret from the same IP: refused without being checked; the code is not used up
      expectThrottled(await exchange(code, c, ip), QUARTER_END - NOW);
      // the same client from another IP
      const elsewhere = await exchange(code, c, freshIp());
      expect(elsewhere.statusCode, elsewhere.body).toBe(200);
      expect(json(elsewhere).token_type).toBe('bearer');
      // another client from the same IP
      const other = await buildClient(t.services);
      expect((await exchange(await codeFor(other), other, ip)).statusCode).toBe(200);
      // the revocation endpoint shares the limit
      expectThrottled(
        await post('/oauth/revoke', { token: 'x' }, basic(c.clientId, c.clientSecret), ip),
        QUARTER_END - NOW,
      );
      // the next quarter hour starts a new count
      clock.set(QUARTER_END);
      try {
        expect((await exchange(await codeFor(c), c, ip)).statusCode).toBe(200);
      } finally {
        clock.set(NOW);
      }
    });

    it('the right secret starts the (client, IP) count again', async () => {
      const ip = freshIp();
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 9; i++) expect((await exchange('any', wrong(c), ip)).statusCode).toBe(401);
        expect((await exchange(await codeFor(c), c, ip)).statusCode).toBe(200);
      }
    });

    it('client_secret in the body is counted like HTTP Basic (400 invalid_client, then 429)', async () => {
      const ip = freshIp();
      const body = (secret: string) => ({
        grant_type: 'authorization_code',
        code: 'x',
        client_id: c.clientId,
        client_secret: secret,
      });
      for (let i = 0; i < 10; i++) expect((await post('/oauth/token', body('wrong'), {}, ip)).statusCode).toBe(400);
      expectThrottled(await post('/oauth/token', body(c.clientSecret), {}, ip), QUARTER_END - NOW);
    });

    it('30 failures from one IP over many client_ids refuse every client from it; another IP goes on', async () => {
      const ip = freshIp();
      for (let i = 0; i < 30; i++) {
        const res = await exchange('x', { clientId: `unknown-${i % 6}`, clientSecret: 'guess' }, ip);
        expect(res.statusCode, `attempt ${i + 1}`).toBe(401);
      }
      const fresh = await buildClient(t.services);
      const code = await codeFor(fresh);
      expectThrottled(await exchange(code, fresh, ip), QUARTER_END - NOW);
      expect((await exchange(code, fresh, freshIp())).statusCode).toBe(200);
    });

    it('failures at /oauth/revoke count toward /oauth/token', async () => {
      const ip = freshIp();
      for (let i = 0; i < 10; i++) {
        expect((await post('/oauth/revoke', { token: 'x' }, basic(c.clientId, 'wrong'), ip)).statusCode).toBe(401);
      }
      expectThrottled(await exchange(await codeFor(c), c, ip), QUARTER_END - NOW);
    });

    it.runIf(store === 'redis')('two instances share the counts through Redis', async () => {
      const two = await buildApp({ config: t.config, database: t.db.database, clock });
      await two.ready();
      try {
        const ip = freshIp();
        for (let i = 0; i < 10; i++)
          expect((await exchange('x', wrong(c), ip, i % 2 ? two : t.app)).statusCode).toBe(401);
        expectThrottled(await exchange(await codeFor(c), c, ip, two), QUARTER_END - NOW);
        expectThrottled(await exchange(await codeFor(c), c, ip, t.app), QUARTER_END - NOW);
      } finally {
        await two.close();
      }
    });
  });

  describe('body limit', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(engine);
    });
    afterAll(async () => t.close());

    it.each([
      [
        '/oauth/token',
        'application/json',
        JSON.stringify({ grant_type: 'authorization_code', code: 'x'.repeat(10 * 1024 * 1024) }),
      ],
      [
        '/oauth/token',
        'application/x-www-form-urlencoded',
        `grant_type=authorization_code&code=${'x'.repeat(10 * 1024 * 1024)}`,
      ],
      ['/oauth/revoke', 'application/x-www-form-urlencoded', `token=${'x'.repeat(10 * 1024 * 1024)}`],
    ])('a 10 MB body at %s (%s) → 413 invalid_request, no-store', async (url, type, payload) => {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': type, ...basic('x', 'y') },
        payload,
      });
      expect(res.statusCode, res.body).toBe(413);
      const body = json(res);
      expect(body).toEqual({ error: 'invalid_request', error_description: 'The request body is too large' });
      expect(res.headers['cache-control']).toBe('no-store');
    });
  });
});
