/**
 * GET /rest/v2/things/search (api-v2.md "Things", "Search result"; DECISIONS.md "Search",
 * "Pagination and `full`"; docs/api.md "Search"): every parameter and sort, paging and
 * total_items, hidden and deleted things left out, `full`, per-viewer fields, malformed tags
 * expressions as 400 `invalid_parameters` with exact bodies, and odd input never answered 5xx.
 * On every engine.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { FULL_THING_KEYS } from '../helpers/representations.ts';

const DAY = 86400;
/** 2026-03-31 12:00 UTC: "now" for every search. */
const NOW = Date.UTC(2026, 2, 31, 12) / 1000;
const CREATED = Date.UTC(2024, 11, 1) / 1000;

const THING_KEYS = [...FULL_THING_KEYS].sort();
const ERROR_URI = `${PUBLIC_URL}/docs/api#search`;

describe.each(ENGINES)('GET /things/search on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(CREATED);
  let alice: TestUser;
  let bob: TestUser;
  const id: Record<'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G', number> = { A: 0, B: 0, C: 0, D: 0, E: 0, F: 0, G: 0 };
  const F_URL = 'https://www.arcade-hall.example.org/collection';

  const search = (query: string, headers: Record<string, string> = {}) =>
    t.app.inject({ url: `${API}/things/search${query}`, headers });
  const found = async (query: string, headers: Record<string, string> = {}) => {
    const res = await search(query, headers);
    expect(res.statusCode, res.body).toBe(200);
    return json(res) as { total_items: number; items: number; page: number; things: Record<string, any>[] };
  };
  const ids = async (query: string, headers: Record<string, string> = {}) =>
    (await found(query, headers)).things.map((x) => x.id as number);
  const tip = async (who: TestUser, thing: number, at: number) => {
    clock.set(at);
    const res = await t.app.inject({ method: 'POST', url: `${API}/things/${thing}/tip`, headers: bearer(who.token) });
    expect(res.statusCode, res.body).toBe(200);
  };
  const invalid = (description: string) => ({
    error: 'invalid_parameters',
    error_description: description,
    error_uri: ERROR_URI,
  });

  beforeAll(async () => {
    // Hundreds of anonymous searches from one address: lift the hourly limit (not under test here).
    t = await buildTestApp(engine, { clock, env: { RATE_LIMIT_ANONYMOUS: '1000000' } });
    alice = await buildUser(t.services, { username: `alice${engine}` });
    bob = await buildUser(t.services, { username: `bob${engine}` });
    const carol = await buildUser(t.services);
    const dave = await buildUser(t.services);
    const make = async (owner: TestUser, fields: Record<string, unknown>) => {
      clock.advance(60);
      return buildThing(t.services, owner, fields);
    };
    id.A = await make(alice, {
      title: 'Old favourite',
      description: 'A classic board game for the family',
      tags: 'game',
    });
    id.B = await make(alice, {
      title: 'Yaml parser',
      description: 'Reads YAML documents quickly',
      tags: 'yaml,parser',
      category: 'software',
    });
    id.C = await make(alice, {
      title: 'JSON toolkit',
      description: 'A streaming parser for JSON and a YAML bridge',
      tags: 'json,parser',
      category: 'software',
      language: 'de_DE',
    });
    id.D = await make(alice, {
      title: 'Photo gallery',
      description: 'Pictures from travels',
      tags: 'photo,flickr',
      category: 'images',
    });
    id.E = await make(alice, { title: 'Secret parser', description: 'A hidden parser', tags: 'parser', hidden: true });
    id.F = await make(bob, {
      url: F_URL,
      title: 'Games collection',
      description: 'Arcade games',
      tags: 'games,software',
      category: 'software',
    });
    id.G = await make(alice, { title: 'Deleted parser', tags: 'parser' });
    const del = await t.app.inject({ method: 'DELETE', url: `${API}/things/${id.G}`, headers: bearer(alice.token) });
    expect(del.statusCode).toBe(204);

    // A: 5 tips long ago (one a month); B: 3 tips 20 days ago; C: 2 tips 3 days ago; D: 1 tip 2 hours ago.
    for (let m = 0; m < 5; m++) await tip(bob, id.A, Date.UTC(2025, m, 15) / 1000);
    for (const who of [bob, carol, dave]) await tip(who, id.B, NOW - 20 * DAY);
    for (const who of [bob, carol]) await tip(who, id.C, NOW - 3 * DAY);
    await tip(bob, id.D, NOW - 7200);
    clock.set(NOW);
  });
  afterAll(async () => t?.close());

  describe('result', () => {
    it('without parameters: every visible thing, newest first, as {total_items, items, page, things}', async () => {
      const res = await search('');
      expect(res.statusCode).toBe(200);
      const body = json(res);
      expect(Object.keys(body)).toEqual(['total_items', 'items', 'page', 'things']);
      expect(body).toMatchObject({ total_items: 5, items: 5, page: 1 });
      expect(body.things.map((x: any) => x.id)).toEqual([id.F, id.D, id.C, id.B, id.A]);
    });

    it('things are in the full representation; anonymous callers get no per-viewer fields', async () => {
      const body = await found('?query=yaml+parser');
      const b = body.things.find((x) => x.id === id.B)!;
      expect(Object.keys(b).sort()).toEqual(THING_KEYS);
      expect(b).toMatchObject({
        type: 'thing',
        resource: `${PUBLIC_URL}${API}/things/${id.B}`,
        link: `${PUBLIC_URL}/thing/${id.B}`,
        title: 'Yaml parser',
        tags: ['yaml', 'parser'],
        hidden: false,
        tips: 3,
        tips_user_count: 3,
        category: 'software',
        language: 'en_GB',
      });
      expect(Object.keys(b.owner).sort()).toEqual(['link', 'resource', 'type', 'username']);
    });

    it('with a token: tipped (this period) and subscribed; the owner also sees last_tip_at and updated_at', async () => {
      const asBob = await found('', bearer(bob.token));
      const byId = new Map(asBob.things.map((x) => [x.id, x]));
      expect(Object.keys(byId.get(id.B)!).sort()).toEqual([...THING_KEYS, 'subscribed', 'tipped'].sort());
      expect([id.A, id.B, id.C, id.D, id.F].map((x) => byId.get(x)!.tipped)).toEqual([false, true, true, true, false]);
      expect([id.A, id.B, id.C, id.D, id.F].map((x) => byId.get(x)!.subscribed)).toEqual([
        false,
        false,
        false,
        false,
        false,
      ]);
      expect(byId.get(id.F)).toHaveProperty('last_tip_at', 0);

      const d = (await found('?query=gallery', bearer(alice.token))).things[0]!;
      expect(Object.keys(d).sort()).toEqual(
        [...THING_KEYS, 'last_tip_at', 'subscribed', 'tipped', 'updated_at'].sort(),
      );
      expect(d).toMatchObject({ id: id.D, last_tip_at: NOW - 7200, updated_at: 0, tipped: false });
    });

    it('full: owners as full users', async () => {
      const body = await found('?query=gallery&full');
      expect(Object.keys(body.things[0]!.owner).sort()).toEqual(
        [
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
        ].sort(),
      );
      expect(body.things[0]!.owner.username).toBe(alice.user.username);
      const off = await found('?query=gallery&full=0');
      expect(Object.keys(off.things[0]!.owner).sort()).toEqual(['link', 'resource', 'type', 'username']);
    });

    it('answers XML with a <search> root', async () => {
      const res = await search('.xml?query=gallery');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/xml/);
      expect(res.body).toContain('<search><total_items>1</total_items><items>1</items><page>1</page><things><thing>');
    });
  });

  describe('hidden and deleted things', () => {
    it('are left out for anonymous callers and other users', async () => {
      expect((await ids('?query=parser')).sort()).toEqual([id.B, id.C].sort());
      expect((await ids('?query=parser', bearer(bob.token))).sort()).toEqual([id.B, id.C].sort());
      expect(await ids('?query=secret')).toEqual([]);
      expect(await ids('?query=deleted')).toEqual([]);
      expect(await ids('?tags=parser')).toEqual([id.C, id.B]);
    });

    it("the owner's own hidden things are included for the owner (DECISIONS.md: hidden for everyone but their owner)", async () => {
      const mine = await found('?query=parser', bearer(alice.token));
      expect(mine.total_items).toBe(3);
      expect(mine.things.map((x) => x.id).sort()).toEqual([id.B, id.C, id.E].sort());
      expect(mine.things.find((x) => x.id === id.E)).toMatchObject({ hidden: true });
      expect(await ids('', bearer(alice.token))).toEqual([id.F, id.E, id.D, id.C, id.B, id.A]);
      expect(await ids('?tags=parser', bearer(alice.token))).toEqual([id.E, id.C, id.B]);
      expect(await ids('?query=deleted', bearer(alice.token))).toEqual([]);
    });

    it('the same search asked by the owner, anonymously and by another user in turn: only the owner ever sees the hidden thing (parsed searches are reused per viewer)', async () => {
      const query = '?query=secret%20parser&sort=tips_week&count=7';
      const seen = async (headers?: Record<string, string>) => {
        const r = await found(query, headers);
        return { total: r.total_items, ids: r.things.map((x) => x.id) };
      };
      for (let round = 0; round < 2; round++) {
        expect(await seen(bearer(alice.token))).toEqual({ total: 1, ids: [id.E] });
        expect(await seen()).toEqual({ total: 0, ids: [] });
        expect(await seen(bearer(bob.token))).toEqual({ total: 0, ids: [] });
      }
    });

    it('a thing hidden or unhidden later moves out of or into the results', async () => {
      const patch = (hidden: boolean) =>
        t.app.inject({
          method: 'PATCH',
          url: `${API}/things/${id.A}`,
          headers: bearer(alice.token),
          payload: { hidden },
        });
      expect((await patch(true)).statusCode).toBe(200);
      expect(await ids('?query=favourite')).toEqual([]);
      expect(await ids('?query=favourite', bearer(alice.token))).toEqual([id.A]);
      expect((await patch(false)).statusCode).toBe(200);
      expect(await ids('?query=favourite')).toEqual([id.A]);
    });
  });

  describe('query', () => {
    it('searches title, description, tags and url; all words must occur', async () => {
      expect(await ids('?query=favourite')).toEqual([id.A]); // title
      expect(await ids('?query=family')).toEqual([id.A]); // description
      expect(await ids('?query=flickr')).toEqual([id.D]); // tags
      expect(await ids('?query=hall')).toEqual([id.F]); // url
      expect(await ids('?query=yaml+toolkit')).toEqual([id.C]);
      expect(await ids('?query=yaml+gallery')).toEqual([]);
    });

    it('ranks by relevance: a title match before a description match; words are stemmed and case-folded', async () => {
      expect(await ids('?query=yaml')).toEqual([id.B, id.C]);
      expect(await ids('?query=PARSERS')).toEqual([id.B, id.C]);
    });

    it('a url scheme or www never matches (every thing has one)', async () => {
      expect(await ids('?query=https')).toEqual([]);
      expect(await ids('?query=www')).toEqual([]);
    });

    it('a query of only punctuation matches nothing; a blank query is no query', async () => {
      expect(await found('?query=%21%21%21')).toEqual({ total_items: 0, items: 0, page: 1, things: [] });
      expect((await found('?query=+++')).total_items).toBe(5);
      expect((await found('?query=')).total_items).toBe(5);
    });

    it('over 500 characters → 400', async () => {
      const res = await search(`?query=${'a'.repeat(501)}`);
      expect(res.statusCode).toBe(400);
      expect(json(res)).toEqual(invalid('query must be at most 500 characters'));
    });
  });

  describe('url', () => {
    it('selects the thing registered for the URL, compared after normalisation', async () => {
      expect(await ids(`?url=${encodeURIComponent(F_URL)}`)).toEqual([id.F]);
      expect(await ids(`?url=${encodeURIComponent('HTTPS://WWW.Arcade-Hall.example.org:443/collection')}`)).toEqual([
        id.F,
      ]);
      expect(await ids(`?url=${encodeURIComponent(`${F_URL}/other`)}`)).toEqual([]);
    });

    it('not an absolute http(s) URL → 400', async () => {
      const res = await search('?url=ftp%3A%2F%2Fexample.org%2F');
      expect(res.statusCode).toBe(400);
      expect(json(res)).toEqual(invalid('url must be an absolute http or https URL of at most 2048 characters'));
    });
  });

  describe('tags', () => {
    it.each([
      ['parser', 'C B'],
      ['PARSER', 'C B'],
      ['game | games ! software', 'A'],
      ['photo & flickr', 'D'],
      ['json parser', 'C'],
      ['!parser', 'F D A'],
      ['(yaml | json) & !json', 'B'],
      ['yaml | json & parser', 'C B'],
      ['game | flickr photo', 'D A'],
      ['nosuchtag', ''],
    ])('%j selects %j (newest first)', async (expression, expected) => {
      const names = expected ? expected.split(' ') : [];
      expect(await ids(`?tags=${encodeURIComponent(expression)}`)).toEqual(names.map((n) => id[n as keyof typeof id]));
    });

    it('the form encoding of the spec works: + for space, %26 for &', async () => {
      expect(await ids('?tags=photo+%26+flickr')).toEqual([id.D]);
      expect(await ids('?tags=game+|+games+!+software')).toEqual([id.A]);
    });

    it.each([
      ['a |', 'Invalid tags expression: expected a tag but found end of expression at position 4'],
      ['| a', "Invalid tags expression: expected a tag but found '|' at position 1"],
      ['(a | b', "Invalid tags expression: missing ')' for the '(' at position 1 at position 7"],
      ['a)', "Invalid tags expression: unmatched ')' at position 2"],
      ['a & & b', "Invalid tags expression: expected a tag but found '&' at position 5"],
      ['a,b', "Invalid tags expression: ',' is not an operator (use | for OR, & or a space for AND) at position 2"],
      ['!', 'Invalid tags expression: expected a tag but found end of expression at position 2'],
    ])('malformed %j → 400 invalid_parameters naming the problem and position', async (expression, description) => {
      const res = await search(`?tags=${encodeURIComponent(expression)}`);
      expect(res.statusCode).toBe(400);
      expect(json(res)).toEqual(invalid(description));
    });
  });

  describe('language, category, user', () => {
    it('language: one id or a comma list', async () => {
      expect(await ids('?language=de_DE')).toEqual([id.C]);
      expect((await found('?language=de_DE,en_GB')).total_items).toBe(5);
      expect(await ids('?language=fr_FR')).toEqual([]);
    });

    it('category: one id or a comma list', async () => {
      expect(await ids('?category=images')).toEqual([id.D]);
      expect(await ids('?category=software,images')).toEqual([id.F, id.D, id.C, id.B]);
    });

    it('user: the things of that user (any case)', async () => {
      expect(await ids(`?user=${bob.user.username}`)).toEqual([id.F]);
      expect(await ids(`?user=${alice.user.username.toUpperCase()}`)).toEqual([id.D, id.C, id.B, id.A]);
    });

    it('all filters together', async () => {
      expect(await ids(`?query=parser&category=software&language=de_DE&tags=json&user=${alice.user.username}`)).toEqual(
        [id.C],
      );
      expect(await ids('?query=parser&category=images')).toEqual([]);
    });

    it.each([
      ['?language=xx_XX', 'Unknown language "xx_XX": see /languages'],
      ['?language=de_DE,nope', 'Unknown language "nope": see /languages'],
      ['?category=bogus', 'Unknown category "bogus": see /categories'],
      ['?user=nobody-here', 'Unknown user "nobody-here"'],
      ['?sort=popular', 'sort must be one of relevance, trend, tips, tips_month, tips_week, tips_day'],
    ])('%s → 400 invalid_parameters', async (query, description) => {
      const res = await search(query);
      expect(res.statusCode).toBe(400);
      expect(json(res)).toEqual(invalid(description));
    });
  });

  describe('sort', () => {
    it.each([
      ['relevance', 'F D C B A'],
      ['tips', 'A B C D F'],
      ['tips_month', 'B C D F A'],
      ['tips_week', 'C D F B A'],
      ['tips_day', 'D F C B A'],
      ['trend', 'C D B F A'],
    ])('sort=%s orders %s (ties and untipped things newest first)', async (sort, expected) => {
      expect(await ids(`?sort=${sort}`)).toEqual(expected.split(' ').map((n) => id[n as keyof typeof id]));
    });

    it('sorts combine with a query and filters', async () => {
      expect(await ids('?query=parser&sort=tips_week')).toEqual([id.C, id.B]);
      expect(await ids('?query=parser&sort=tips')).toEqual([id.B, id.C]);
      expect(await ids('?category=software&sort=trend')).toEqual([id.C, id.B, id.F]);
    });

    it("tip sorts include the owner's hidden things for the owner", async () => {
      expect(await ids('?query=parser&sort=tips', bearer(alice.token))).toEqual([id.B, id.C, id.E]);
      expect(await ids('?sort=tips_day', bearer(alice.token))).toEqual([id.D, id.F, id.E, id.C, id.B, id.A]);
    });

    it('windows end at now: a tip moves out of tips_day a day later', async () => {
      clock.set(NOW + DAY);
      try {
        expect(await ids('?sort=tips_day')).toEqual([id.F, id.D, id.C, id.B, id.A]);
        expect((await ids('?sort=tips_week')).slice(0, 2)).toEqual([id.C, id.D]);
      } finally {
        clock.set(NOW);
      }
    });
  });

  describe('paging', () => {
    it('count and page slice the results; total_items counts all pages, items this page', async () => {
      expect(await found('?count=2')).toMatchObject({ total_items: 5, items: 2, page: 1 });
      expect(await ids('?count=2')).toEqual([id.F, id.D]);
      expect(await ids('?count=2&page=2')).toEqual([id.C, id.B]);
      const last = await found('?count=2&page=3');
      expect(last).toMatchObject({ total_items: 5, items: 1, page: 3 });
      expect(last.things.map((x) => x.id)).toEqual([id.A]);
      expect(await found('?count=2&page=4')).toEqual({ total_items: 5, items: 0, page: 4, things: [] });
      expect((await found('?count=&page=')).page).toBe(1);
    });

    it('a page past the end of a word search still counts total_items', async () => {
      expect(await found('?query=parser&page=3&count=1')).toEqual({ total_items: 2, items: 0, page: 3, things: [] });
      expect(await ids('?query=parser&page=2&count=1')).toEqual([id.C]);
      // a partial page tells the total; a full one needs the count
      expect(await found('?query=parser&count=5')).toMatchObject({ total_items: 2, items: 2 });
      expect(await found('?query=parser&count=2')).toMatchObject({ total_items: 2, items: 2 });
      expect(await found('?query=parser&sort=tips_day&count=1&page=2')).toMatchObject({ total_items: 2, items: 1 });
      expect(await found('?query=parser&sort=trend&page=9')).toEqual({ total_items: 2, items: 0, page: 9, things: [] });
    });

    it('a word search with a filter counts its matches on every page, past the end too', async () => {
      const parser = (filter: string, paging: string, headers: Record<string, string> = {}) =>
        found(`?query=parser&${filter}&${paging}`, headers);
      for (const filter of ['tags=parser', 'category=software', 'language=en_GB,de_DE']) {
        expect(await parser(filter, 'count=1')).toMatchObject({ total_items: 2, items: 1 });
        expect((await parser(filter, 'count=1&page=2')).things.map((x) => x.id)).toEqual([id.C]);
        expect(await parser(filter, 'count=1&page=3')).toEqual({ total_items: 2, items: 0, page: 3, things: [] });
        expect(await parser(filter, 'count=1&page=2&sort=tips')).toMatchObject({ total_items: 2, items: 1 });
      }
      // the owner's hidden parser matches too, for the owner only
      expect(await parser('tags=parser', 'count=2', bearer(alice.token))).toMatchObject({ total_items: 3, items: 2 });
      expect(await parser('tags=parser', 'count=2&page=3', bearer(alice.token))).toMatchObject({
        total_items: 3,
        items: 0,
      });
      expect(await parser('tags=json', 'count=1&page=2')).toEqual({ total_items: 1, items: 0, page: 2, things: [] });
    });

    it('pages of a tip sort run across the scored things into the rest', async () => {
      expect(await ids('?sort=tips_day&count=2')).toEqual([id.D, id.F]);
      expect(await ids('?sort=tips_day&count=2&page=2')).toEqual([id.C, id.B]);
      expect(await ids('?sort=tips_week&count=2&page=2')).toEqual([id.F, id.B]);
      expect(await ids('?sort=tips&count=3&page=2')).toEqual([id.D, id.F]);
    });

    it.each([
      ['?count=0', 'count must be a whole number from 1 to 100'],
      ['?count=101', 'count must be a whole number from 1 to 100'],
      ['?page=0', 'page must be a whole number from 1 to 1000000'],
      ['?page=x', 'page must be a whole number from 1 to 1000000'],
    ])('%s → 400 invalid_parameters', async (query, description) => {
      const res = await search(query);
      expect(res.statusCode).toBe(400);
      expect(json(res).error).toBe('invalid_parameters');
      expect(json(res).error_description).toBe(description);
    });
  });

  describe('odd input', () => {
    it.each([
      '"',
      'NEAR(a b)',
      'a OR b',
      'parser*',
      '^parser',
      'title:parser',
      '-parser',
      "'; drop table things; --",
      '\\',
      '😀 parser',
      'İstanbul ǅ ß',
      '\u200b\u2028',
      '(((',
      'AND',
      '!&|',
      'ｐａｒｓｅｒ',
    ])('query %j never answers 5xx', async (query) => {
      const res = await search(`?query=${encodeURIComponent(query)}`);
      expect(res.statusCode).toBe(200);
      expect(json(res).items).toBe(json(res).things.length);
    });

    it('a control character in any parameter → 400 invalid_parameters naming it', async () => {
      for (const p of ['query', 'tags', 'url', 'user', 'language', 'category', 'sort', 'page']) {
        for (const raw of ['a%00b', '%1B', 'x%7F', '%0A']) {
          const res = await search(`?${p}=${raw}`);
          expect(res.statusCode, `${p}=${raw}: ${res.body}`).toBe(400);
          expect(json(res)).toMatchObject({
            error: 'invalid_parameters',
            error_description: `The query parameter "${p}" holds a control character or malformed text`,
          });
        }
      }
    });

    it('FTS operators are searched as words, not run as syntax', async () => {
      expect(await ids('?query=parser+OR+gallery')).toEqual([]);
      expect(await ids('?query=title%3Aparser')).toEqual([]);
      expect(await ids('?query=%22parser%22')).toEqual([id.B, id.C]);
    });

    it('bytes that are not UTF-8 and NULs in any parameter never answer 5xx', async () => {
      for (const p of ['query', 'tags', 'url', 'user', 'language', 'category', 'sort']) {
        for (const raw of ['%ED%A0%80', '%FF%FE', '%00', 'a%00b', '%C0%AF']) {
          const res = await search(`?${p}=${raw}`);
          expect(res.statusCode, `${p}=${raw}: ${res.body}`).toBeLessThan(500);
        }
      }
    });

    it('arbitrary strings as query or tags answer 200 or 400, never 5xx (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('query', 'tags'),
          fc.string({ unit: 'binary', maxLength: 40 }),
          async (name, value) => {
            const res = await search(`?${name}=${encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, ''))}`);
            expect([200, 400]).toContain(res.statusCode);
          },
        ),
        { numRuns: 60 },
      );
    });

    it('repeated parameters use the first value; unknown parameters are ignored', async () => {
      expect(await ids('?query=gallery&query=yaml&foo=bar')).toEqual([id.D]);
    });
  });
});
