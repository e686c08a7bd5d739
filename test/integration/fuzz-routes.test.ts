/**
 * Every route, fuzzed (DESIGN.md "Tests": bad input for real), on every engine: the route table is
 * read from the app itself (`printRoutes`), so a new route is fuzzed without being listed here, and
 * each is sent random path parameters, query strings, bodies, content types and credentials
 * (none, a good or a bogus bearer token, good or bogus HTTP Basic client credentials, a logged-in
 * website session with a valid CSRF token). Whatever arrives:
 * - the answer is never a 5xx;
 * - an API error (`/rest/v2`) is the spec's error shape (the lookup endpoint's own 404 excepted),
 *   an OAuth endpoint's error is RFC 6749's `{error, error_description}`, a website error asked for
 *   as HTML is an HTML page;
 * - a refused write changes no row.
 * FC_NUM_RUNS_PER_ROUTE sets the runs per route (default 25).
 */
import type { LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, buildTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { basic, buildClient, REDIRECT_URI, type TestClient } from '../helpers/oauth.ts';
import { buildWebUser, WebClient } from '../helpers/web.ts';

const RUNS = Number(process.env.FC_NUM_RUNS_PER_ROUTE ?? 25);

interface Route {
  method: string;
  /** Fastify's path, e.g. `/rest/v2/things/:ids/tip` */
  path: string;
}

/**
 * The routes of `printRoutes({ commonPrefix: false })`: each line is a tree node whose text is
 * appended to its parent's path; `:a|:b` are two names of one parameter (the first is kept).
 */
export function parseRoutes(tree: string): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/u.exec(line);
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    const segment = m[2]!.replace(/(:\w+)(\|:\w+)+/g, '$1');
    stack.length = depth;
    const path = (depth === 0 ? '' : stack[depth - 1]!) + segment;
    stack.push(path);
    for (const method of (m[3] ?? '').split(', ').filter(Boolean)) routes.push({ method, path });
  }
  return routes;
}

/** Routes not fuzzed: CORS preflight and HEAD (GET's twin), Swagger UI's static files. */
const skipped = (r: Route) =>
  r.method === 'OPTIONS' || r.method === 'HEAD' || r.path.includes('*') || r.path.startsWith('/docs/static/');

const oddConstants = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0007',
  '\u001b[31m',
  '\u007f',
  '\uD800',
  'x\uDFFFy',
  'line\nbreak',
  'tab\there',
  '\u202Eevil',
  '🏳️‍🌈',
  '\uFEFF',
  'İ',
  '%00',
  '%',
  '%E0%A4%A',
  'null',
  'true',
  'FALSE',
  '0',
  '-1',
  '1e400',
  '1.5',
  '101',
  'full',
  'patch',
  '<script>alert(1)</script>',
  "'; drop table things; --",
  'https://example.com/',
  'http://localhost/',
  'javascript:alert(1)',
  'email:0cc175b9c0f1b6a831c399e269772661',
  'partner:x:1',
  'a&b|!(c)',
  'x'.repeat(3000),
  '9'.repeat(40),
);

const oddString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  { weight: 4, arbitrary: oddConstants },
);

/** A value as it goes into a URL: percent-encoded (lone surrogates as U+FFFD), or raw escapes. */
const encoded = (s: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 6, arbitrary: s.map((x) => encodeURIComponent(x.toWellFormed())) },
    { weight: 1, arbitrary: fc.constantFrom('%00', '%ZZ', '%C0%AF', '%ED%A0%80', 'a%2Fb', '..') },
  );

