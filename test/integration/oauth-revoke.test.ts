/**
 * POST {auth_url}/oauth/revoke (RFC 7009) and GET /.well-known/oauth-authorization-server
 * (RFC 8414), on every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildUser, type TestUser } from '../helpers/factories.ts';
import { authorizeCode, basic, buildClient, REDIRECT_URI, type TestClient } from '../helpers/oauth.ts';
import { expectOAuthError } from '../helpers/errors.ts';

describe.each(ENGINES)('OAuth revocation and metadata on %s', (engine) => {
  let t: TestApp;
  let user: TestUser;
  let c: TestClient;

  beforeAll(async () => {
    t = await buildTestApp(engine);
    user = await buildUser(t.services);
    c = await buildClient(t.services);
  });
  afterAll(async () => t.close());

  /** A fresh token of `client` for the test user, through the code flow. */
  async function flowToken(client: TestClient = c): Promise<string> {
    const { code } = await authorizeCode(t.services, client, user.user.id);
    const res = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: basic(client.clientId, client.clientSecret),
      payload: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
    });
    expect(res.statusCode, res.body).toBe(200);
    return json(res).access_token as string;
  }
  const revoke = (form: Record<string, string>, headers: Record<string, string> = basic(c.clientId, c.clientSecret)) =>
    t.app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(form).toString(),
    });
  const works = async (token: string) =>
    (await t.app.inject({ url: `${API}/user`, headers: bearer(token) })).statusCode === 200;

  const expectError = (res: Awaited<ReturnType<typeof revoke>>, status: number, error: string) =>
    expectOAuthError(res, status, error);

  describe('RFC 7009 §2.1–2.2 revocation request and response', () => {
    it("revokes the client's own token: 200, empty body, and the token stops working", async () => {
      const token = await flowToken();
      expect(await works(token)).toBe(true);
      const res = await revoke({ token });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(await works(token)).toBe(false);
    });

    it('accepts client credentials in the body and a JSON body', async () => {
      const token = await flowToken();
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/revoke',
        payload: { token, client_id: c.clientId, client_secret: c.clientSecret },
      });
      expect(res.statusCode).toBe(200);
      expect(await works(token)).toBe(false);
    });

    it('token_type_hint is optional and does not stop the search (access_token, refresh_token, anything)', async () => {
      for (const hint of ['access_token', 'refresh_token', 'something_else']) {
        const token = await flowToken();
        expect((await revoke({ token, token_type_hint: hint })).statusCode).toBe(200);
        expect(await works(token)).toBe(false);
      }
    });

    it('an unknown or already revoked token → 200', async () => {
      expect((await revoke({ token: 'no-such-token' })).statusCode).toBe(200);
      const token = await flowToken();
      expect((await revoke({ token })).statusCode).toBe(200);
      expect((await revoke({ token })).statusCode).toBe(200);
    });

    it("another client's token → 200 without revoking it", async () => {
      const other = await buildClient(t.services);
      const token = await flowToken(other);
      const res = await revoke({ token });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('');
      expect(await works(token)).toBe(true);
    });

    it('an operator (CLI) token → 200 without revoking it', async () => {
      expect((await revoke({ token: user.token })).statusCode).toBe(200);
      expect(await works(user.token)).toBe(true);
    });

    it('a missing token → 400 invalid_request; a repeated one → 400 invalid_request', async () => {
      expectError(await revoke({}), 400, 'invalid_request');
      const token = await flowToken();
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(c.clientId, c.clientSecret) },
        payload: `token=${token}&token=${token}`,
      });
      expectError(res, 400, 'invalid_request');
      expect(await works(token)).toBe(true);
    });

    it('a wrong secret → 401 invalid_client with WWW-Authenticate: Basic, revoking nothing', async () => {
      const token = await flowToken();
      const res = await revoke({ token }, basic(c.clientId, 'wrong'));
      expectError(res, 401, 'invalid_client');
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="tipjar"/);
      expect(await works(token)).toBe(true);
    });

    it('no client authentication → 401 invalid_client, revoking nothing', async () => {
      const token = await flowToken();
      expectError(await revoke({ token }, {}), 401, 'invalid_client');
      expect(await works(token)).toBe(true);
    });
  });

  describe('RFC 8414 §3.2 authorization server metadata', () => {
    const EXPECTED_KEYS = [
      'authorization_endpoint',
      'code_challenge_methods_supported',
      'grant_types_supported',
      'issuer',
      'response_modes_supported',
      'response_types_supported',
      'revocation_endpoint',
      'revocation_endpoint_auth_methods_supported',
      'scopes_supported',
      'service_documentation',
      'token_endpoint',
      'token_endpoint_auth_methods_supported',
    ];

    it('GET /.well-known/oauth-authorization-server describes this server', async () => {
      const res = await t.app.inject({ url: '/.well-known/oauth-authorization-server' });
      expect(res.statusCode).toBe(200);
      const body = json(res);
      expect(Object.keys(body).sort()).toEqual(EXPECTED_KEYS);
      expect(body).toEqual({
        issuer: PUBLIC_URL,
        authorization_endpoint: `${PUBLIC_URL}/oauth/authorize`,
        token_endpoint: `${PUBLIC_URL}/oauth/token`,
        revocation_endpoint: `${PUBLIC_URL}/oauth/revoke`,
        response_types_supported: ['code', 'token'],
        response_modes_supported: ['query', 'fragment'],
        grant_types_supported: ['authorization_code', 'implicit'],
        scopes_supported: ['tip', 'thing', 'extendedread'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        service_documentation: `${PUBLIC_URL}/docs/api#oauth-2`,
      });
    });

    it('uses AUTH_URL when it differs from PUBLIC_URL', async () => {
      const other = await buildTestApp(engine, { env: { AUTH_URL: 'https://auth.tipjar.test/' } });
      try {
        const body = json(await other.app.inject({ url: '/.well-known/oauth-authorization-server' }));
        expect(body.issuer).toBe('https://auth.tipjar.test');
        expect(body.token_endpoint).toBe('https://auth.tipjar.test/oauth/token');
        expect(body.authorization_endpoint).toBe('https://auth.tipjar.test/oauth/authorize');
      } finally {
        await other.close();
      }
    });
  });
});
