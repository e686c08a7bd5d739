/**
 * POST {auth_url}/oauth/token (api-v2.md "Authentication" 4–5, DECISIONS.md "OAuth 2"), by RFC
 * section, on every engine. Codes come from the domain calls the consent page makes.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { authorizeCode, basic, buildClient, pkcePair, REDIRECT_URI, type TestClient } from '../helpers/oauth.ts';
import {
  deleteClient,
  listAuthorizedApps,
  revokeAuthorization,
  rotateClientSecret,
} from '../../src/auth/oauth/clients.ts';
import { exchangeAuthorizationCode } from '../../src/auth/oauth/token.ts';
import { expectOAuthError } from '../helpers/errors.ts';

const START = 1_767_225_600; // 2026-01-01T00:00:00Z
const PAST_EXPIRES = 'Thu, 19 Nov 1981 08:52:00 GMT';
const TOKEN = '/oauth/token';

describe.each(ENGINES)('OAuth token endpoint on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(START);
  let user: TestUser;
  let c: TestClient;

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
    user = await buildUser(t.services);
    c = await buildClient(t.services);
  });
  afterAll(async () => t.close());

  const post = (payload: unknown, headers: Record<string, string> = {}, contentType = 'application/json') =>
    t.app.inject({
      method: 'POST',
      url: TOKEN,
      headers: { 'content-type': contentType, ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const exchange = (code: string, extra: Record<string, string> = {}, client: TestClient = c) =>
    post(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...extra },
      basic(client.clientId, client.clientSecret),
    );

  /** Asserts an RFC 6749 §5.2 error: status, exactly {error, error_description}, no-store. */
  const expectError = (res: Awaited<ReturnType<typeof post>>, status: number, error: string) =>
    expectOAuthError(res, status, error, { noStore: true });

  const tokenRow = (token: string) =>
    t.db.database.db
      .selectFrom('access_tokens')
      .selectAll()
      .where('token_hash', '=', createHash('sha256').update(token).digest('hex'))
      .executeTakeFirstOrThrow();
  const liveTokensOf = async (clientRowId: number) =>
    Number(
      (
        await t.db.database.db
          .selectFrom('access_tokens')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('client_id', '=', clientRowId)
          .where('revoked_at', 'is', null)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const me = (token: string) => t.app.inject({ url: `${API}/user`, headers: bearer(token) });

  describe('RFC 6749 §4.1.3 / §5.1 access token request and response', () => {
    it('exchanges a code sent as JSON with HTTP Basic: {access_token, token_type, scope} and the no-cache headers', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id, { scope: 'tip thing' });
      const res = await exchange(code);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('application/json;charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.pragma).toBe('no-cache');
      expect(res.headers.expires).toBe(PAST_EXPIRES);
      const body = json(res);
      expect(Object.keys(body).sort()).toEqual(['access_token', 'scope', 'token_type']);
      expect(body.token_type).toBe('bearer');
      expect(body.scope).toBe('tip thing');
      expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const row = await tokenRow(body.access_token);
      expect(Number(row.client_id)).toBe(c.client.id);
      expect(row.code_id).not.toBeNull();
      expect(Number(row.user_id)).toBe(user.user.id);
      expect(row.scope).toBe('tip thing');
      expect(row.revoked_at).toBeNull();
      const u = await me(body.access_token);
      expect(u.statusCode).toBe(200);
      expect(json(u).username).toBe(user.user.username);
    });

    it('accepts a form-urlencoded body', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const form = new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
      }).toString();
      const res = await post(form, basic(c.clientId, c.clientSecret), 'application/x-www-form-urlencoded');
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res)).toMatchObject({ token_type: 'bearer', scope: 'tip' });
    });

    it('grants an empty scope when none was requested', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id, { scope: undefined });
      const res = await exchange(code);
      expect(res.statusCode).toBe(200);
      expect(json(res).scope).toBe('');
    });
  });

  describe('RFC 6749 §2.3.1 client authentication', () => {
    it('accepts client_id and client_secret in the body', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const res = await post({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        client_id: c.clientId,
        client_secret: c.clientSecret,
      });
      expect(res.statusCode, res.body).toBe(200);
    });

    it('decodes form-urlencoded Basic credentials (every character percent-encoded)', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const pct = (v: string) =>
        [...Buffer.from(v)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
      const authorization = `Basic ${Buffer.from(`${pct(c.clientId)}:${pct(c.clientSecret)}`).toString('base64')}`;
      const res = await post({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }, { authorization });
      expect(res.statusCode, res.body).toBe(200);
    });

    it('a wrong secret over Basic → 401 invalid_client with WWW-Authenticate: Basic, and the code stays usable', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const res = await exchange(code, {}, { ...c, clientSecret: `${c.clientSecret}x` });
      expectError(res, 401, 'invalid_client');
      expect(res.headers['www-authenticate']).toBe('Basic realm="tipjar", charset="UTF-8"');
      expect((await exchange(code)).statusCode).toBe(200);
    });

    it('a wrong secret in the body → 400 invalid_client without a challenge', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const res = await post({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        client_id: c.clientId,
        client_secret: 'nope',
      });
      expectError(res, 400, 'invalid_client');
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    it('a body client_id without client_secret → 400 invalid_client', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      expectError(await post({ grant_type: 'authorization_code', code, client_id: c.clientId }), 400, 'invalid_client');
    });

    it('an unknown client → 401 invalid_client', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      expectError(
        await post({ grant_type: 'authorization_code', code }, basic('unknown', 'secret')),
        401,
        'invalid_client',
      );
    });

    it('no client credentials at all → 401 invalid_client with WWW-Authenticate: Basic', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const res = await post({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
      expectError(res, 401, 'invalid_client');
      expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    });

    it('malformed Authorization headers → 401 invalid_client', async () => {
      for (const authorization of [
        'Bearer abc',
        'Basic !!!',
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
        `Basic ${Buffer.from('%ZZ:x').toString('base64')}`,
      ]) {
        expectError(
          await post({ grant_type: 'authorization_code', code: 'x' }, { authorization }),
          401,
          'invalid_client',
        );
      }
    });

    it('Basic and client_secret in the body together → 400 invalid_request', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const res = await exchange(code, { client_secret: c.clientSecret });
      expectError(res, 400, 'invalid_request');
    });

    it('a body client_id differing from the Basic one → 400 invalid_request; the same one is fine', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      expectError(await exchange(code, { client_id: 'other' }), 400, 'invalid_request');
      expect((await exchange(code, { client_id: c.clientId })).statusCode).toBe(200);
    });

    it('after rotation the old secret fails and the new one works', async () => {
      const own = await buildClient(t.services);
      const { clientSecret } = await rotateClientSecret(t.services, own.clientId);
      const { code } = await authorizeCode(t.services, own, user.user.id);
      expectError(await exchange(code, {}, own), 401, 'invalid_client');
      expect((await exchange(code, {}, { ...own, clientSecret })).statusCode).toBe(200);
    });

    it('a client deleted after it authenticated gets no token (re-checked in the transaction)', async () => {
      const gone = await buildClient(t.services);
      const { code } = await authorizeCode(t.services, gone, user.user.id);
      await deleteClient(t.services, gone.clientId);
      await expect(
        exchangeAuthorizationCode(t.services, gone.client, {
          code,
          redirectUri: REDIRECT_URI,
          codeVerifier: undefined,
        }),
      ).rejects.toMatchObject({
        error: 'invalid_client',
      });
      expect(await liveTokensOf(gone.client.id)).toBe(0);
    });

    it('deleting a client while its codes are exchanged leaves no live token of it (race, 5 rounds)', async () => {
      for (let round = 0; round < 5; round++) {
        const racing = await buildClient(t.services);
        const codes = await Promise.all(
          Array.from({ length: 4 }, () => authorizeCode(t.services, racing, user.user.id)),
        );
        await Promise.all([
          ...codes.map(({ code }) => exchange(code, {}, racing)),
          deleteClient(t.services, racing.clientId),
        ]);
        expect(await liveTokensOf(racing.client.id)).toBe(0);
      }
    });

    it('a user revoking an app while its codes are exchanged leaves no live token of that user (race, 5 rounds)', async () => {
      const racing = await buildClient(t.services);
      for (let round = 0; round < 5; round++) {
        const someone = await buildUser(t.services);
        const codes = await Promise.all(
          Array.from({ length: 4 }, () => authorizeCode(t.services, racing, someone.user.id)),
        );
        await Promise.all([
          ...codes.map(({ code }) => exchange(code, {}, racing)),
          revokeAuthorization(t.services, someone.user.id, racing.clientId),
        ]);
        expect(await listAuthorizedApps(t.services, someone.user.id)).toEqual([]);
      }
    });

    it('a deleted client cannot authenticate', async () => {
      const gone = await buildClient(t.services);
      const { code } = await authorizeCode(t.services, gone, user.user.id);
      await deleteClient(t.services, gone.clientId);
      expectError(await exchange(code, {}, gone), 401, 'invalid_client');
    });
  });

  describe('RFC 6749 §5.2 error responses', () => {
    it('missing grant_type → invalid_request', async () => {
      expectError(await post({ code: 'x' }, basic(c.clientId, c.clientSecret)), 400, 'invalid_request');
    });

    it('grant types other than authorization_code → unsupported_grant_type', async () => {
      for (const grant_type of ['password', 'client_credentials', 'refresh_token', 'implicit', 'AUTHORIZATION_CODE']) {
        expectError(
          await post({ grant_type, code: 'x' }, basic(c.clientId, c.clientSecret)),
          400,
          'unsupported_grant_type',
        );
      }
    });

    it('missing code → invalid_request; unknown code → invalid_grant', async () => {
      expectError(
        await post({ grant_type: 'authorization_code' }, basic(c.clientId, c.clientSecret)),
        400,
        'invalid_request',
      );
      expectError(await exchange('not-a-code'), 400, 'invalid_grant');
    });

    it("another client's code → invalid_grant, and the code still works for its own client", async () => {
      const other = await buildClient(t.services);
      const { code } = await authorizeCode(t.services, c, user.user.id);
      expectError(await exchange(code, {}, other), 400, 'invalid_grant');
      expect((await exchange(code)).statusCode).toBe(200);
    });

    it('a repeated form parameter → invalid_request (RFC 6749 §3.2)', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const form = `grant_type=authorization_code&code=${encodeURIComponent(code)}&code=${encodeURIComponent(code)}`;
      expectError(
        await post(form, basic(c.clientId, c.clientSecret), 'application/x-www-form-urlencoded'),
        400,
        'invalid_request',
      );
    });

    it('non-string JSON values and non-object bodies → invalid_request', async () => {
      expectError(
        await post({ grant_type: 'authorization_code', code: 42 }, basic(c.clientId, c.clientSecret)),
        400,
        'invalid_request',
      );
      expectError(await post('["grant_type"]', basic(c.clientId, c.clientSecret)), 400, 'invalid_request');
      expectError(await post('null', basic(c.clientId, c.clientSecret)), 400, 'invalid_request');
      expectError(await post('"authorization_code"', basic(c.clientId, c.clientSecret)), 400, 'invalid_request');
    });

    it('a body that does not parse, or of another content type → invalid_request in the RFC form', async () => {
      expectError(await post('{"grant_type":', basic(c.clientId, c.clientSecret)), 400, 'invalid_request');
      expectError(
        await post('grant_type=authorization_code', basic(c.clientId, c.clientSecret), 'text/plain'),
        400,
        'invalid_request',
      );
    });
  });

  describe('RFC 6749 §4.1.2 codes are single use; reuse revokes the tokens issued from the code', () => {
    it('a second exchange → invalid_grant and the first token stops working', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const first = await exchange(code);
      expect(first.statusCode).toBe(200);
      const token = json(first).access_token as string;
      expect((await me(token)).statusCode).toBe(200);

      expectError(await exchange(code), 400, 'invalid_grant');
      expect((await me(token)).statusCode).toBe(401);
      expect((await tokenRow(token)).revoked_at).not.toBeNull();
      // The user's other tokens are untouched.
      expect((await me(user.token)).statusCode).toBe(200);
    });

    it('concurrent exchanges of one code: exactly one succeeds, and its token is revoked by the others', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const results = await Promise.all(Array.from({ length: 6 }, () => exchange(code)));
      const ok = results.filter((r) => r.statusCode === 200);
      expect(ok).toHaveLength(1);
      for (const r of results.filter((x) => x.statusCode !== 200)) expectError(r, 400, 'invalid_grant');
      expect((await me(json(ok[0]!).access_token)).statusCode).toBe(401);
    });
  });

  describe('RFC 6749 §4.1.2 codes expire after 10 minutes (injected clock)', () => {
    it('works 599 seconds after issue', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      clock.advance(599);
      expect((await exchange(code)).statusCode).toBe(200);
    });

    it('is refused 600 seconds after issue → invalid_grant', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      clock.advance(600);
      const body = expectError(await exchange(code), 400, 'invalid_grant');
      expect(body.error_description).toMatch(/expired/);
    });
  });

  describe('RFC 6749 §4.1.3 redirect_uri at the token endpoint', () => {
    it('required when the authorization request carried one → invalid_request without it', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      const res = await post({ grant_type: 'authorization_code', code }, basic(c.clientId, c.clientSecret));
      expectError(res, 400, 'invalid_request');
    });

    it('must be identical → invalid_grant for another URI in the same domain, a trailing slash or a different case', async () => {
      for (const other of [
        'https://app.example.com/other',
        `${REDIRECT_URI}/`,
        'https://APP.example.com/callback',
        `${REDIRECT_URI}?x=1`,
      ]) {
        const { code } = await authorizeCode(t.services, c, user.user.id);
        expectError(await exchange(code, { redirect_uri: other }), 400, 'invalid_grant');
      }
    });

    it('a failed attempt consumes the code: the correct retry is refused too', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      expectError(await exchange(code, { redirect_uri: 'https://app.example.com/other' }), 400, 'invalid_grant');
      expectError(await exchange(code), 400, 'invalid_grant');
    });

    it('not required when the authorization request had none; if sent, it must be the default one', async () => {
      const a = await authorizeCode(t.services, c, user.user.id, { redirect_uri: undefined });
      expect(a.location.href.startsWith('https://app.example.com/?code=')).toBe(true);
      expect(
        (await post({ grant_type: 'authorization_code', code: a.code }, basic(c.clientId, c.clientSecret))).statusCode,
      ).toBe(200);
      const b = await authorizeCode(t.services, c, user.user.id, { redirect_uri: undefined });
      expect((await exchange(b.code, { redirect_uri: 'https://app.example.com/' })).statusCode).toBe(200);
      const d = await authorizeCode(t.services, c, user.user.id, { redirect_uri: undefined });
      expectError(await exchange(d.code), 400, 'invalid_grant');
    });
  });

  describe('RFC 9700 §4.1.3 a client with registered redirect URIs: the token request repeats the one used', () => {
    const FIRST = 'https://app.example.com/oauth/done';
    const SECOND = 'https://app.example.com/oauth/other';

    it('the registered URI of the authorization request → 200; the other registered one → invalid_grant', async () => {
      const pair = await buildClient(t.services, { redirectUris: [FIRST, SECOND] });
      const a = await authorizeCode(t.services, pair, user.user.id, { redirect_uri: FIRST });
      expect(a.location.href.startsWith(`${FIRST}?code=`)).toBe(true);
      expect((await exchange(a.code, { redirect_uri: FIRST }, pair)).statusCode).toBe(200);
      const b = await authorizeCode(t.services, pair, user.user.id, { redirect_uri: FIRST });
      expectError(await exchange(b.code, { redirect_uri: SECOND }, pair), 400, 'invalid_grant');
      const d = await authorizeCode(t.services, pair, user.user.id, { redirect_uri: FIRST });
      expectError(
        await post({ grant_type: 'authorization_code', code: d.code }, basic(pair.clientId, pair.clientSecret)),
        400,
        'invalid_request',
      );
    });

    it('the only registered URI, used without redirect_uri: the token request may omit it or repeat that URI', async () => {
      const single = await buildClient(t.services, { redirectUris: [FIRST] });
      const a = await authorizeCode(t.services, single, user.user.id, { redirect_uri: undefined });
      expect(a.location.href.startsWith(`${FIRST}?code=`)).toBe(true);
      expect(
        (await post({ grant_type: 'authorization_code', code: a.code }, basic(single.clientId, single.clientSecret)))
          .statusCode,
      ).toBe(200);
      const b = await authorizeCode(t.services, single, user.user.id, { redirect_uri: undefined });
      expect((await exchange(b.code, { redirect_uri: FIRST }, single)).statusCode).toBe(200);
      const d = await authorizeCode(t.services, single, user.user.id, { redirect_uri: undefined });
      expectError(await exchange(d.code, { redirect_uri: 'https://app.example.com/' }, single), 400, 'invalid_grant');
    });
  });

  describe('RFC 7636 §4.5–4.6 PKCE at the token endpoint', () => {
    it('the right code_verifier → 200', async () => {
      const { verifier, challenge } = pkcePair();
      const { code } = await authorizeCode(t.services, c, user.user.id, {
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      expect((await exchange(code, { code_verifier: verifier })).statusCode).toBe(200);
    });

    it('a wrong code_verifier → invalid_grant, and the code is spent', async () => {
      const { verifier, challenge } = pkcePair();
      const { code } = await authorizeCode(t.services, c, user.user.id, {
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      expectError(await exchange(code, { code_verifier: pkcePair().verifier }), 400, 'invalid_grant');
      expectError(await exchange(code, { code_verifier: verifier }), 400, 'invalid_grant');
    });

    it('the challenge itself as verifier (plain) → invalid_grant', async () => {
      const { challenge } = pkcePair();
      const { code } = await authorizeCode(t.services, c, user.user.id, {
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      expectError(await exchange(code, { code_verifier: challenge }), 400, 'invalid_grant');
    });

    it('a missing code_verifier → invalid_request; a malformed one → invalid_request', async () => {
      const { challenge } = pkcePair();
      const a = await authorizeCode(t.services, c, user.user.id, {
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      expectError(await exchange(a.code), 400, 'invalid_request');
      const b = await authorizeCode(t.services, c, user.user.id, {
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      expectError(await exchange(b.code, { code_verifier: 'short' }), 400, 'invalid_request');
    });

    it('a code_verifier for a code issued without a challenge → invalid_grant', async () => {
      const { code } = await authorizeCode(t.services, c, user.user.id);
      expectError(await exchange(code, { code_verifier: pkcePair().verifier }), 400, 'invalid_grant');
    });
  });

  describe('tokens from the flow work on the API exactly like CLI tokens', () => {
    it('tips a thing with POST /rest/v2/things/:id/tip, recording the client', async () => {
      const owner = await buildUser(t.services);
      const thingId = await buildThing(t.services, owner);
      const tipper = await buildUser(t.services);
      const { code } = await authorizeCode(t.services, c, tipper.user.id, { scope: 'tip' });
      const token = json(await exchange(code)).access_token as string;
      const res = await t.app.inject({ method: 'POST', url: `${API}/things/${thingId}/tip`, headers: bearer(token) });
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res)).toMatchObject({ message: 'ok', thing: { id: thingId, tips: 1 } });
      const tip = await t.db.database.db
        .selectFrom('tips')
        .select(['client_id', 'tipper_id'])
        .where('thing_id', '=', thingId)
        .executeTakeFirstOrThrow();
      expect(Number(tip.client_id)).toBe(c.client.id);
      expect(Number(tip.tipper_id)).toBe(tipper.user.id);
    });

    it('a token without the tip scope → 403 insufficient_scope', async () => {
      const owner = await buildUser(t.services);
      const thingId = await buildThing(t.services, owner);
      const { code } = await authorizeCode(t.services, c, user.user.id, { scope: 'thing' });
      const token = json(await exchange(code)).access_token as string;
      const res = await t.app.inject({ method: 'POST', url: `${API}/things/${thingId}/tip`, headers: bearer(token) });
      expect(res.statusCode).toBe(403);
      expect(json(res).error).toBe('insufficient_scope');
    });

    it('revokeAuthorization (website) and deleteClient stop the tokens', async () => {
      const app = await buildClient(t.services);
      const someone = await buildUser(t.services);
      const a = json(
        await exchange(
          (await authorizeCode(t.services, app, someone.user.id, { scope: 'tip extendedread' })).code,
          {},
          app,
        ),
      ).access_token;
      const apps = await listAuthorizedApps(t.services, someone.user.id);
      expect(apps.map((x) => [x.client.clientId, x.scopes.sort(), x.tokens])).toEqual([
        [app.clientId, ['extendedread', 'tip'], 1],
      ]);
      expect(await revokeAuthorization(t.services, someone.user.id, app.clientId)).toEqual({ revokedTokens: 1 });
      expect((await me(a)).statusCode).toBe(401);
      expect(await listAuthorizedApps(t.services, someone.user.id)).toEqual([]);

      const b = json(
        await exchange((await authorizeCode(t.services, app, someone.user.id)).code, {}, app),
      ).access_token;
      expect((await me(b)).statusCode).toBe(200);
      expect(await deleteClient(t.services, app.clientId)).toEqual({ revokedTokens: 1 });
      expect((await me(b)).statusCode).toBe(401);
      expect((await me(someone.token)).statusCode).toBe(200);
    });
  });
});
