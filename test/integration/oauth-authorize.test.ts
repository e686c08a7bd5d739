/**
 * The authorization endpoint's domain half (src/auth/oauth/authorize.ts), by RFC section, on every
 * engine: validateAuthorizationRequest / approveAuthorization / denyAuthorization, no browser.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, type TestApp } from '../helpers/app.ts';
import { buildUser, type TestUser } from '../helpers/factories.ts';
import { buildClient, pkcePair, REDIRECT_URI, type TestClient } from '../helpers/oauth.ts';
import {
  approveAuthorization,
  AuthorizationRequestError,
  denyAuthorization,
  SCOPE_DESCRIPTIONS,
  validateAuthorizationRequest,
} from '../../src/auth/oauth/authorize.ts';
import { deleteClient, setClientRedirectUris } from '../../src/auth/oauth/clients.ts';
import { SCOPES } from '../../src/domain/scopes.ts';

const START = 1_767_225_600;
const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

describe.each(ENGINES)('OAuth authorization requests on %s', (engine) => {
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

  const q = (over: Record<string, unknown> = {}) => {
    const base: Record<string, unknown> = {
      response_type: 'code',
      client_id: c.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'tip',
      state: 'xyz',
    };
    for (const [k, v] of Object.entries(over)) {
      if (v === undefined) delete base[k];
      else base[k] = v;
    }
    return base;
  };
  const validate = (over: Record<string, unknown> = {}) => validateAuthorizationRequest(t.services, q(over));

  /** The thrown AuthorizationRequestError of a refused request. */
  async function refused(over: Record<string, unknown>): Promise<AuthorizationRequestError> {
    try {
      await validate(over);
    } catch (err) {
      expect(err).toBeInstanceOf(AuthorizationRequestError);
      return err as AuthorizationRequestError;
    }
    throw new Error(`accepted: ${JSON.stringify(over)}`);
  }

  /** Asserts an error that must be shown on a page: never a redirect. */
  async function expectPage(over: Record<string, unknown>, error: string) {
    const err = await refused(over);
    expect(err.error).toBe(error);
    expect(err.redirectable).toBe(false);
    expect(err.redirectUrl).toBeUndefined();
    expect(err.status).toBe(400);
    return err;
  }

  /** Asserts an error redirected to the client; returns the redirect's parameters. */
  async function expectRedirect(over: Record<string, unknown>, error: string, mode: 'query' | 'fragment' = 'query') {
    const err = await refused(over);
    expect(err.error).toBe(error);
    expect(err.redirectable).toBe(true);
    const url = new URL(err.redirectUrl!);
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT_URI);
    const params = mode === 'query' ? url.searchParams : new URLSearchParams(url.hash.slice(1));
    if (mode === 'fragment') expect(url.search).toBe('');
    else expect(url.hash).toBe('');
    expect(params.get('error')).toBe(error);
    expect(params.get('error_description')).toBe(err.description);
    return params;
  }

  const counts = async () => ({
    codes: Number(
      (
        await t.db.database.db
          .selectFrom('oauth_codes')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
    tokens: Number(
      (
        await t.db.database.db
          .selectFrom('access_tokens')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
  });

  describe('RFC 6749 §4.1.1 a valid authorization request', () => {
    it('returns the client, redirect URI, response type, scopes, state and PKCE fields', async () => {
      const { challenge } = pkcePair();
      const r = await validate({ scope: 'tip thing', code_challenge: challenge, code_challenge_method: 'S256' });
      expect(Object.keys(r).sort()).toEqual(
        [
          'client',
          'codeChallenge',
          'codeChallengeMethod',
          'redirectUri',
          'redirectUriGiven',
          'responseType',
          'scopes',
          'state',
        ].sort(),
      );
      expect(r.client.clientId).toBe(c.clientId);
      expect(r).toMatchObject({
        redirectUri: REDIRECT_URI,
        redirectUriGiven: true,
        responseType: 'code',
        scopes: ['tip', 'thing'],
        state: 'xyz',
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
      });
    });

    it('without redirect_uri uses the root of the callback domain and remembers it was not given', async () => {
      const r = await validate({ redirect_uri: undefined });
      expect(r.redirectUri).toBe('https://app.example.com/');
      expect(r.redirectUriGiven).toBe(false);
      const local = await buildClient(t.services, { callbackDomain: 'localhost' });
      const l = await validateAuthorizationRequest(t.services, { response_type: 'code', client_id: local.clientId });
      expect(l.redirectUri).toBe('http://localhost/');
      expect(l.state).toBeUndefined();
      expect(l.scopes).toEqual([]);
    });

    it('ignores unknown parameters and treats empty ones as absent (RFC 6749 §3.1)', async () => {
      const r = await validate({ foo: 'bar', state: '', scope: '' });
      expect(r.state).toBeUndefined();
      expect(r.scopes).toEqual([]);
    });

    it('names every scope in plain words for the consent page', () => {
      expect(Object.keys(SCOPE_DESCRIPTIONS).sort()).toEqual([...SCOPES].sort());
    });
  });

  describe('RFC 6749 §4.1.2 authorization response (code)', () => {
    it('redirects with ?code=…&state=…; the code is stored hashed, bound and valid 10 minutes', async () => {
      const { challenge } = pkcePair();
      const request = await validate({ scope: 'thing,tip', code_challenge: challenge, code_challenge_method: 'S256' });
      const location = new URL(await approveAuthorization(t.services, request, user.user.id));
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect([...location.searchParams.keys()]).toEqual(['code', 'state']);
      expect(location.searchParams.get('state')).toBe('xyz');
      expect(location.hash).toBe('');
      const code = location.searchParams.get('code')!;
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const row = await t.db.database.db
        .selectFrom('oauth_codes')
        .selectAll()
        .where('code_hash', '=', sha256(code))
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        redirect_uri: REDIRECT_URI,
        scope: 'thing tip',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      expect(Number(row.client_id)).toBe(c.client.id);
      expect(Number(row.user_id)).toBe(user.user.id);
      expect(Number(row.redirect_uri_given)).toBe(1);
      expect(Number(row.created_at)).toBe(clock.now());
      expect(Number(row.expires_at)).toBe(clock.now() + 600);
      expect(row.used_at).toBeNull();
      const stored = await t.db.database.db
        .selectFrom('oauth_codes')
        .select('id')
        .where('code_hash', '=', code)
        .executeTakeFirst();
      expect(stored).toBeUndefined();
    });

    it("keeps the redirect URI's own query and adds the parameters after it", async () => {
      const request = await validate({ redirect_uri: 'https://app.example.com/cb?app=1&x=a%20b', state: 'a b&c' });
      const location = await approveAuthorization(t.services, request, user.user.id);
      expect(location.startsWith('https://app.example.com/cb?app=1&x=a%20b&code=')).toBe(true);
      expect(new URL(location).searchParams.get('state')).toBe('a b&c');
    });

    it('omits state when none was sent', async () => {
      const location = new URL(
        await approveAuthorization(t.services, await validate({ state: undefined }), user.user.id),
      );
      expect([...location.searchParams.keys()]).toEqual(['code']);
    });

    it('refuses to approve for a client deleted after validation (not redirectable), storing nothing', async () => {
      const gone = await buildClient(t.services);
      const request = await validateAuthorizationRequest(t.services, {
        response_type: 'code',
        client_id: gone.clientId,
      });
      await deleteClient(t.services, gone.clientId);
      const before = await counts();
      const err = await approveAuthorization(t.services, request, user.user.id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthorizationRequestError);
      expect((err as AuthorizationRequestError).error).toBe('invalid_client');
      expect((err as AuthorizationRequestError).redirectable).toBe(false);
      expect(await counts()).toEqual(before);
    });
  });

  describe('RFC 6749 §4.2.2 implicit grant (response_type=token)', () => {
    it('redirects with #access_token=…&token_type=bearer&scope=…&state=…, a token that works on the API', async () => {
      const request = await validate({ response_type: 'token', scope: 'tip extendedread' });
      const location = new URL(await approveAuthorization(t.services, request, user.user.id));
      expect(location.search).toBe('');
      const params = new URLSearchParams(location.hash.slice(1));
      expect([...params.keys()]).toEqual(['access_token', 'token_type', 'scope', 'state']);
      expect(params.get('token_type')).toBe('bearer');
      expect(params.get('scope')).toBe('tip extendedread');
      expect(params.get('state')).toBe('xyz');
      const token = params.get('access_token')!;
      const row = await t.db.database.db
        .selectFrom('access_tokens')
        .selectAll()
        .where('token_hash', '=', sha256(token))
        .executeTakeFirstOrThrow();
      expect(Number(row.client_id)).toBe(c.client.id);
      expect(row.code_id).toBeNull();
      const res = await t.app.inject({ url: `${API}/user`, headers: bearer(token) });
      expect(res.statusCode).toBe(200);
      expect(json(res)).toHaveProperty('email');
    });
  });

  describe('RFC 6749 §4.1.2.1 invalid client or redirect_uri: an error page, never a redirect', () => {
    it('missing or repeated client_id → invalid_request', async () => {
      await expectPage({ client_id: undefined }, 'invalid_request');
      await expectPage({ client_id: '' }, 'invalid_request');
      await expectPage({ client_id: [c.clientId, c.clientId] }, 'invalid_request');
    });

    it('unknown or deleted client → invalid_client', async () => {
      await expectPage({ client_id: 'nope' }, 'invalid_client');
      const gone = await buildClient(t.services);
      await deleteClient(t.services, gone.clientId);
      await expectPage({ client_id: gone.clientId }, 'invalid_client');
    });

    it('redirect_uri outside the callback domain → invalid_request', async () => {
      for (const uri of [
        'https://evil.com/cb',
        'https://badapp.example.com.evil.com/cb',
        'https://example.com/cb', // the parent of the callback domain
        'https://xapp.example.com/cb', // a suffix that is not a subdomain
        'https://app.example.com.evil.com/',
        'https://app.example.com@evil.com/',
        'https://user:pw@app.example.com/',
      ]) {
        await expectPage({ redirect_uri: uri }, 'invalid_request');
      }
    });

    it('redirect_uri that is not https, relative, or carries a fragment → invalid_request', async () => {
      for (const uri of [
        'http://app.example.com/cb',
        'javascript:alert(1)//app.example.com',
        'ftp://app.example.com/cb',
        '/cb',
        'app.example.com/cb',
        'https://app.example.com/cb#',
        'https://app.example.com/cb#frag',
        'https:\\\\evil.com\\app.example.com',
        `https://app.example.com/${'a'.repeat(2000)}`,
      ]) {
        await expectPage({ redirect_uri: uri }, 'invalid_request');
      }
    });

    it('repeated redirect_uri → invalid_request', async () => {
      await expectPage({ redirect_uri: [REDIRECT_URI, 'https://evil.com/'] }, 'invalid_request');
    });

    it('a page error wins over later errors (bad redirect_uri and bad response_type)', async () => {
      await expectPage({ redirect_uri: 'https://evil.com/', response_type: 'nope', scope: 'bogus' }, 'invalid_request');
    });

    it('accepts subdomains, any port and path, and http only for localhost / 127.0.0.1', async () => {
      expect((await validate({ redirect_uri: 'https://a.b.app.example.com:8443/x/y?z=1' })).redirectUri).toBe(
        'https://a.b.app.example.com:8443/x/y?z=1',
      );
      const local = await buildClient(t.services, { callbackDomain: 'localhost' });
      const loop = await buildClient(t.services, { callbackDomain: '127.0.0.1' });
      const ok = async (client: TestClient, uri: string) =>
        (
          await validateAuthorizationRequest(t.services, {
            response_type: 'code',
            client_id: client.clientId,
            redirect_uri: uri,
          })
        ).redirectUri;
      expect(await ok(local, 'http://localhost:8080/cb')).toBe('http://localhost:8080/cb');
      expect(await ok(local, 'https://localhost/cb')).toBe('https://localhost/cb');
      expect(await ok(loop, 'http://127.0.0.1:9999/cb')).toBe('http://127.0.0.1:9999/cb');
      await expect(ok(local, 'http://127.0.0.1/cb')).rejects.toMatchObject({
        error: 'invalid_request',
        redirectUrl: undefined,
      });
      await expect(ok(local, 'http://sub.localhost/cb')).rejects.toMatchObject({
        error: 'invalid_request',
        redirectUrl: undefined,
      });
    });
  });

  describe('RFC 6749 §3.1.2 a redirect_uri whose query carries a response parameter: an error page', () => {
    it.each([
      'code',
      'state',
      'error',
      'error_description',
      'error_uri',
      'access_token',
      'token_type',
      'expires_in',
      'scope',
      'iss',
    ])('?%s=… → invalid_request naming it, never redirected, nothing stored', async (name) => {
      const before = await counts();
      for (const uri of [
        `${REDIRECT_URI}?${name}=planted`,
        `${REDIRECT_URI}?app=1&${name}`,
        `${REDIRECT_URI}?${encodeURIComponent(name).replace(/^./, (ch) => `%${ch.charCodeAt(0).toString(16)}`)}=x`,
      ]) {
        const err = await expectPage({ redirect_uri: uri }, 'invalid_request');
        expect(err.description).toBe(
          `redirect_uri must not carry "${name}" in its query: the authorization response adds its own`,
        );
        // with a valid client and response_type=token too: still a page, not a fragment redirect
        await expectPage({ redirect_uri: uri, response_type: 'token' }, 'invalid_request');
      }
      expect(await counts()).toEqual(before);
    });

    it('parameters of other names stay and the code comes after them, once', async () => {
      const request = await validate({ redirect_uri: `${REDIRECT_URI}?codes=1&Code=2&app_state=3`, state: 's' });
      const location = new URL(await approveAuthorization(t.services, request, user.user.id));
      expect(location.searchParams.getAll('code')).toHaveLength(1);
      expect(location.searchParams.getAll('state')).toEqual(['s']);
      expect(location.searchParams.get('codes')).toBe('1');
      expect(location.searchParams.get('Code')).toBe('2');
    });
  });

  describe('RFC 9700 §4.1.3 exact redirect URIs, when the client registered any', () => {
    const EXACT = 'https://app.example.com/oauth/done';
    const SECOND = 'https://m.app.example.com/cb?app=1';
    let exact: TestClient;
    let pair: TestClient;
    beforeAll(async () => {
      exact = await buildClient(t.services, { redirectUris: [EXACT] });
      pair = await buildClient(t.services, { redirectUris: [EXACT, SECOND] });
    });
    const ask = (client: TestClient, over: Record<string, unknown> = {}) =>
      validate({ client_id: client.clientId, redirect_uri: EXACT, ...over });
    async function refusedPage(client: TestClient, over: Record<string, unknown>) {
      const err = await ask(client, over).then(
        () => undefined,
        (e: unknown) => e as AuthorizationRequestError,
      );
      expect(err, JSON.stringify(over)).toBeInstanceOf(AuthorizationRequestError);
      expect(err!.error).toBe('invalid_request');
      expect(err!.redirectUrl).toBeUndefined();
      return err!;
    }

    it('accepts a registered URI exactly as registered, and sends the code there', async () => {
      const request = await ask(exact);
      expect(request).toMatchObject({ redirectUri: EXACT, redirectUriGiven: true });
      expect((await ask(pair, { redirect_uri: SECOND })).redirectUri).toBe(SECOND);
      const location = await approveAuthorization(t.services, await ask(pair, { redirect_uri: SECOND }), user.user.id);
      expect(location.startsWith(`${SECOND}&code=`)).toBe(true);
    });

    it('refuses any other URI, even one the callback domain alone would accept (an error page, nothing stored)', async () => {
      const before = await counts();
      for (const uri of [
        'https://app.example.com/callback',
        `${EXACT}/`,
        `${EXACT}?x=1`,
        'https://APP.example.com/oauth/done',
        'https://app.example.com:443/oauth/done',
        'https://app.example.com/oauth/%64one',
        'https://app.example.com/oauth/./done',
        'https://m.app.example.com/cb?app=1&x=2',
        'https://m.app.example.com/cb',
      ]) {
        const err = await refusedPage(pair, { redirect_uri: uri, response_type: 'bogus', scope: 'bogus' });
        expect(err.description).toBe(
          'redirect_uri is not one of the redirect URIs the application registered (they must match exactly)',
        );
      }
      expect(await counts()).toEqual(before);
    });

    it('without redirect_uri: the only registered URI (not "given"); with several registered, an error page', async () => {
      const request = await ask(exact, { redirect_uri: undefined });
      expect(request).toMatchObject({ redirectUri: EXACT, redirectUriGiven: false });
      const location = await approveAuthorization(t.services, request, user.user.id);
      expect(location.startsWith(`${EXACT}?code=`)).toBe(true);
      const err = await refusedPage(pair, { redirect_uri: undefined });
      expect(err.description).toBe('redirect_uri is required: the application registered several redirect URIs');
    });

    it('a loopback http URI matches with any port (RFC 8252 §7.3), nothing else varies', async () => {
      const native = await buildClient(t.services, {
        callbackDomain: '127.0.0.1',
        redirectUris: ['http://127.0.0.1/cb'],
      });
      const ok = async (uri: string) => (await ask(native, { redirect_uri: uri })).redirectUri;
      expect(await ok('http://127.0.0.1/cb')).toBe('http://127.0.0.1/cb');
      expect(await ok('http://127.0.0.1:53123/cb')).toBe('http://127.0.0.1:53123/cb');
      for (const uri of [
        'http://127.0.0.1:53123/cb/',
        'http://127.0.0.1:53123/other',
        'https://127.0.0.1:53123/cb',
        'http://127.0.0.1:53123/cb?x=1',
      ]) {
        await refusedPage(native, { redirect_uri: uri });
      }
    });

    it('after the registered URIs are removed, the callback-domain rule applies again', async () => {
      const c2 = await buildClient(t.services, { redirectUris: [EXACT] });
      await refusedPage(c2, { redirect_uri: REDIRECT_URI });
      await setClientRedirectUris(t.services, c2.clientId, []);
      expect((await ask(c2, { redirect_uri: REDIRECT_URI })).redirectUri).toBe(REDIRECT_URI);
      expect((await ask(c2, { redirect_uri: undefined })).redirectUri).toBe('https://app.example.com/');
    });
  });

  describe('RFC 6749 §4.1.2.1 other errors are redirected to the client with state', () => {
    it('missing response_type → invalid_request', async () => {
      const p = await expectRedirect({ response_type: undefined }, 'invalid_request');
      expect(p.get('state')).toBe('xyz');
    });

    it('unknown response_type → unsupported_response_type', async () => {
      for (const rt of ['id_token', 'code token', 'CODE', 'access_token']) {
        const p = await expectRedirect({ response_type: rt }, 'unsupported_response_type');
        expect(p.get('state')).toBe('xyz');
      }
    });

    it('repeated response_type, scope or state → invalid_request (state omitted when it is the repeated one)', async () => {
      await expectRedirect({ response_type: ['code', 'token'] }, 'invalid_request');
      expect((await expectRedirect({ scope: ['tip', 'thing'] }, 'invalid_request')).get('state')).toBe('xyz');
      expect((await expectRedirect({ state: ['a', 'b'] }, 'invalid_request')).has('state')).toBe(false);
    });

    it('errors of a token request go in the fragment (RFC 6749 §4.2.2.1)', async () => {
      const p = await expectRedirect({ response_type: 'token', scope: 'bogus' }, 'invalid_scope', 'fragment');
      expect(p.get('state')).toBe('xyz');
    });
  });

  describe('RFC 6749 §3.3 scope: space- or comma-separated, known scopes only', () => {
    it('accepts spaces, commas and both, dropping duplicates', async () => {
      expect((await validate({ scope: 'tip thing' })).scopes).toEqual(['tip', 'thing']);
      expect((await validate({ scope: 'tip,thing,extendedread' })).scopes).toEqual(['tip', 'thing', 'extendedread']);
      expect((await validate({ scope: ' tip, thing  tip ' })).scopes).toEqual(['tip', 'thing']);
    });

    it('an unknown scope → invalid_scope, naming it', async () => {
      for (const scope of ['email', 'tip admin', 'TIP', 'flattr']) {
        const err = await refused({ scope });
        expect(err.error).toBe('invalid_scope');
        expect(err.redirectable).toBe(true);
      }
      const p = await expectRedirect({ scope: 'tip,admin' }, 'invalid_scope');
      expect(p.get('error_description')).toContain('"admin"');
      expect(p.get('state')).toBe('xyz');
    });
  });

  describe('RFC 7636 §4.3–4.4 PKCE in the authorization request: S256 only', () => {
    it('code_challenge_method=plain → invalid_request', async () => {
      const { verifier } = pkcePair();
      await expectRedirect({ code_challenge: verifier, code_challenge_method: 'plain' }, 'invalid_request');
    });

    it('a challenge without a method (RFC 7636 default plain) → invalid_request', async () => {
      await expectRedirect({ code_challenge: pkcePair().challenge }, 'invalid_request');
    });

    it('a method without a challenge, an unknown method, or a malformed challenge → invalid_request', async () => {
      await expectRedirect({ code_challenge_method: 'S256' }, 'invalid_request');
      await expectRedirect({ code_challenge: pkcePair().challenge, code_challenge_method: 'S512' }, 'invalid_request');
      await expectRedirect({ code_challenge: 'short', code_challenge_method: 'S256' }, 'invalid_request');
      await expectRedirect(
        { code_challenge: `${pkcePair().challenge}=`, code_challenge_method: 'S256' },
        'invalid_request',
      );
    });

    it('repeated PKCE parameters → invalid_request', async () => {
      const { challenge } = pkcePair();
      await expectRedirect(
        { code_challenge: [challenge, challenge], code_challenge_method: 'S256' },
        'invalid_request',
      );
      await expectRedirect({ code_challenge: challenge, code_challenge_method: ['S256', 'S256'] }, 'invalid_request');
    });

    it('PKCE with response_type=token → invalid_request, in the fragment', async () => {
      await expectRedirect(
        { response_type: 'token', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' },
        'invalid_request',
        'fragment',
      );
    });
  });

  describe('RFC 6749 §4.1.2.1 access_denied', () => {
    it('denyAuthorization redirects with error=access_denied and state, storing nothing', async () => {
      const before = await counts();
      const location = new URL(denyAuthorization(await validate({})));
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect([...location.searchParams.keys()]).toEqual(['error', 'error_description', 'state']);
      expect(location.searchParams.get('error')).toBe('access_denied');
      expect(location.searchParams.get('state')).toBe('xyz');
      expect(await counts()).toEqual(before);
    });

    it('in the fragment for response_type=token', async () => {
      const location = new URL(denyAuthorization(await validate({ response_type: 'token' })));
      expect(location.search).toBe('');
      expect(new URLSearchParams(location.hash.slice(1)).get('error')).toBe('access_denied');
    });
  });
});
