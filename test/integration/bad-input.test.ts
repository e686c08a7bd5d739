/**
 * Bad input for real (DESIGN.md "Tests"): property-based requests with fast-check against the
 * write and list endpoints, on every engine. Whatever arrives — random JSON, form bodies, content
 * types, query strings, path segments, odd Unicode, NUL, lone surrogates, huge strings — the
 * answer is never a 5xx; every 4xx has the error shape of api-v2.md "Errors" (the lookup
 * endpoint's own 404 body excepted); and a refused request wrote nothing.
 */
import type { LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, buildTestApp, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith, type TestUser } from '../helpers/factories.ts';
import { STATUS } from '../../src/http/plugins/errors.ts';

const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 200);
const AUTO = `${PUBLIC_URL}/submit/auto`;
const JSON_TYPE = 'application/json;charset=utf-8';

// ---------------------------------------------------------------- generators

/** Encodes any JS string into a URL component (lone surrogates become U+FFFD first). */
const enc = (s: string) => encodeURIComponent(s.toWellFormed());

const oddConstants = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\u202Eevil',
  '🏳️‍🌈',
  'ǅ',
  '\uFEFF',
  'İ',
  'ß',
  '%00',
  '%',
  '%E0%A4%A',
  'null',
  'true',
  'FALSE',
  '1',
  '0',
  '-1',
  '1e400',
  '1.5',
  '01',
  '100',
  '101',
  'full',
  'patch',
  'PATCH',
  'rest',
  'text',
  'software',
  'en_GB',
  'sv_SE',
  'xx_YY',
  'a,b,,c',
  ' , ',
  '<script>alert(1)</script>',
  "'; drop table things; --",
  'https://example.com/',
  'http://localhost/',
  'javascript:alert(1)',
  'ftp://example.com/x',
);

/** Strings over the length limits (url 2048, title 100, description 1000, tag 64). */
const hugeStrings = fc.constantFrom(
  'x'.repeat(2049),
  'é'.repeat(101),
  '🎉'.repeat(1001),
  't'.repeat(65),
  `https://example.com/${'p'.repeat(2040)}`,
  'ab,'.repeat(60),
);

const oddString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 4, arbitrary: oddConstants },
  { weight: 1, arbitrary: hugeStrings },
);

/** Usernames: the real ones (so some requests succeed) and random ones. */
function usernames(real: () => string[]) {
  return fc.oneof(
    fc.constantFrom(0, 1, 2).map((i) => real()[i]!),
    oddString,
    fc.constantFrom('ghost-user', 'a', '..', '.', 'owner.json'),
  );
}

/** URL-ish strings: web URLs, unregistered ones, and auto-submit URLs with random metadata. */
/** Auto-submit URLs of this site with mostly valid, optional metadata; `user_id` mostly a real user. */
function autoSubmitUrls(users: () => string[]) {
  const maybeOdd = <T>(good: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: oddString });
  return fc
    .record(
      {
        url: fc.oneof(
          { weight: 5, arbitrary: fc.webUrl() },
          { weight: 1, arbitrary: fc.constantFrom('https://fuzz.invalid/a', 'not a url', '') },
          { weight: 1, arbitrary: oddString },
        ),
        user_id: fc.oneof(
          { weight: 2, arbitrary: fc.constant(0).map(() => users()[0]!) },
          { weight: 1, arbitrary: usernames(users) },
        ),
        title: maybeOdd(fc.string({ maxLength: 20 })),
        description: maybeOdd(fc.string({ maxLength: 40 })),
        category: maybeOdd(fc.constantFrom('text', 'rest', 'images')),
        language: maybeOdd(fc.constantFrom('en_GB', 'sv_SE')),
        tags: maybeOdd(fc.constantFrom('a,b', 'x', '', 'A,a')),
        hidden: maybeOdd(fc.constantFrom('1', '0', 'true')),
        owner: fc.constantFrom('email:0cc175b9c0f1b6a831c399e269772661', 'partner:x:1', 'bogus'),
      },
      { requiredKeys: ['url', 'user_id'] },
    )
    .map((p) => {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(p)) if (v !== undefined) q.append(k, v.toWellFormed());
      return `${AUTO}?${q}`;
    });
}

