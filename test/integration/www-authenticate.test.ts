/**
 * Every 401 carries `WWW-Authenticate` (DECISIONS.md "Wire format"; RFC 9110 §11.6.1, RFC 6750 §3),
 * on every engine: a missing token, another Authorization scheme, an unknown, revoked or malformed
 * bearer token (`error="invalid_token"`), `no_means` on both tip operations, and every refusal of
 * partner verification; in JSON, XML and JSONP alike. 403 `insufficient_scope` keeps its own
 * challenge; other 403s carry none.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith, uniqueName, type TestUser } from '../helpers/factories.ts';
import { createPartner, type PartnerRecord } from '../../src/webhooks/partners.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { hashSecret } from '../../src/auth/secrets.ts';

const PLAIN = 'Bearer realm="tipjar"';
const INVALID_TOKEN = 'Bearer realm="tipjar", error="invalid_token"';

/** Asserts a 401 with `code` in the error shape (JSON) and the challenge `challenge`. */
function expect401(res: LightMyRequestResponse, code: string, challenge: string): void {
  expect(res.statusCode, res.body).toBe(401);
  expect(res.headers['www-authenticate']).toBe(challenge);
  const body = json(res);
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description', 'error_uri']);
  expect(body.error).toBe(code);
}

describe.each(ENGINES)('WWW-Authenticate on every 401 on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser;
  let broke: TestUser;
  let thingId: number;
  let thingUrl: string;
  let partner: PartnerRecord;

  beforeAll(async () => {
    t = await buildTestApp(engine);
    owner = await buildUser(t.services);
    // never funded: budget 0, balance 0 → no means
    broke = await buildUser(t.services, { funded: false });
    thingUrl = `https://example.com/${uniqueName('challenge')}`;
    thingId = await buildThing(t.services, owner, { url: thingUrl });
    partner = (
      await createPartner(t.services, {
        namespace: uniqueName('ns'),
        webhookUrl: 'http://127.0.0.1:9/h',
        events: 'pendingclickcreate',
        allowPrivateWebhook: true,
      })
    ).partner;
  });
  afterAll(async () => t.close());

  const inject = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    headers: Record<string, string> = {},
    payload?: object,
  ) => t.app.inject({ method, url: `${API}${url}`, headers, ...(payload ? { payload } : {}) });

  describe('no token where one is needed → unauthorized, Bearer realm="tipjar" without an error code', () => {
    it.each([
      ['GET', '/user'],
      ['GET', '/user/things'],
      ['GET', '/user/tips'],
      ['GET', '/user/activities'],
      ['GET', '/user/subscriptions'],
      ['GET', '/things/:id/tips'],
      ['POST', '/things'],
      ['POST', '/things/:id/tip'],
      ['POST', '/tip'],
      ['POST', '/things/:id/subscriptions'],
      ['PUT', '/things/:id/subscriptions'],
      ['DELETE', '/things/:id/subscriptions'],
      ['DELETE', '/things/:id'],
    ] as const)('%s %s', async (method, path) => {
      expect401(await inject(method, path.replace(':id', String(thingId))), 'unauthorized', PLAIN);
    });

    it('another Authorization scheme is no bearer token either', async () => {
      expect401(await inject('GET', '/user', { authorization: 'Basic dXNlcjpwYXNz' }), 'unauthorized', PLAIN);
    });
  });

  describe('a bad bearer token → unauthorized, error="invalid_token" (RFC 6750 §3.1)', () => {
    it('an unknown token, on a private and on a public resource', async () => {
      expect401(await inject('GET', '/user', bearer('no-such-token')), 'unauthorized', INVALID_TOKEN);
      expect401(await inject('GET', '/categories', bearer('no-such-token')), 'unauthorized', INVALID_TOKEN);
    });

    it('a revoked token', async () => {
      const token = await tokenWith(t.services, owner.user.username, 'tip');
      expect((await inject('GET', '/user', bearer(token))).statusCode).toBe(200);
      await t.db.database.db
        .updateTable('access_tokens')
        .set({ revoked_at: t.clock.now() })
        .where('token_hash', '=', hashSecret(token))
        .execute();
      expect401(await inject('GET', '/user', bearer(token)), 'unauthorized', INVALID_TOKEN);
    });

    it.each(['Bearer', 'Bearer ', 'Bearer two words', 'bearer a"b'])(
      'a malformed one: Authorization: %s',
      async (authorization) => {
        expect401(await inject('GET', '/user', { authorization }), 'unauthorized', INVALID_TOKEN);
      },
    );
  });

  describe('no_means → 401 with the challenge (the token is valid: no error code)', () => {
    it('POST /things/:id/tip', async () => {
      const res = await inject('POST', `/things/${thingId}/tip`, bearer(broke.token));
      expect401(res, 'no_means', PLAIN);
      expect(json(res).error_uri).toBe(`${PUBLIC_URL}/docs/api#tips`);
    });

    it('POST /tip', async () => {
      expect401(await inject('POST', '/tip', bearer(broke.token), { url: thingUrl }), 'no_means', PLAIN);
    });

    it('in XML and JSONP too', async () => {
      const xml = await inject('POST', `/things/${thingId}/tip.xml`, bearer(broke.token));
      expect(xml.statusCode).toBe(401);
      expect(xml.headers['content-type']).toBe('application/xml;charset=utf-8');
      expect(xml.headers['www-authenticate']).toBe(PLAIN);
      const jsonp = await inject('POST', `/things/${thingId}/tip?jsonp=cb`, bearer(broke.token));
      expect(jsonp.statusCode).toBe(401);
      expect(jsonp.body).toMatch(/^\/\*\*\/cb\(\{"error":"no_means"/);
      expect(jsonp.headers['www-authenticate']).toBe(PLAIN);
    });
  });

  describe('partner verification refused → 401 unauthorized with the challenge', () => {
    let partnerToken: string;
    beforeAll(async () => {
      partnerToken = await issueToken(t.services, broke.user.username, 'tip', partner.clientRowId);
    });

    it.each([
      ['no token', () => ({}), '/user/verify', () => `partner:${partner.namespace}:x`],
      [
        'a token not issued to a partner',
        () => bearer(owner.token),
        '/user/verify',
        () => `partner:${partner.namespace}:x`,
      ],
      ['a malformed identity', () => bearer(partnerToken), '/user/verify', () => 'nonsense'],
      ['another namespace', () => bearer(partnerToken), '/user/verify', () => 'partner:someone-else:x'],
      [
        "not the token's user",
        () => bearer(partnerToken),
        '/users/:owner/verify',
        () => `partner:${partner.namespace}:x`,
      ],
    ])('%s', async (_what, headers, path, identity) => {
      const res = await inject('POST', path.replace(':owner', owner.user.username), headers(), {
        identity: identity(),
      });
      expect401(res, 'unauthorized', PLAIN);
    });

    it('an identity already verified by another account', async () => {
      const identity = `partner:${partner.namespace}:${uniqueName('taken')}`;
      const first = await buildUser(t.services, { funded: false });
      const firstToken = await issueToken(t.services, first.user.username, 'tip', partner.clientRowId);
      expect((await inject('POST', '/user/verify', bearer(firstToken), { identity })).statusCode).toBe(200);
      expect401(await inject('POST', '/user/verify', bearer(partnerToken), { identity }), 'unauthorized', PLAIN);
    });
  });

  describe('403s', () => {
    it('insufficient_scope keeps its challenge with error and scope', async () => {
      const readOnly = await tokenWith(t.services, broke.user.username, 'extendedread');
      const res = await inject('POST', `/things/${thingId}/tip`, bearer(readOnly));
      expect(res.statusCode).toBe(403);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="tipjar", error="insufficient_scope", scope="tip"');
    });

    it('a 403 that is not about the token (tip_owner) carries no challenge', async () => {
      const res = await inject('POST', `/things/${thingId}/tip`, bearer(owner.token));
      expect(res.statusCode).toBe(403);
      expect(json(res).error).toBe('tip_owner');
      expect(res.headers['www-authenticate']).toBeUndefined();
    });
  });
});
