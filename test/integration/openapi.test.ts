/**
 * The OpenAPI document and the docs page (docs/adr/0013-openapi.md, docs/api.md "OpenAPI"):
 * /openapi.json is a valid OpenAPI 3.1 document listing every API and OAuth route with its methods
 * and the media types as served; /docs is Swagger UI loading nothing from another origin;
 * real responses validate against their documented schemas (so the document cannot drift from
 * the wire format); and the schemas change no behaviour (no Ajv rejection or coercion, no
 * response serializer dropping or reordering fields).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv, type ValidateFunction } from 'ajv';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { LightMyRequestResponse } from 'fastify';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { apiRoutesOf, DOCS_CSP } from '../../src/http/plugins/openapi.ts';
import { MEDIA } from '../../src/http/schemas/common.ts';
import { FULL_THING_KEYS } from '../helpers/representations.ts';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

/** Every operation the document must list: the spec's endpoints, the PATCH workaround, OAuth. */
const EXPECTED: Record<string, string[]> = {
  '/rest/v2/users/{username}/things': ['get'],
  '/rest/v2/user/things': ['get'],
  '/rest/v2/things/{ids}': ['delete', 'get', 'patch', 'post'],
  '/rest/v2/things/lookup': ['get'],
  '/rest/v2/things': ['post'],
  '/rest/v2/things/search': ['get'],
  '/rest/v2/user/subscriptions': ['get'],
  '/rest/v2/things/{id}/subscriptions': ['delete', 'post', 'put'],
  '/rest/v2/users/{username}/tips': ['get'],
  '/rest/v2/user/tips': ['get'],
  '/rest/v2/things/{id}/tips': ['get'],
  '/rest/v2/things/{id}/tip': ['post'],
  '/rest/v2/tip': ['post'],
  '/rest/v2/users/{username}': ['get'],
  '/rest/v2/user': ['get'],
  '/rest/v2/users/{username}/activities': ['get'],
  '/rest/v2/user/activities': ['get'],
  '/rest/v2/categories': ['get'],
  '/rest/v2/languages': ['get'],
  '/rest/v2/rate_limit': ['get'],
  '/rest/v2/users/{username}/verify': ['post'],
  '/rest/v2/user/verify': ['post'],
  '/oauth/token': ['post'],
  '/oauth/revoke': ['post'],
  '/.well-known/oauth-authorization-server': ['get'],
};

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const pointer = (...parts: string[]) =>
  parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