const QUERY_KEYS = [
  'count',
  'page',
  'full',
  'url',
  'query',
  'tags',
  'sort',
  'user',
  'language',
  'category',
  'type',
  'jsonp',
  '_method',
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'return_to',
  'done',
];
const BODY_KEYS = [
  'url',
  'title',
  'description',
  'tags',
  'hidden',
  'category',
  'language',
  '_method',
  'identity',
  'grant_type',
  'code',
  'redirect_uri',
  'client_id',
  'client_secret',
  'code_verifier',
  'token',
  'token_type_hint',
  'username',
  'email',
  'password',
  'return_to',
  'name',
  'callback_domain',
  'redirect_uris',
  'budget_cents',
  'budget',
  'amount',
  'key',
  'firstname',
  'lastname',
  'about',
  'city',
  'country',
  'avatar',
  'hide_tips',
  'decision',
  'scope',
  'state',
  'response_type',
];

describe.each(ENGINES)('every route fuzzed on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser;
  let client: TestClient;
  let thingIds: string[] = [];
  let usernames: string[] = [];
  let web: WebClient;
  let webCsrf = '';
  const routes: Route[] = [];

  beforeAll(async () => {
    t = await buildTestApp(engine, {
      env: {
        RATE_LIMIT_ANONYMOUS: '1000000',
        RATE_LIMIT_AUTHENTICATED: '1000000',
        RATE_LIMIT_PAGES: '1000000',
        METRICS_TOKEN: 'm'.repeat(40),
      },
    });
    owner = await buildUser(t.services);
    const other = await buildUser(t.services);
    client = await buildClient(t.services, { ownerUserId: owner.user.id });
    thingIds = [
      String(await buildThing(t.services, owner, { title: 'Fuzzed' })),
      String(await buildThing(t.services, other, { title: 'Other' })),
    ];
    const webUser = await buildWebUser(t.services);
    usernames = [owner.user.username, other.user.username, webUser.username];
    web = new WebClient(t.app);
    await web.login(webUser.username);
    webCsrf = await web.csrf('/settings');
    // log-out last: it ends the session the other website routes are fuzzed with
    const all = parseRoutes(t.app.printRoutes({ commonPrefix: false })).filter((r) => !skipped(r));
    routes.push(...all.filter((r) => r.path !== '/logout'), ...all.filter((r) => r.path === '/logout'));
  });
  afterAll(async () => t?.close());

  it('reads the whole route table (API, OAuth, website, operations)', () => {
    const names = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const expected of [
      `GET ${API}/things/:ids`,
      `POST ${API}/things/:ids/tip`,
      `GET ${API}/users/:username/tips`,
      'POST /oauth/token',
      'POST /oauth/revoke',
      'GET /oauth/authorize',
      'POST /apps/:clientId/delete',
      'POST /authorized/:clientId/revoke',
      'POST /signup',
      'GET /metrics',
    ]) {
      expect(names).toContain(expected);
    }
    expect(routes.length).toBeGreaterThan(50);
  });

  /** A value for a path parameter: mostly one that exists, else anything. */
  function paramValue(name: string): fc.Arbitrary<string> {
    const real: Record<string, () => string[]> = {
      ids: () => thingIds,
      id: () => thingIds,
      username: () => usernames,
      clientId: () => [client.clientId],
      identity: () => ['email:0cc175b9c0f1b6a831c399e269772661'],
      address: () => ['a@example.com'],
    };
    const known = real[name];
    const good = known ? fc.nat().map((i) => encodeURIComponent(known()[i % known().length]!)) : fc.constant('x');
    return fc.oneof(
      { weight: 3, arbitrary: good },
      { weight: 2, arbitrary: encoded(oddString).filter((x) => x !== '' && x !== '..') },
    );
  }

  const queries = fc
    .array(
      fc.tuple(
        fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: oddString }),
        fc.option(oddString, { nil: undefined }),
      ),
      { maxLength: 5 },
    )
    .map((pairs) =>
      pairs
        .map(([k, v]) =>
          v === undefined
            ? encodeURIComponent(k.toWellFormed())
            : `${encodeURIComponent(k.toWellFormed())}=${encodeURIComponent(v.toWellFormed())}`,
        )
        .join('&'),
    );

  const fieldValue = fc.oneof(
    { weight: 5, arbitrary: oddString },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.array(oddString, { maxLength: 3 }) },
  );
  /** Values a field of that name takes when the request is meant to get far (the rest is odd). */
  const plausible: Record<string, () => unknown[]> = {
    url: () => [
      'https://example.com/fuzzed',
      `${PUBLIC_URL}/submit/auto?url=https%3A%2F%2Fx.example%2F&user_id=${usernames[0]}`,
    ],
    grant_type: () => ['authorization_code'],
    redirect_uri: () => [REDIRECT_URI],
    client_id: () => [client.clientId],
    client_secret: () => [client.clientSecret],
    token: () => [owner.token],
    username: () => usernames,
    password: () => ['correct horse battery'],
    email: () => ['fuzz@example.com'],
    identity: () => ['email:0cc175b9c0f1b6a831c399e269772661'],
    response_type: () => ['code'],
    scope: () => ['tip thing'],
    budget_cents: () => ['500'],
    budget: () => ['5.00'],
    amount: () => ['10.00', '0.5'],
    tags: () => ['a,b', ['x', 'y']],
    _method: () => ['patch'],
  };
  const valueFor = (key: string) => {
    const good = plausible[key];
    return good
      ? fc.oneof(
          { weight: 2, arbitrary: fc.nat().map((i) => good()[i % good().length]) },
          { weight: 2, arbitrary: fieldValue },
        )
      : fieldValue;
  };
  // a few fields of any name, or many of the names the routes read, each plausible or odd
  const fields = fc.oneof(
    fc.dictionary(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...BODY_KEYS) },
        { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
      ),
      fieldValue,
      { maxKeys: 6 },
    ),
    fc.record(Object.fromEntries(BODY_KEYS.map((k) => [k, valueFor(k)])), { requiredKeys: [] }) as fc.Arbitrary<
      Record<string, unknown>
    >,
  );

  type Body = { type?: string; payload?: string };
  const form = (o: Record<string, unknown>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(o))
      for (const x of Array.isArray(v) ? v : [v])
        q.append(k.toWellFormed(), (typeof x === 'string' ? x : String(x)).toWellFormed());
    return q.toString();
  };
  const bodies: fc.Arbitrary<Body> = fc.oneof(
    { weight: 4, arbitrary: fields.map((o): Body => ({ type: 'application/json', payload: JSON.stringify(o) })) },
    {
      weight: 4,
      arbitrary: fields.map((o): Body => ({ type: 'application/x-www-form-urlencoded', payload: form(o) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .jsonValue({ maxDepth: 3 })
        .map((v): Body => ({ type: 'application/json', payload: JSON.stringify(v) ?? '' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: 'binary', maxLength: 40 })
        .map((p): Body => ({ type: 'application/json', payload: p })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Body>(
        { type: 'text/plain', payload: 'x' },
        { type: 'multipart/form-data; boundary=x', payload: '--x--' },
        {},
      ),
    },
  );

  type Auth = 'none' | 'bearer' | 'bogus-bearer' | 'basic' | 'bogus-basic' | 'session';
  const auths = fc.constantFrom<Auth>('none', 'bearer', 'bogus-bearer', 'basic', 'bogus-basic', 'session', 'session');

  function headersFor(auth: Auth, body: Body): Record<string, string> {
    const h: Record<string, string> = { accept: 'text/html,application/json;q=0.9,*/*;q=0.8' };
    if (body.type) h['content-type'] = body.type;
    if (auth === 'bearer') h.authorization = `Bearer ${owner.token}`;
    if (auth === 'bogus-bearer') h.authorization = 'Bearer not-a-token';
    if (auth === 'basic') Object.assign(h, basic(client.clientId, client.clientSecret));
    if (auth === 'bogus-basic') h.authorization = 'Basic ' + Buffer.from('no\u0000body:x').toString('base64');
    if (auth === 'session') h.cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return h;
  }

  /** The payload with the session's CSRF token added (form field or JSON object key). */
  function withCsrfToken(body: Body, payload: string): string {
    if (body.type === 'application/x-www-form-urlencoded')
      return `${payload}${payload ? '&' : ''}_csrf=${encodeURIComponent(webCsrf)}`;
    if (body.type === 'application/json' && payload.startsWith('{'))
      return JSON.stringify({ ...JSON.parse(payload), _csrf: webCsrf });
    return payload;
  }

  /** Row counts of every table a request may write. */
  async function counts(): Promise<Record<string, number>> {
    const tables = [
      'users',
      'things',
      'thing_tags',
      'tips',
      'activities',
      'subscriptions',
      'oauth_clients',
      'oauth_codes',
      'access_tokens',
      'identities',
      'ledger_entries',
      'webhook_deliveries',
    ];
    const r = await sql<
      Record<string, number | string>
    >`select ${sql.join(tables.map((x) => sql`(select count(*) from ${sql.table(x)}) as ${sql.ref(x)}`))}`.execute(
      t.db.database.db,
    );
    return Object.fromEntries(Object.entries(r.rows[0]!).map(([k, v]) => [k, Number(v)]));
  }

  function checkAnswer(route: Route, res: LightMyRequestResponse, context: string): void {
    expect(res.statusCode, context).toBeLessThan(500);
    if (res.statusCode < 400) return;
    const type = String(res.headers['content-type'] ?? '');
    if (route.path.startsWith(`${API}/`)) {
      if (type.startsWith('application/javascript')) return; // JSONP: the error shape, wrapped
      expect(type, context).toBe('application/json;charset=utf-8');
      const body = JSON.parse(res.body);
      const keys = Object.keys(body).sort();
      if (route.path.endsWith('/lookup') && res.statusCode === 404)
        expect(keys, context).toEqual(['description', 'message']);
      else expect(keys, context).toEqual(['error', 'error_description', 'error_uri']);
    } else if (route.path === '/oauth/token' || route.path === '/oauth/revoke') {
      expect(type, context).toBe('application/json;charset=utf-8');
      expect(Object.keys(JSON.parse(res.body)).sort(), context).toEqual(['error', 'error_description']);
    } else if (
      !['/metrics', '/healthz', '/readyz', '/openapi.json', '/.well-known/oauth-authorization-server'].includes(
        route.path,
      ) &&
      !route.path.startsWith('/docs')
    ) {
      expect(type, context).toMatch(/^text\/html/);
    }
  }

  it("no route answers 5xx, errors keep their context's shape, refused writes change nothing", async () => {
    for (const route of routes) {
      const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      await fc.assert(
        fc.asyncProperty(
          fc.tuple(...names.map(paramValue)),
          queries,
          bodies,
          auths,
          fc.boolean(),
          async (params, query, body, auth, withCsrf) => {
            let i = 0;
            const path = route.path.replace(/:\w+/g, () => params[i++]!);
            let payload = route.method === 'GET' ? undefined : body.payload;
            // a logged-in visitor's form carries its CSRF token (half the time), so forms get past it
            if (payload !== undefined && auth === 'session' && withCsrf) payload = withCsrfToken(body, payload);
            const url = `${path}${query ? `?${query}` : ''}`;
            const write = route.method !== 'GET';
            const before = write ? await counts() : undefined;
            const res = await t.app.inject({
              method: route.method as 'GET',
              url,
              headers: headersFor(auth, body),
              payload,
              remoteAddress: '10.0.0.1',
            });
            const context = `${route.method} ${url} [${auth}] ${body.type ?? ''} ${String(payload).slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
            checkAnswer(route, res, context);
            if (before && res.statusCode >= 400) expect(await counts(), context).toEqual(before);
          },
        ),
        { numRuns: RUNS },
      );
    }
  }, 600_000);
});