/** URL-ish strings: web URLs, unregistered ones, registered ones, auto-submit URLs, odd strings. */
function urls(real: () => string[], users: () => string[]) {
  return fc.oneof(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => `https://fuzz.invalid/${enc(s)}`),
    fc.constantFrom(0, 1).map((i) => real()[i]!),
    autoSubmitUrls(users),
    oddString,
  );
}

function values(real: () => string[], users: () => string[]) {
  const scalar = fc.oneof(
    { weight: 5, arbitrary: oddString },
    { weight: 2, arbitrary: urls(real, users) },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 1, arbitrary: fc.constant(null) },
  );
  return fc.oneof(
    { weight: 6, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 5 }), scalar, { maxKeys: 3 }) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
  );
}

const fieldKeys = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom('url', 'title', 'description', 'category', 'language', 'tags', 'hidden', '_method'),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 10 }) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'url[]', 'tags[]') },
);

type Body = { contentType?: string; payload?: string };

/** Thing fields that are mostly valid, so creates and updates also succeed (and their writes are checked). */
function thingFields(real: () => string[], users: () => string[]) {
  const maybe = <T>(good: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: values(real, users) });
  return fc.record(
    {
      url: maybe(fc.webUrl({ withQueryParameters: true })),
      title: maybe(fc.string({ unit: 'grapheme', maxLength: 40 })),
      description: maybe(fc.string({ maxLength: 80 })),
      category: maybe(fc.constantFrom('text', 'images', 'video', 'audio', 'software', 'people', 'rest', '')),
      language: maybe(fc.constantFrom('en_GB', 'sv_SE', 'de_DE', '')),
      tags: maybe(fc.oneof(fc.string({ maxLength: 30 }), fc.array(fc.string({ maxLength: 10 }), { maxLength: 5 }))),
      hidden: maybe(fc.constantFrom(true, false, 0, 1, 'true', 'False', '1', '0')),
      _method: fc.constantFrom('patch', 'PATCH', 'delete'),
    },
    { requiredKeys: [] },
  );
}

function formOf(o: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, val] of Object.entries(o)) {
    for (const x of Array.isArray(val) ? val : [val])
      q.append(k.toWellFormed(), (typeof x === 'string' ? x : (JSON.stringify(x) ?? '')).toWellFormed());
  }
  return q.toString();
}

/** A request body: JSON (objects, any JSON value, malformed), form (fields, raw), other types, none, too large. */
function bodies(real: () => string[], users: () => string[]): fc.Arbitrary<Body> {
  const v = values(real, users);
  const fields = fc.dictionary(fieldKeys, v, { maxKeys: 8 });
  const jsonTypes = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON');
  const formTypes = fc.constantFrom(
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=utf-8',
  );
  const formFields = fc.dictionary(
    fieldKeys,
    fc.oneof(oddString, urls(real, users), fc.array(oddString, { maxLength: 3 })),
    { maxKeys: 8 },
  );
  const small = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ contentType: jsonTypes, payload: thingFields(real, users).map((o) => JSON.stringify(o)) }),
    },
    { weight: 2, arbitrary: fc.record({ contentType: formTypes, payload: thingFields(real, users).map(formOf) }) },
    { weight: 5, arbitrary: fc.record({ contentType: jsonTypes, payload: fields.map((o) => JSON.stringify(o)) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        contentType: jsonTypes,
        payload: fc.jsonValue({ maxDepth: 3 }).map((x) => JSON.stringify(x) ?? ''),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        contentType: jsonTypes,
        payload: fc.oneof(
          fc.string({ unit: 'binary', maxLength: 40 }),
          fc.constantFrom('', ' ', '{', '{"url":', 'nul', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
        ),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        contentType: formTypes,
        payload: formFields.map(formOf),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ contentType: formTypes, payload: fc.string({ unit: 'binary', maxLength: 60 }) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        contentType: fc.constantFrom(
          'text/plain',
          'application/xml',
          'multipart/form-data; boundary=x',
          'application/octet-stream',
        ),
        payload: fc.string({ maxLength: 30 }),
      }),
    },
    { weight: 1, arbitrary: fc.constant({}) },
  );
  // bodies over the 1 MiB limit, rarely (they are slow to send)
  return fc.oneof(
    { weight: 30, arbitrary: small },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Body>({
        contentType: 'application/json',
        payload: JSON.stringify({ url: 'https://example.com/', title: 'x'.repeat(1_100_000) }),
      }),
    },
  );
}