describe.each(ENGINES)('OpenAPI document and docs page on %s', (engine) => {
  let t: TestApp;
  let doc: Doc;
  let ajv: Ajv;

  beforeAll(async () => {
    t = await buildTestApp(engine);
    const res = await t.app.inject({ url: '/openapi.json' });
    doc = json(res);
    // The served document itself is the schema source: refs resolve inside it (#/components/…).
    ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'openapi' } as object);
  });
  afterAll(async () => t.close());

  /** The validator of the documented body of `method path` → `status` as `media`. */
  function documented(path: string, method: string, status: number, media: string = MEDIA.json): ValidateFunction {
    const content = doc.paths[path]?.[method]?.responses?.[String(status)]?.content;
    expect(content?.[media], `${method.toUpperCase()} ${path} ${status} documents ${media}`).toBeDefined();
    return ajv.compile({
      $ref: `openapi#/${pointer('paths', path, method, 'responses', String(status), 'content', media, 'schema')}`,
    });
  }

  /** Asserts the real response's status, content type and body match the document. */
  function expectDocumented(
    res: LightMyRequestResponse,
    path: string,
    method: string,
    status: number,
    media: string = MEDIA.json,
  ): void {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe(media);
    const validate = documented(path, method, status, media);
    const body = JSON.parse(res.body);
    expect(
      validate(body),
      `${method.toUpperCase()} ${path} ${status}: ${ajv.errorsText(validate.errors)}\n${res.body}`,
    ).toBe(true);
    // Every documented header is sent (the rate-limit headers, Location, …), except the
    // conditional ones of errors (WWW-Authenticate, Retry-After).
    const headers = doc.paths[path]![method]!.responses[String(status)].headers ?? {};
    for (const name of Object.keys(headers)) {
      if (name === 'WWW-Authenticate' || name === 'Retry-After') continue;
      expect(res.headers[name.toLowerCase()], `${name} on ${method.toUpperCase()} ${path} ${status}`).toBeDefined();
    }
  }

  it('serves /openapi.json as a valid OpenAPI 3.1 document', async () => {
    const res = await t.app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json;charset=utf-8');
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(res.body));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');
    expect(doc).toMatchObject({ servers: [{ url: PUBLIC_URL }], info: { title: 'Tipjar API v2' } });
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearer', 'clientBasic', 'oauth2']);
    expect(Object.keys(doc.components.schemas).sort()).toEqual(
      [
        'ActivityStream',
        'Category',
        'Confirmation',
        'Creation',
        'Error',
        'Language',
        'LookupFound',
        'LookupMissing',
        'Message',
        'OAuthError',
        'OAuthMetadata',
        'OAuthToken',
        'Owner',
        'RateLimit',
        'SearchResult',
        'Subscription',
        'Thing',
        'ThingConfirmation',
        'ThingShort',
        'Tip',
        'User',
        'UserSummary',
      ].sort(),
    );
  });

  it('lists exactly the API and OAuth operations, each with summary, description, tags and responses', () => {
    const listed = Object.fromEntries(
      Object.entries(doc.paths).map(([p, ops]) => [
        p,
        Object.keys(ops)
          .filter((m) => HTTP_METHODS.has(m))
          .sort(),
      ]),
    );
    expect(listed).toEqual(EXPECTED);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.summary, `${method} ${path}`).toEqual(expect.any(String));
        expect(op.description, `${method} ${path}`).toEqual(expect.any(String));
        expect(op.tags, `${method} ${path}`).toHaveLength(1);
        expect(Array.isArray(op.security), `${method} ${path} security`).toBe(true);
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
  });

  it('documents every route registered under /rest/v2 and the OAuth endpoints (none undocumented)', () => {
    const routes = apiRoutesOf(t.app);
    expect(routes.filter((r) => !r.documented)).toEqual([]);
    const registered = new Map<string, string[]>();
    for (const r of routes) {
      const path = r.url.replace(/:(\w+)/g, '{$1}');
      registered.set(path, [...(registered.get(path) ?? []), r.method.toLowerCase()].sort());
    }
    expect(Object.fromEntries(registered)).toEqual(EXPECTED);
  });

  it('shows the media types as they are served', () => {
    const responseTypes = new Set<string>();
    const requestTypes = new Set<string>();
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values<any>(ops)) {
        for (const r of Object.values<any>(op.responses))
          for (const m of Object.keys(r.content ?? {})) responseTypes.add(m);
        for (const m of Object.keys(op.requestBody?.content ?? {})) requestTypes.add(m);
      }
    }
    expect([...responseTypes].sort()).toEqual(
      [
        'application/json;charset=utf-8',
        'application/xml;charset=utf-8',
        'text/xml;charset=utf-8',
        'application/javascript;charset=utf-8',
        'application/stream+json',
        'application/atom+xml;charset=utf-8',
      ].sort(),
    );
    expect([...requestTypes].sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);

    const thing = doc.paths['/rest/v2/things/{ids}']!.get.responses['200'];
    expect(Object.keys(thing.content)).toEqual([MEDIA.json, MEDIA.xml, MEDIA.textXml, MEDIA.jsonp]);
    expect(Object.keys(thing.headers)).toEqual([
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Current',
      'X-RateLimit-Reset',
    ]);
    const feed = doc.paths['/rest/v2/users/{username}/activities']!.get.responses['200'];
    expect(Object.keys(feed.content)).toEqual([MEDIA.as, MEDIA.atom, MEDIA.jsonp]);
    expect(Object.keys(doc.paths['/rest/v2/users/{username}/tips']!.get.responses['200'].content)).toEqual([
      MEDIA.json,
      MEDIA.xml,
      MEDIA.textXml,
      MEDIA.as,
      MEDIA.atom,
      MEDIA.jsonp,
    ]);
    // 406 is JSON (or JSONP), never XML; the lookup's 302 has Location; 403 has Retry-After; /rate_limit has no X-RateLimit-*.
    expect(Object.keys(doc.paths['/rest/v2/categories']!.get.responses['406'].content)).toEqual([
      MEDIA.json,
      MEDIA.jsonp,
    ]);
    expect(Object.keys(doc.paths['/rest/v2/things/lookup']!.get.responses['302'].headers)).toContain('Location');
    expect(Object.keys(doc.paths['/rest/v2/things/{id}/tip']!.post.responses['403'].headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'WWW-Authenticate', 'X-RateLimit-Limit']),
    );
    expect(doc.paths['/rest/v2/rate_limit']!.get.responses['200'].headers).toBeUndefined();
    expect(doc.paths['/rest/v2/things/{id}/tip']!.post.security).toEqual([{ oauth2: ['tip'] }, { bearer: ['tip'] }]);
    expect(doc.paths['/rest/v2/things']!.post.security).toEqual([{ oauth2: ['thing'] }, { bearer: ['thing'] }]);
    expect(doc.paths['/rest/v2/categories']!.get.security).toEqual([]);
    expect(Object.keys(doc.paths['/oauth/token']!.post.responses['200'].headers)).toEqual([
      'Cache-Control',
      'Pragma',
      'Expires',
    ]);
    // Bodies: required where the operation needs one; optional where the parameters may come in the query.
    expect(doc.paths['/rest/v2/things']!.post.requestBody.required).toBe(true);
    expect(doc.paths['/rest/v2/user/verify']!.post.requestBody.required).toBe(false);
    expect(doc.paths['/rest/v2/things/{ids}']!.post.requestBody.required).toBe(false);
    expect(JSON.stringify(doc)).not.toContain('x-optional-body');
  });

  it('serves the docs page at /docs from this origin only, and keeps /docs/api', async () => {
    const page = await t.app.inject({ url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(DOCS_CSP);
    expect(DOCS_CSP).not.toMatch(/https?:|\/\/|upgrade-insecure-requests/);
    const refs = [...page.body.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) {
      expect(ref, 'no absolute or protocol-relative URL').not.toMatch(/^(?:[a-z]+:)?\/\//i);
      const asset = await t.app.inject({ url: new URL(ref, `${PUBLIC_URL}/docs/`).pathname });
      expect(asset.statusCode, ref).toBe(200);
    }
    const init = await t.app.inject({ url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toMatch(/url: resolveUrl\('\.\/json'\)/);
    expect(init.body).toMatch(/validatorUrl: null/);
    const bundle = await t.app.inject({ url: '/docs/static/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    // The UI's own copy of the document is the same document.
    expect(JSON.parse((await t.app.inject({ url: '/docs/json' })).body)).toEqual(doc);

    // A path the UI does not serve: the site's own 404, in its error shape.
    for (const url of ['/docs/no-such-page', '/docs/static/no-such-asset.js']) {
      const missing = await t.app.inject({ url });
      expect(missing.statusCode, url).toBe(404);
      expect(JSON.parse(missing.body), url).toMatchObject({ error: 'not_found' });
    }
    // The assets answer conditional and range requests.
    const etag = bundle.headers.etag as string;
    expect(etag).toBeTruthy();
    const unchanged = await t.app.inject({
      url: '/docs/static/swagger-ui-bundle.js',
      headers: { 'if-none-match': etag },
    });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.body).toBe('');
    const part = await t.app.inject({ url: '/docs/static/swagger-ui-bundle.js', headers: { range: 'bytes=0-99' } });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.length).toBe(100);
    // A redirect of the UI's keeps its Location and carries no body.
    const moved = await t.app.inject({ url: '/docs/static/index.html' });
    expect(moved.statusCode).toBe(302);
    expect(moved.headers.location).toBe('/docs/');
    expect(moved.body).toBe('');

    const markdown = await t.app.inject({ url: '/docs/api' });
    expect(markdown.statusCode).toBe(200);
    expect(markdown.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(markdown.body).toMatch(/^# Tipjar API v2/);
  });

  describe('real responses validate against their documented schemas', () => {
    let owner: TestUser;
    let fan: TestUser;
    let thingId: number;
    let other: number;

    beforeAll(async () => {
      owner = await buildUser(t.services);
      fan = await buildUser(t.services);
      thingId = await buildThing(t.services, owner, { tags: 'docs,openapi', description: 'documented' });
      other = await buildThing(t.services, owner);
    });

    it('GET /things/:id anonymous, as the owner, as another user, with full; GET /things/:id,:id', async () => {
      const path = '/rest/v2/things/{ids}';
      const anon = await t.app.inject({ url: `${API}/things/${thingId}` });
      expectDocumented(anon, path, 'get', 200);
      // The key order of the presenter is kept (JSON.stringify, not fast-json-stringify).
      expect(Object.keys(JSON.parse(anon.body))).toEqual(FULL_THING_KEYS);
      const mine = await t.app.inject({ url: `${API}/things/${thingId}`, headers: bearer(owner.token) });
      expectDocumented(mine, path, 'get', 200);
      expect(JSON.parse(mine.body)).toHaveProperty('last_tip_at', 0);
      expectDocumented(
        await t.app.inject({ url: `${API}/things/${thingId}?full`, headers: bearer(fan.token) }),
        path,
        'get',
        200,
      );
      const many = await t.app.inject({ url: `${API}/things/${thingId},${other}` });
      expectDocumented(many, path, 'get', 200);
      expect(JSON.parse(many.body)).toHaveLength(2);
      const xml = await t.app.inject({ url: `${API}/things/${thingId}.xml` });
      expect(xml.statusCode).toBe(200);
      expect(xml.headers['content-type']).toBe(MEDIA.xml);
      const jsonp = await t.app.inject({ url: `${API}/things/${thingId}?jsonp=cb` });
      expect(jsonp.headers['content-type']).toBe(MEDIA.jsonp);
      expect(jsonp.body.startsWith('/**/cb(')).toBe(true);
    });

    it('GET /categories, /languages, /rate_limit, /users/:u, /user', async () => {
      expectDocumented(await t.app.inject({ url: `${API}/categories` }), '/rest/v2/categories', 'get', 200);
      expectDocumented(await t.app.inject({ url: `${API}/languages` }), '/rest/v2/languages', 'get', 200);
      const limit = await t.app.inject({ url: `${API}/rate_limit` });
      expectDocumented(limit, '/rest/v2/rate_limit', 'get', 200);
      expect(limit.headers['x-ratelimit-limit']).toBeUndefined();
      expectDocumented(
        await t.app.inject({ url: `${API}/users/${owner.user.username}` }),
        '/rest/v2/users/{username}',
        'get',
        200,
      );
      const me = await t.app.inject({ url: `${API}/user`, headers: bearer(owner.token) });
      expectDocumented(me, '/rest/v2/user', 'get', 200);
      expect(JSON.parse(me.body)).toHaveProperty('registered_at');
    });

    it('errors: 404, 401, 403 insufficient_scope, 400 invalid_parameters, 406', async () => {
      const path = '/rest/v2/things/{ids}';
      const missing = await t.app.inject({ url: `${API}/things/987654321` });
      expectDocumented(missing, path, 'get', 404);
      expect(JSON.parse(missing.body)).toEqual({
        error: 'not_found',
        error_description: expect.any(String),
        error_uri: `${PUBLIC_URL}/docs/api#things`,
      });
      expectDocumented(await t.app.inject({ url: `${API}/user` }), '/rest/v2/user', 'get', 401);
      const readOnly = await buildUser(t.services, { scopes: 'extendedread' });
      const scope = await t.app.inject({
        method: 'POST',
        url: `${API}/things/${thingId}/tip`,
        headers: bearer(readOnly.token),
      });
      expectDocumented(scope, '/rest/v2/things/{id}/tip', 'post', 403);
      expect(JSON.parse(scope.body).error).toBe('insufficient_scope');
      const badCount = await t.app.inject({ url: `${API}/user/things?count=abc`, headers: bearer(owner.token) });
      expectDocumented(badCount, '/rest/v2/user/things', 'get', 400);
      expect(JSON.parse(badCount.body).error).toBe('invalid_parameters');
      expectDocumented(await t.app.inject({ url: `${API}/categories.atom` }), '/rest/v2/categories', 'get', 406);
    });

    it('POST /things, tip, subscribe, lists, search, lookup, feeds, OAuth metadata', async () => {
      const created = await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        headers: bearer(owner.token),
        payload: { url: 'https://example.org/openapi-doc', title: 'Doc', tags: ['a', 'b'] },
      });
      expectDocumented(created, '/rest/v2/things', 'post', 201);
      const id = JSON.parse(created.body).id as number;
      expectDocumented(
        await t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(fan.token) }),
        '/rest/v2/things/{id}/tip',
        'post',
        200,
      );
      expectDocumented(
        await t.app.inject({
          method: 'POST',
          url: `${API}/things/${thingId}/subscriptions`,
          headers: bearer(fan.token),
        }),
        '/rest/v2/things/{id}/subscriptions',
        'post',
        200,
      );
      expectDocumented(
        await t.app.inject({ url: `${API}/user/subscriptions`, headers: bearer(fan.token) }),
        '/rest/v2/user/subscriptions',
        'get',
        200,
      );
      expectDocumented(
        await t.app.inject({
          method: 'PUT',
          url: `${API}/things/${thingId}/subscriptions`,
          headers: bearer(fan.token),
        }),
        '/rest/v2/things/{id}/subscriptions',
        'put',
        200,
      );
      const tips = await t.app.inject({ url: `${API}/users/${fan.user.username}/tips` });
      expectDocumented(tips, '/rest/v2/users/{username}/tips', 'get', 200);
      expect(JSON.parse(tips.body).length).toBeGreaterThanOrEqual(1);
      expectDocumented(
        await t.app.inject({ url: `${API}/users/${fan.user.username}/tips?full=1` }),
        '/rest/v2/users/{username}/tips',
        'get',
        200,
      );
      expectDocumented(
        await t.app.inject({ url: `${API}/things/${id}/tips`, headers: bearer(owner.token) }),
        '/rest/v2/things/{id}/tips',
        'get',
        200,
      );
      expectDocumented(
        await t.app.inject({ url: `${API}/users/${owner.user.username}/things` }),
        '/rest/v2/users/{username}/things',
        'get',
        200,
      );
      const search = await t.app.inject({ url: `${API}/things/search?tags=docs` });
      expectDocumented(search, '/rest/v2/things/search', 'get', 200);
      expect(JSON.parse(search.body).total_items).toBe(1);
      const found = await t.app.inject({
        url: `${API}/things/lookup?url=${encodeURIComponent('https://example.org/openapi-doc')}`,
      });
      expectDocumented(found, '/rest/v2/things/lookup', 'get', 302);
      expect(found.headers.location).toBe(`${PUBLIC_URL}${API}/things/${id}`);
      expectDocumented(
        await t.app.inject({ url: `${API}/things/lookup?url=${encodeURIComponent('https://example.org/none')}` }),
        '/rest/v2/things/lookup',
        'get',
        404,
      );
      expectDocumented(
        await t.app.inject({ url: `${API}/users/${fan.user.username}/activities` }),
        '/rest/v2/users/{username}/activities',
        'get',
        200,
        MEDIA.as,
      );
      const atom = await t.app.inject({ url: `${API}/users/${fan.user.username}/activities.atom` });
      expect(atom.headers['content-type']).toBe(MEDIA.atom);
      expect(documented('/rest/v2/users/{username}/activities', 'get', 200, MEDIA.atom)(atom.body)).toBe(true);
      const metadata = await t.app.inject({ url: '/.well-known/oauth-authorization-server' });
      expectDocumented(metadata, '/.well-known/oauth-authorization-server', 'get', 200);
      const token = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { grant_type: 'authorization_code', code: 'nope' },
      });
      expectDocumented(token, '/oauth/token', 'post', 401);
    });
  });

  describe('the schemas change no behaviour', () => {
    let owner: TestUser;
    beforeAll(async () => {
      owner = await buildUser(t.services);
    });

    it('input is parsed by the x-wire parsers, not by the documented types: lenient forms pass, errors are the API’s', async () => {
      // A path id that the documented pattern does not allow: the id parser's 404, not a schema 400.
      const notId = await t.app.inject({ url: `${API}/things/abc` });
      expect(notId.statusCode).toBe(404);
      expect(JSON.parse(notId.body).error).toBe('not_found');
      // Unknown fields ignored, booleans in any case, tags as a comma string, form encoding.
      const created = await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        headers: { ...bearer(owner.token), 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'url=https%3A%2F%2Fexample.org%2Flenient&hidden=TRUE&tags=x,y&unknown=1',
      });
      expect(created.statusCode).toBe(201);
      const id = JSON.parse(created.body).id as number;
      const read = JSON.parse((await t.app.inject({ url: `${API}/things/${id}`, headers: bearer(owner.token) })).body);
      expect(read).toMatchObject({ hidden: true, tags: ['x', 'y'] });
      // A body field of the wrong documented type reaches its parser, which answers `validation`.
      const wrong = await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        headers: bearer(owner.token),
        payload: { url: 42 },
      });
      expect(wrong.statusCode).toBe(400);
      expect(JSON.parse(wrong.body).error).toBe('validation');
      // Repeated and bare query parameters still work (count twice: the first counts).
      const list = await t.app.inject({
        url: `${API}/user/things?count=1&count=abc&full`,
        headers: bearer(owner.token),
      });
      expect(list.statusCode).toBe(200);
      expect(JSON.parse(list.body)).toHaveLength(1);
      // The PATCH workaround's `_method` in the query is not stripped.
      const patched = await t.app.inject({
        method: 'POST',
        url: `${API}/things/${id}?_method=patch`,
        headers: bearer(owner.token),
        payload: { title: 'T' },
      });
      expect(patched.statusCode).toBe(200);
    });
  });
});
