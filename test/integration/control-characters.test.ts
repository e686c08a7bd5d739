/**
 * Control characters refused at the edge (src/http/plugins/control-characters.ts), on every
 * engine: NUL and the other C0 controls, DEL and lone surrogates in path segments, query
 * parameters, JSON and form fields and HTTP Basic credentials answer 400 in the form of the
 * endpoint's context — the API's error shape, RFC 6749 `invalid_request` at the OAuth endpoints, an
 * HTML page on the website — and write nothing. PostgreSQL refuses NUL in a text parameter, so
 * each of these reached the database as a 500 before.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { basic, buildClient, REDIRECT_URI, type TestClient } from '../helpers/oauth.ts';
import { buildWebUser, html, WebClient } from '../helpers/web.ts';

/** Control characters as they arrive percent-encoded in a URL. */
const ENCODED = ['%00', 'a%00b', '%01', '%1F', '%7F', '%0A'];

function expectApiError(
  res: LightMyRequestResponse,
  code: 'invalid_request' | 'invalid_parameters',
  name: string,
): void {
  expect(res.statusCode, res.body).toBe(400);
  const body = json(res);
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description', 'error_uri']);
  expect(body.error).toBe(code);
  expect(body.error_description).toContain(`"${name}" holds a control character`);
}

function expectOAuthError(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['cache-control']).toBe('no-store');
  const body = JSON.parse(res.body);
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body.error).toBe('invalid_request');
  expect(body.error_description).toMatch(/control character/);
}