/** A query string: known parameters with odd values, random keys, repeats, raw malformed escapes. */
function queries(real: () => string[], users: () => string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('count', 'page', 'full', 'url', '_method') },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  );
  const value = fc.oneof(oddString, urls(real, users), fc.integer({ min: -5, max: 200 }).map(String));
  const pairs = fc
    .array(fc.tuple(key, fc.option(value, { nil: undefined })), { maxLength: 6 })
    .map((ps) => ps.map(([k, v]) => (v === undefined ? enc(k) : `${enc(k)}=${enc(v)}`)).join('&'));
  const raw = fc.stringMatching(/^[A-Za-z0-9%&=+;.,_~-]{0,30}$/);
  return fc.oneof({ weight: 4, arbitrary: pairs }, { weight: 1, arbitrary: raw });
}

// ---------------------------------------------------------------- the suite

describe.each(ENGINES)('bad input on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser, tipper: TestUser, broke: TestUser;
  let thingOnly: string;
  let ownThing: number, otherThing: number;
  let realUrls: string[] = [];
  let realUsers: string[] = [];

  beforeAll(async () => {
    t = await buildTestApp(engine);
    owner = await buildUser(t.services);
    tipper = await buildUser(t.services);
    broke = await buildUser(t.services, { funded: false });
    thingOnly = await tokenWith(t.services, tipper.user.username, 'thing');
    ownThing = await buildThing(t.services, owner, {
      url: 'https://example.com/fuzz-own',
      title: 'Own',
      tags: 'one,two',
    });
    otherThing = await buildThing(t.services, owner, { url: 'https://example.com/fuzz-other', title: 'Other' });
    realUrls = ['https://example.com/fuzz-own', 'https://example.com/fuzz-other'];
    realUsers = [owner.user.username, tipper.user.username, broke.user.username];
  });
  afterAll(async () => t?.close());

  const real = () => realUrls;
  const users = () => realUsers;
  /** Tokens: mostly the one that can succeed on the endpoint, else any (none, unknown, other users, wrong scope). */
  const tokens = (likely?: () => string): fc.Arbitrary<string | undefined> => {
    const any = fc
      .constantFrom(0, 1, 2, 3, 4, 5)
      .map((i) => [undefined, 'garbage-token', owner.token, tipper.token, broke.token, thingOnly][i]);
    return likely
      ? fc.oneof({ weight: 3, arbitrary: fc.constant(0).map(() => likely()) }, { weight: 2, arbitrary: any })
      : any;
  };

  /** Everything a write could touch: row counts, and the fields of the thing PATCH targets. */
  async function snapshot() {
    const db = t.db.database.db;
    const counts = await sql<{ things: number; tips: number; thing_tags: number; activities: number; users: number }>`
      select (select count(*) from things) as things, (select count(*) from tips) as tips,
             (select count(*) from thing_tags) as thing_tags, (select count(*) from activities) as activities,
             (select count(*) from users) as users`.execute(db);
    const row = await db
      .selectFrom('things')
      .select([
        'title',
        'description',
        'category',
        'language',
        'tags',
        'hidden',
        'updated_at',
        'tips',
        'tips_user_count',
        'deleted_at',
      ])
      .where('id', '=', ownThing)
      .executeTakeFirstOrThrow();
    const tags = await db
      .selectFrom('thing_tags')
      .select('tag')
      .where('thing_id', '=', ownThing)
      .orderBy('tag')
      .execute();
    const c = counts.rows[0]!;
    return {
      things: Number(c.things),
      tips: Number(c.tips),
      thing_tags: Number(c.thing_tags),
      activities: Number(c.activities),
      users: Number(c.users),
      ownThing: row,
      ownTags: tags.map((x) => x.tag),
    };
  }

  /**
   * The invariants of every answer: no 5xx; a 4xx carries exactly {error, error_description,
   * error_uri} with the code's status (lookup's own 404 body excepted); a refused request wrote nothing.
   */
  async function check(
    send: () => Promise<LightMyRequestResponse>,
    opts: { lookup?: boolean } = {},
  ): Promise<LightMyRequestResponse> {
    const before = await snapshot();
    const res = await send();
    const context = `${res.statusCode} ${res.body.slice(0, 300)}`;
    expect(res.statusCode, context).toBeLessThan(500);
    if (res.statusCode >= 400) {
      expect(res.headers['content-type'], context).toBe(JSON_TYPE);
      const body = JSON.parse(res.body) as Record<string, unknown>;
      if (opts.lookup && res.statusCode === 404) {
        expect(Object.keys(body).sort(), context).toEqual(['description', 'message']);
        expect(body.message).toBe('not_found');
        expect(typeof body.description).toBe('string');
      } else {
        expect(Object.keys(body).sort(), context).toEqual(['error', 'error_description', 'error_uri']);
        const code = body.error as keyof typeof STATUS;
        expect(Object.keys(STATUS), context).toContain(code);
        if (!(code === 'invalid_request' && res.statusCode === 413)) expect(res.statusCode, context).toBe(STATUS[code]);
        expect(typeof body.error_description).toBe('string');
        expect((body.error_description as string).length).toBeGreaterThan(0);
        expect(body.error_uri).toMatch(/^https?:\/\//);
      }
      expect(await snapshot(), context).toEqual(before);
    } else if (res.statusCode !== 204) {
      expect(res.headers['content-type'], context).toBe(JSON_TYPE);
      JSON.parse(res.body);
    }
    return res;
  }

  const headers = (token: string | undefined, body: Body) => ({
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(body.contentType ? { 'content-type': body.contentType } : {}),
  });

  const thingIds = () =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(0, 1).map((i) => String([ownThing, otherThing][i])) },
      { weight: 1, arbitrary: fc.nat().map(String) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '0',
          '-1',
          '1.0',
          '1e3',
          '99999999999999999999',
          'lookup',
          '%00',
          `${ownThing},${otherThing}`,
          `${ownThing}.json`,
        ),
      },
      // never empty: `/things/` is the collection (POST /things/ creates a thing)
      { weight: 1, arbitrary: oddString.filter((x) => x.trim() !== '').map(enc) },
    );

  it('POST /things: never 5xx, error shape on 4xx, nothing written when refused', async () => {
    await fc.assert(
      fc.asyncProperty(
        tokens(() => owner.token),
        bodies(real, users),
        queries(real, users),
        async (token, body, query) => {
          const res = await check(() =>
            t.app.inject({
              method: 'POST',
              url: `${API}/things?${query}`,
              headers: headers(token, body),
              payload: body.payload,
            }),
          );
          if (res.statusCode < 400) expect(res.statusCode).toBe(201);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('PATCH /things/:id (and POST with _method): never 5xx, error shape on 4xx, nothing written when refused', async () => {
    await fc.assert(
      fc.asyncProperty(
        tokens(() => owner.token),
        thingIds(),
        fc.constantFrom('PATCH', 'POST'),
        bodies(real, users),
        queries(real, users),
        async (token, id, method, body, query) => {
          const res = await check(() =>
            t.app.inject({
              method: method as 'PATCH' | 'POST',
              url: `${API}/things/${id}?${query}`,
              headers: headers(token, body),
              payload: body.payload,
            }),
          );
          if (res.statusCode < 400) expect(res.statusCode).toBe(200);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('POST /things/:id/tip: never 5xx, error shape on 4xx, nothing written when refused', async () => {
    await fc.assert(
      fc.asyncProperty(
        tokens(() => tipper.token),
        thingIds(),
        bodies(real, users),
        queries(real, users),
        async (token, id, body, query) => {
          const res = await check(() =>
            t.app.inject({
              method: 'POST',
              url: `${API}/things/${id}/tip?${query}`,
              headers: headers(token, body),
              payload: body.payload,
            }),
          );
          if (res.statusCode < 400) expect(res.statusCode).toBe(200);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('POST /tip: never 5xx, error shape on 4xx, nothing written when refused (a thing is created only with its tip)', async () => {
    const urlBodies = fc.oneof(
      { weight: 3, arbitrary: bodies(real, users) },
      {
        weight: 3,
        arbitrary: fc
          .tuple(fc.boolean(), fc.oneof(urls(real, users), autoSubmitUrls(users)))
          .map(([form, url]): Body =>
            form
              ? {
                  contentType: 'application/x-www-form-urlencoded',
                  payload: new URLSearchParams({ url: url.toWellFormed() }).toString(),
                }
              : { contentType: 'application/json', payload: JSON.stringify({ url }) },
          ),
      },
    );
    await fc.assert(
      fc.asyncProperty(
        tokens(() => tipper.token),
        urlBodies,
        queries(real, users),
        async (token, body, query) => {
          const before = await snapshot();
          const res = await check(() =>
            t.app.inject({
              method: 'POST',
              url: `${API}/tip?${query}`,
              headers: headers(token, body),
              payload: body.payload,
            }),
          );
          if (res.statusCode < 400) {
            expect(res.statusCode).toBe(200);
            const after = await snapshot();
            // one tip; at most one new thing, and only alongside that tip
            expect(after.tips).toBe(before.tips + 1);
            expect(after.things - before.things).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('GET /things/lookup/: never 5xx, its own 404 body, error shape on other 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        tokens(),
        fc.oneof(
          queries(real, users),
          urls(real, users).map((u) => `url=${enc(u)}`),
          fc.tuple(urls(real, users), urls(real, users)).map(([a, b]) => `url=${enc(a)}&url=${enc(b)}`),
        ),
        fc.constantFrom('/things/lookup/', '/things/lookup'),
        async (token, query, path) => {
          const res = await check(
            () => t.app.inject({ method: 'GET', url: `${API}${path}?${query}`, headers: headers(token, {}) }),
            { lookup: true },
          );
          if (res.statusCode < 400) {
            expect(res.statusCode).toBe(302);
            const body = JSON.parse(res.body);
            expect(Object.keys(body).sort()).toEqual(['location', 'message']);
            expect(body.message).toBe('found');
            expect(res.headers.location).toBe(body.location);
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('GET /users/:username/things: never 5xx, error shape on 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(tokens(), usernames(users), queries(real, users), async (token, username, query) => {
        const res = await check(() =>
          t.app.inject({
            method: 'GET',
            url: `${API}/users/${enc(username)}/things?${query}`,
            headers: headers(token, {}),
          }),
        );
        if (res.statusCode < 400) {
          expect(res.statusCode).toBe(200);
          expect(Array.isArray(JSON.parse(res.body))).toBe(true);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('the counters still equal the tip rows after all of it', async () => {
    const rows = await t.db.database.db
      .selectFrom('things')
      .leftJoin('tips', 'tips.thing_id', 'things.id')
      .select([
        'things.id',
        'things.tips',
        'things.tips_user_count',
        sql<number>`count(tips.id)`.as('n'),
        sql<number>`count(distinct tips.tipper_id)`.as('d'),
      ])
      .groupBy(['things.id', 'things.tips', 'things.tips_user_count'])
      .execute();
    for (const r of rows)
      expect({ tips: r.tips, users: r.tips_user_count }).toEqual({ tips: Number(r.n), users: Number(r.d) });
  });
});