describe.each(ENGINES)('control characters on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser;
  let thing: number;
  let client: TestClient;

  beforeAll(async () => {
    t = await buildTestApp(engine);
    owner = await buildUser(t.services);
    thing = await buildThing(t.services, owner, { title: 'Plain' });
    client = await buildClient(t.services);
  });
  afterAll(async () => t?.close());

  /** Row counts of what a request could write. */
  async function counts() {
    const r = await sql<Record<string, number | string>>`
      select (select count(*) from things) as things, (select count(*) from tips) as tips, (select count(*) from users) as users,
             (select count(*) from oauth_clients) as clients, (select count(*) from access_tokens) as tokens, (select count(*) from sessions) as sessions`.execute(
      t.db.database.db,
    );
    return Object.fromEntries(Object.entries(r.rows[0]!).map(([k, v]) => [k, Number(v)]));
  }

  describe('the API', () => {
    it.each(ENCODED)('a path segment holding %s → 400 invalid_request, on every kind of route', async (raw) => {
      expectApiError(await t.app.inject({ url: `${API}/users/${raw}` }), 'invalid_request', 'username');
      const xml = await t.app.inject({ url: `${API}/users/${raw}/tips.xml` });
      expect(xml.statusCode).toBe(400);
      expect(xml.body).toContain('<error>invalid_request</error>');
      expectApiError(await t.app.inject({ url: `${API}/things/${raw}` }), 'invalid_request', 'ids');
      expectApiError(
        await t.app.inject({ method: 'POST', url: `${API}/things/1${raw}/tip`, headers: bearer(owner.token) }),
        'invalid_request',
        'id',
      );
    });

    it.each(ENCODED)('a query parameter holding %s, in its value or its name → 400 invalid_parameters', async (raw) => {
      expectApiError(
        await t.app.inject({ url: `${API}/things/lookup?url=https://example.com/${raw}` }),
        'invalid_parameters',
        'url',
      );
      expectApiError(await t.app.inject({ url: `${API}/things/search?query=x${raw}` }), 'invalid_parameters', 'query');
      expectApiError(
        await t.app.inject({ url: `${API}/things/${thing}?x${raw}=1` }),
        'invalid_parameters',
        `x${decodeURIComponent(raw).replace(/[^\x20-\x7e]/g, '?')}`,
      );
    });

    it('keeps the negotiated format and the rate-limit headers (XML, JSONP)', async () => {
      const xml = await t.app.inject({ url: `${API}/things/search.xml?query=%00` });
      expect(xml.statusCode).toBe(400);
      expect(xml.headers['content-type']).toBe('application/xml;charset=utf-8');
      expect(xml.body).toContain('<error>invalid_parameters</error>');
      expect(xml.headers['x-ratelimit-limit']).toBeDefined();
      const jsonp = await t.app.inject({ url: `${API}/things/search?query=%00&jsonp=cb` });
      expect(jsonp.statusCode).toBe(400);
      expect(jsonp.body).toMatch(/^\/\*\*\/cb\(\{"error":"invalid_parameters",/);
    });

    it('a JSON or form field holding a control character → 400 invalid_request naming it, nothing written', async () => {
      const before = await counts();
      const post = (payload: string, type: string) =>
        t.app.inject({
          method: 'POST',
          url: `${API}/things`,
          headers: { ...bearer(owner.token), 'content-type': type },
          payload,
        });
      expectApiError(
        await post(JSON.stringify({ url: 'https://example.com/nul', title: 'a\u0000b' }), 'application/json'),
        'invalid_request',
        'title',
      );
      expectApiError(
        await post(JSON.stringify({ url: 'https://example.com/nul', tags: ['ok', 'b\u0007d'] }), 'application/json'),
        'invalid_request',
        'tags',
      );
      expectApiError(
        await post(JSON.stringify({ url: 'https://example.com/nul', extra: { deep: ['\u001b'] } }), 'application/json'),
        'invalid_request',
        'extra.deep',
      );
      expectApiError(
        await post(JSON.stringify({ url: 'https://example.com/nul', 'ke\u0000y': 1 }), 'application/json'),
        'invalid_request',
        'ke?y',
      );
      expectApiError(
        await post(JSON.stringify({ url: 'https://example.com/nul', title: '\ud800' }), 'application/json'),
        'invalid_request',
        'title',
      );
      expectApiError(
        await post('url=https%3A%2F%2Fexample.com%2Fnul&description=x%00y', 'application/x-www-form-urlencoded'),
        'invalid_request',
        'description',
      );
      expectApiError(await post(JSON.stringify('\u0000'), 'application/json'), 'invalid_request', '(the body)');
      expect(await counts()).toEqual(before);
    });

    it('tab, line feed and carriage return are text in a body field (a description keeps its lines)', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        headers: bearer(owner.token),
        payload: { url: 'https://example.com/lines', title: 'Lines', description: 'one\r\ntwo\tthree' },
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(json(await t.app.inject({ url: `${API}/things/${json(res).id}` })).description).toBe('one\r\ntwo\tthree');
      // single-line fields take none of them
      for (const fields of [{ title: 'a\nb' }, { title: 'a\tb' }, { tags: ['a\rb'] }]) {
        const refused = await t.app.inject({
          method: 'POST',
          url: `${API}/things`,
          headers: bearer(owner.token),
          payload: { url: 'https://example.com/one-line', ...fields },
        });
        expect(refused.statusCode, refused.body).toBe(400);
        expect(json(refused).error).toBe('validation');
      }
    });

    it('a deeply nested JSON body is checked without exhausting the stack', async () => {
      const deep = `${'['.repeat(5000)}"\\u0000"${']'.repeat(5000)}`;
      const res = await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        headers: { ...bearer(owner.token), 'content-type': 'application/json' },
        payload: `{"url":"https://example.com/d","x":${deep}}`,
      });
      expectApiError(res, 'invalid_request', 'x');
    });
  });

  describe('the OAuth endpoints', () => {
    // (a line break in a body field is text, and a client_id holding one is merely unknown)
    it.each(ENCODED.filter((raw) => raw !== '%0A'))(
      'client_id holding %s at /oauth/token and /oauth/revoke → 400 invalid_request',
      async (raw) => {
        const before = await counts();
        for (const path of ['/oauth/token', '/oauth/revoke']) {
          const res = await t.app.inject({
            method: 'POST',
            url: path,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: `grant_type=authorization_code&code=x&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&token=x&client_id=${raw}&client_secret=s`,
          });
          expectOAuthError(res);
        }
        expect(await counts()).toEqual(before);
      },
    );

    it('HTTP Basic credentials holding a control character → 400 invalid_request', async () => {
      for (const [id, secret] of [
        [`${client.clientId}\u0000`, client.clientSecret],
        [client.clientId, `${client.clientSecret}\u0001`],
        ['\u007f', 'x'],
      ]) {
        for (const path of ['/oauth/token', '/oauth/revoke']) {
          const res = await t.app.inject({
            method: 'POST',
            url: path,
            headers: { ...basic(id!, secret!), 'content-type': 'application/x-www-form-urlencoded' },
            payload: `grant_type=authorization_code&code=x&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&token=x`,
          });
          expectOAuthError(res);
        }
      }
    });

    it.each(ENCODED)('client_id holding %s at /oauth/authorize → a 400 page, never a redirect', async (raw) => {
      const res = await new WebClient(t.app).get(
        `/oauth/authorize?response_type=code&client_id=${raw}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
      );
      expect(html(res, 400)).toContain('The query parameter &quot;client_id&quot; holds a control character');
      expect(res.headers.location).toBeUndefined();
    });
  });

  describe('the website', () => {
    it.each(['/apps/%00/secret', '/apps/a%00b/delete', '/authorized/%00/revoke', '/apps/%1B/delete'])(
      'POST %s → a 400 page, nothing changed',
      async (path) => {
        const user = await buildWebUser(t.services);
        const c = new WebClient(t.app);
        await c.login(user.username);
        const before = await counts();
        const res = await c.post(path, { _csrf: await c.csrf('/apps') });
        expect(html(res, 400)).toContain('holds a control character');
        expect(await counts()).toEqual(before);
      },
    );

    it('a sign-up e-mail (or any field) holding NUL → a 400 page, no user', async () => {
      const before = await counts();
      const c = new WebClient(t.app);
      for (const fields of [
        { email: 'a\u0000@example.com' },
        { username: 'nul\u0000name' },
        { password: 'pass\u0000word' },
      ]) {
        const res = await c.submit('/signup', '/signup', {
          username: 'newcomer',
          email: 'new@example.com',
          password: 'correct horse battery',
          ...fields,
        });
        expect(html(res, 400)).toContain('holds a control character');
      }
      expect(await counts()).toEqual(before);
    });

    it('a profile or thing page path holding a control character → a 400 page', async () => {
      for (const path of ['/profile/a%00b', '/thing/1%07', '/claim/email%3A%00']) {
        expect(html(await new WebClient(t.app).get(path), 400)).toContain('holds a control character');
      }
    });
  });
});
