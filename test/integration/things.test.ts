/**
 * Things endpoints (api-v2.md "Endpoints / Things", DECISIONS.md "Things", "Wire format",
 * "Pagination and `full`"), on every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { XMLParser } from 'fast-xml-parser';
import type { LightMyRequestResponse } from 'fastify';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, tokenWith, uniqueName, type TestUser } from '../helpers/factories.ts';
import { expectError } from '../helpers/errors.ts';
import { FULL_THING_KEYS } from '../helpers/representations.ts';

const START = 1_700_000_000;

const THING_KEYS = [...FULL_THING_KEYS].sort();
const VIEWER_KEYS = [...THING_KEYS, 'subscribed', 'tipped'].sort();
const OWNER_KEYS = [...VIEWER_KEYS, 'last_tip_at', 'updated_at'].sort();
const SUMMARY_KEYS = ['link', 'resource', 'type', 'username'];
const FULL_USER_KEYS = [
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
];
const CREATED_KEYS = ['description', 'id', 'link', 'message'];
const MESSAGE_KEYS = ['description', 'message'];

const keys = (o: object) => Object.keys(o).sort();
const thingApiUrl = (id: number) => `${PUBLIC_URL}${API}/things/${id}`;
const uniqueUrl = (prefix = 'https://example.com/') => `${prefix}${uniqueName('page')}`;

/** Asserts the error shape with exactly its three keys and returns the body. */

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe.each(ENGINES)('things on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(START);
  let owner: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
    owner = await buildUser(t.services);
    other = await buildUser(t.services);
  });
  afterAll(async () => t.close());

  const get = (url: string, token?: string) =>
    t.app.inject({ method: 'GET', url: `${API}${url}`, headers: token ? bearer(token) : {} });
  const countThingsWithUrl = async (url: string) =>
    (await t.db.database.db.selectFrom('things').select('id').where('url', '=', url).execute()).length;
  const countAllThings = async () => (await t.db.database.db.selectFrom('things').select('id').execute()).length;

  describe('GET /things/:id', () => {
    it('without a token: exactly the public fields, with the spec types', async () => {
      clock.set(START + 100);
      const url = uniqueUrl();
      const id = await buildThing(t.services, owner, { url, title: 'Public', description: 'Desc', tags: 'a,b' });
      const res = await get(`/things/${id}`);
      expect(res.statusCode).toBe(200);
      const thing = json(res);
      expect(keys(thing)).toEqual(THING_KEYS);
      expect(thing).toEqual({
        type: 'thing',
        resource: thingApiUrl(id),
        link: `${PUBLIC_URL}/thing/${id}`,
        id,
        url,
        language: 'en_GB',
        category: 'rest',
        owner: {
          type: 'user',
          resource: `${PUBLIC_URL}${API}/users/${owner.user.username}`,
          link: `${PUBLIC_URL}/profile/${owner.user.username}`,
          username: owner.user.username,
        },
        hidden: false,
        image: '',
        created_at: START + 100,
        tags: ['a', 'b'],
        tips: 0,
        tips_user_count: 0,
        description: 'Desc',
        title: 'Public',
      });
      expect(keys(thing.owner)).toEqual(SUMMARY_KEYS);
    });

    it('with a token of another user adds tipped and subscribed only', async () => {
      const id = await buildThing(t.services, owner);
      const thing = json(await get(`/things/${id}`, other.token));
      expect(keys(thing)).toEqual(VIEWER_KEYS);
      expect(thing.tipped).toBe(false);
      expect(thing.subscribed).toBe(false);
    });

    it('for the owner adds last_tip_at and updated_at, both 0 when never tipped or updated', async () => {
      const id = await buildThing(t.services, owner);
      const thing = json(await get(`/things/${id}`, owner.token));
      expect(keys(thing)).toEqual(OWNER_KEYS);
      expect(thing.last_tip_at).toBe(0);
      expect(thing.updated_at).toBe(0);
      expect(thing.tipped).toBe(false);
      expect(thing.subscribed).toBe(false);
    });

    it('after a tip: tipped is true for the tipper and last_tip_at is the tip time for the owner', async () => {
      clock.set(START + 5000);
      const id = await buildThing(t.services, owner);
      const tipped = await t.app.inject({
        method: 'POST',
        url: `${API}/things/${id}/tip`,
        headers: bearer(other.token),
      });
      expect(tipped.statusCode, tipped.body).toBe(200);
      const forTipper = json(await get(`/things/${id}`, other.token));
      expect(forTipper).toMatchObject({ tipped: true, tips: 1, tips_user_count: 1 });
      expect(forTipper).not.toHaveProperty('last_tip_at');
      const forOwner = json(await get(`/things/${id}`, owner.token));
      expect(forOwner).toMatchObject({ tipped: false, tips: 1, last_tip_at: START + 5000, updated_at: 0 });
    });

    it('a hidden thing is still returned by id, with hidden as JSON true', async () => {
      const id = await buildThing(t.services, owner, { hidden: true });
      const res = await get(`/things/${id}`);
      expect(res.statusCode).toBe(200);
      expect(json(res).hidden).toBe(true);
      expect(res.body).toContain('"hidden":true');
    });

    it.each([['full'], ['full='], ['full=1'], ['full=true'], ['full=full'], ['full=TRUE'], ['full=True']])(
      '?%s swaps the owner summary for the full user',
      async (q) => {
        const id = await buildThing(t.services, owner);
        const res = await get(`/things/${id}?${q}`);
        expect(res.statusCode, res.body).toBe(200);
        const thing = json(res);
        expect(keys(thing)).toEqual(THING_KEYS);
        expect(keys(thing.owner)).toEqual(FULL_USER_KEYS);
        expect(thing.owner).toMatchObject({ type: 'user', username: owner.user.username, firstname: '', url: '' });
        for (const k of FULL_USER_KEYS) expect(typeof thing.owner[k]).toBe('string');
      },
    );

    it.each([['full=0'], ['full=false'], ['full=FALSE'], ['other=1']])('?%s keeps the owner summary', async (q) => {
      const id = await buildThing(t.services, owner);
      const res = await get(`/things/${id}?${q}`);
      expect(res.statusCode).toBe(200);
      expect(keys(json(res).owner)).toEqual(SUMMARY_KEYS);
    });

    it('full=yes is 400 invalid_parameters', async () => {
      const id = await buildThing(t.services, owner);
      expectError(await get(`/things/${id}?full=yes`), 400, 'invalid_parameters');
    });

    it('unknown, zero and non-numeric ids are 404 not_found', async () => {
      expectError(await get('/things/999999999'), 404, 'not_found');
      expectError(await get('/things/0'), 404, 'not_found');
      expectError(await get('/things/abc'), 404, 'not_found');
      expectError(await get('/things/12abc'), 404, 'not_found');
      expectError(await get('/things/-5'), 404, 'not_found');
      // beyond any id, and beyond a 64-bit integer: still 404, never a database error
      expectError(await get('/things/999999999999999'), 404, 'not_found');
      expectError(await get('/things/99999999999999999999'), 404, 'not_found');
    });

    it('tolerates a trailing slash', async () => {
      const id = await buildThing(t.services, owner);
      const res = await get(`/things/${id}/`);
      expect(res.statusCode).toBe(200);
      expect(json(res).id).toBe(id);
    });
  });

  describe('GET /things/:id,:id', () => {
    it('returns an array in the order asked', async () => {
      const a = await buildThing(t.services, owner, { title: 'A' });
      const b = await buildThing(t.services, other, { title: 'B' });
      const res = await get(`/things/${b},${a}`);
      expect(res.statusCode).toBe(200);
      const list = json(res);
      expect(Array.isArray(list)).toBe(true);
      expect(list.map((x: { id: number }) => x.id)).toEqual([b, a]);
      expect(list.map((x: { title: string }) => x.title)).toEqual(['B', 'A']);
      for (const x of list) expect(keys(x)).toEqual(THING_KEYS);

      const reversed = json(await get(`/things/${a},${b}`));
      expect(reversed.map((x: { id: number }) => x.id)).toEqual([a, b]);
    });

    it('carries the per-viewer fields per thing and honours full', async () => {
      const a = await buildThing(t.services, owner);
      const b = await buildThing(t.services, other);
      const list = json(await get(`/things/${a},${b}?full=1`, owner.token));
      expect(keys(list[0])).toEqual(OWNER_KEYS);
      expect(keys(list[1])).toEqual(VIEWER_KEYS);
      expect(keys(list[0].owner)).toEqual(FULL_USER_KEYS);
      expect(keys(list[1].owner)).toEqual(FULL_USER_KEYS);
    });

    it('any unknown id is 404 not_found', async () => {
      const a = await buildThing(t.services, owner);
      expectError(await get(`/things/${a},999999999`), 404, 'not_found');
      expectError(await get(`/things/999999999,${a}`), 404, 'not_found');
    });

    it('a non-numeric id is 404 not_found', async () => {
      const a = await buildThing(t.services, owner);
      expectError(await get(`/things/${a},abc`), 404, 'not_found');
      expectError(await get(`/things/${a},99999999999999999999`), 404, 'not_found');
    });

    describe('up to 100 ids, on a path of any length', () => {
      /** Makes the next thing ids 7 digits long (1,000,000 on), as on an instance with many things. */
      async function startThingIdsAt(next: number) {
        const db = t.db.database.db;
        if (engine === 'postgres') {
          await sql`alter table things alter column id restart with ${sql.lit(next)}`.execute(db);
        } else {
          // SQLite gives the next rowid after the largest: a deleted placeholder holds next - 1.
          await sql`insert into things (id, url, url_key, owner_user_id, created_at, deleted_at)
            values (${next - 1}, 'https://example.com/placeholder', ${uniqueName('placeholder')}, ${owner.user.id}, ${START}, ${START})`.execute(
            db,
          );
        }
      }
      let ids: number[];
      beforeAll(async () => {
        await startThingIdsAt(1_000_000);
        ids = [];
        for (let i = 0; i < 100; i++)
          ids.push(await buildThing(t.services, i % 2 ? owner : other, { title: `Many ${i}` }));
        for (const id of ids) expect(String(id)).toMatch(/^\d{7}$/);
        ids.reverse(); // asked in another order than created
      });
      const idsOf = (list: { id: number }[]) => list.map((x) => x.id);

      it('100 ids of 7 digits: every thing, in the order asked, as JSON and as XML', async () => {
        const res = await get(`/things/${ids.join(',')}`);
        expect(res.statusCode, res.body).toBe(200);
        const list = json(res);
        expect(idsOf(list)).toEqual(ids);
        for (const x of list) expect(keys(x)).toEqual(THING_KEYS);

        const xml = await get(`/things/${ids.join(',')}.xml`);
        expect(xml.statusCode, xml.body).toBe(200);
        expect(xml.headers['content-type']).toMatch(/^application\/xml/);
        const parsed = new XMLParser({ isArray: (name) => name === 'thing' }).parse(xml.body);
        expect(parsed.things.thing.map((x: { id: number }) => x.id)).toEqual(ids);
      });

      it('100 ids of the longest accepted form (15 digits) and a trailing comma', async () => {
        const long = ids.map((id) => String(id).padStart(15, '0'));
        const res = await get(`/things/${long.join(',')},.json`);
        expect(res.statusCode, res.body).toBe(200);
        expect(idsOf(json(res))).toEqual(ids);
      });

      it("an unknown or malformed id among 100 is the route's 404 not_found", async () => {
        const unknown = [...ids.slice(0, 99), 9_999_999];
        const body = expectError(await get(`/things/${unknown.join(',')}`), 404, 'not_found');
        expect(body.error_uri).toBe(`${PUBLIC_URL}/docs/api#things`);
        const malformed = [...ids.slice(0, 99), 'x'.repeat(7)];
        expect(expectError(await get(`/things/${malformed.join(',')}`), 404, 'not_found').error_uri).toBe(
          `${PUBLIC_URL}/docs/api#things`,
        );
      });

      it('101 ids → 400 invalid_parameters, however long the path, duplicates counted', async () => {
        const more = [...ids, ids[0]!];
        const body = expectError(await get(`/things/${more.join(',')}`), 400, 'invalid_parameters');
        expect(body.error_description).toContain('100');
        expect(body.error_uri).toBe(`${PUBLIC_URL}/docs/api#things`);
        const unknownToo = [...ids, 9_999_999];
        expectError(await get(`/things/${unknownToo.join(',')}`), 400, 'invalid_parameters');
        // 101 ids of 15 digits: a segment longer than 100 of them need, refused all the same.
        const long = more.map((id) => String(id).padStart(15, '0'));
        expectError(await get(`/things/${long.join(',')}`), 400, 'invalid_parameters');
        expectError(await get(`/things/${long.join('%2C')}/`), 400, 'invalid_parameters');
        // With a format suffix: the same refusal (XML from the route; a segment too long for the
        // router gets the error shape of unknown paths, JSON).
        const xml = await get(`/things/${more.join(',')}.xml`);
        expect(xml.statusCode).toBe(400);
        expect(xml.body).toContain('<error><error>invalid_parameters</error>');
        expectError(await get(`/things/${long.join(',')}.xml`), 400, 'invalid_parameters');
      });
    });

    it('a deleted thing among the ids is 404', async () => {
      const a = await buildThing(t.services, owner);
      const b = await buildThing(t.services, owner);
      const del = await t.app.inject({ method: 'DELETE', url: `${API}/things/${b}`, headers: bearer(owner.token) });
      expect(del.statusCode).toBe(204);
      expectError(await get(`/things/${a},${b}`), 404, 'not_found');
    });
  });

  describe('GET /things/lookup/?url=', () => {
    const lookup = (url: string | undefined, path = '/things/lookup/') =>
      get(url === undefined ? path : `${path}?url=${encodeURIComponent(url)}`);

    function expectFound(res: LightMyRequestResponse, id: number) {
      expect(res.statusCode, res.body).toBe(302);
      expect(res.headers.location).toBe(thingApiUrl(id));
      const body = json(res);
      expect(body).toEqual({ message: 'found', location: thingApiUrl(id) });
    }
    function expectMissing(res: LightMyRequestResponse) {
      expect(res.statusCode, res.body).toBe(404);
      const body = json(res);
      expect(keys(body)).toEqual(['description', 'message']);
      expect(body.message).toBe('not_found');
      expect(typeof body.description).toBe('string');
      expect(body).not.toHaveProperty('error');
    }

    it('finds a registered URL: 302 with Location and {message: "found", location}', async () => {
      const url = uniqueUrl();
      const id = await buildThing(t.services, owner, { url });
      expectFound(await lookup(url), id);
      expectFound(await lookup(url, '/things/lookup'), id);
    });

    it('a URL nobody registered is 404 {message: "not_found", description}, not the error shape', async () => {
      expectMissing(await lookup(uniqueUrl()));
    });

    it('a hidden thing is found too', async () => {
      const url = uniqueUrl();
      const id = await buildThing(t.services, owner, { url, hidden: true });
      expectFound(await lookup(url), id);
    });

    it('compares after normalisation: scheme and host case and the default port do not matter', async () => {
      const path = uniqueName('norm');
      const id = await buildThing(t.services, owner, { url: `https://example.com/${path}?q=1` });
      expectFound(await lookup(`HTTPS://EXAMPLE.COM/${path}?q=1`), id);
      expectFound(await lookup(`https://Example.Com:443/${path}?q=1`), id);
      const httpId = await buildThing(t.services, owner, { url: `http://example.org/${path}` });
      expectFound(await lookup(`HTTP://example.ORG:80/${path}`), httpId);
      // A non-default port is a different URL.
      expectMissing(await lookup(`https://example.com:8443/${path}?q=1`));
    });

    it('query and fragment are significant', async () => {
      const path = uniqueName('qf');
      const id = await buildThing(t.services, owner, { url: `https://example.com/${path}?q=1` });
      expectFound(await lookup(`https://example.com/${path}?q=1`), id);
      expectMissing(await lookup(`https://example.com/${path}?q=2`));
      expectMissing(await lookup(`https://example.com/${path}`));
      expectMissing(await lookup(`https://example.com/${path}?q=1#frag`));
      const withFragment = await buildThing(t.services, owner, { url: `https://example.com/${path}#part` });
      expectFound(await lookup(`https://example.com/${path}#part`), withFragment);
      expectMissing(await lookup(`https://example.com/${path}#other`));
    });

    it('resolves an auto-submit URL to the thing of its inner url', async () => {
      const url = uniqueUrl();
      const id = await buildThing(t.services, owner, { url });
      const auto = `${PUBLIC_URL}/submit/auto?url=${encodeURIComponent(url)}&user_id=${owner.user.username}`;
      expectFound(await lookup(auto), id);
      // user_id compared case-insensitively, like usernames; no user_id at all also resolves.
      expectFound(
        await lookup(
          `${PUBLIC_URL}/submit/auto?url=${encodeURIComponent(url)}&user_id=${owner.user.username.toUpperCase()}`,
        ),
        id,
      );
      expectFound(await lookup(`${PUBLIC_URL}/submit/auto?url=${encodeURIComponent(url)}&title=Whatever`), id);
    });

    it('an auto-submit URL of an unregistered url is 404 not_found (lookup body)', async () => {
      expectMissing(
        await lookup(`${PUBLIC_URL}/submit/auto?url=${encodeURIComponent(uniqueUrl())}&user_id=${owner.user.username}`),
      );
    });

    it('an auto-submit URL whose user_id is not the owner is 400 validation', async () => {
      const url = uniqueUrl();
      await buildThing(t.services, owner, { url });
      const auto = `${PUBLIC_URL}/submit/auto?url=${encodeURIComponent(url)}&user_id=${other.user.username}`;
      expectError(await lookup(auto), 400, 'validation');
    });

    it('a missing or empty url is 400 invalid_parameters', async () => {
      expectError(await lookup(undefined), 400, 'invalid_parameters');
      expectError(await lookup(undefined, '/things/lookup'), 400, 'invalid_parameters');
      expectError(await get('/things/lookup/?url='), 400, 'invalid_parameters');
    });
  });

  describe('POST /things', () => {
    const post = (
      payload: unknown,
      token: string | null = owner.token,
      headers: Record<string, string> = {},
      path = '/things',
    ) =>
      t.app.inject({
        method: 'POST',
        url: `${API}${path}`,
        headers: { ...(token ? bearer(token) : {}), ...headers },
        payload: payload as string,
      });

    it('201 with {id, link (API URL), message: "ok", description}; defaults applied', async () => {
      clock.set(START + 20_000);
      const url = uniqueUrl();
      const res = await post({ url });
      expect(res.statusCode, res.body).toBe(201);
      const body = json(res);
      expect(keys(body)).toEqual(CREATED_KEYS);
      expect(Number.isInteger(body.id)).toBe(true);
      expect(body.link).toBe(thingApiUrl(body.id));
      expect(body.message).toBe('ok');
      expect(typeof body.description).toBe('string');

      const thing = json(await get(`/things/${body.id}`, owner.token));
      expect(thing).toMatchObject({
        id: body.id,
        url,
        category: 'rest',
        language: 'en_GB',
        hidden: false,
        tags: [],
        title: '',
        description: '',
        image: '',
        tips: 0,
        created_at: START + 20_000,
        updated_at: 0,
        last_tip_at: 0,
      });
      expect(thing.owner.username).toBe(owner.user.username);
    });

    it('stores every field given in a JSON body; tags from a comma-separated string', async () => {
      const url = uniqueUrl();
      const res = await post({
        url,
        title: 'My title',
        description: 'My description',
        category: 'software',
        language: 'de_DE',
        tags: ' js, node ,,ts ',
        hidden: true,
      });
      expect(res.statusCode, res.body).toBe(201);
      const thing = json(await get(`/things/${json(res).id}`));
      expect(thing).toMatchObject({
        url,
        title: 'My title',
        description: 'My description',
        category: 'software',
        language: 'de_DE',
        tags: ['js', 'node', 'ts'],
        hidden: true,
      });
    });

    it('takes tags as an array: trimmed, case kept, duplicates in any case dropped', async () => {
      const res = await post({ url: uniqueUrl(), tags: [' One ', 'two-words', 'three', 'ONE', '', 'été'] });
      expect(res.statusCode, res.body).toBe(201);
      expect(json(await get(`/things/${json(res).id}`)).tags).toEqual(['One', 'two-words', 'three', 'été']);
    });

    // A tag a `tags` search expression could never name (DECISIONS.md "Things").
    const unfindable: Array<[string, unknown, string]> = [
      ['white space inside an array element', ['ok', 'two words'], '"two words" holds white space'],
      ['a tab inside a comma string', 'ok,tab\there', '"tab\\there" holds white space'],
      ['a no-break space', ['no\u00a0break'], 'holds white space'],
      ['&', 'ok, rock&roll', `"rock&roll" holds '&'`],
      ['|', ['a|b'], `"a|b" holds '|'`],
      ['!', ['wow!'], `"wow!" holds '!'`],
      ['(', ['f(x'], `"f(x" holds '('`],
      [')', ['x)'], `"x)" holds ')'`],
      ['a comma inside an array element', ['ok', 'a,b'], `"a,b" holds ','`],
    ];
    it.each(unfindable)(
      'a tag holding %s → 400 validation naming the tag, nothing written',
      async (_name, tags, named) => {
        const url = uniqueUrl();
        const before = await countAllThings();
        const body = expectError(await post({ url, tags }), 400, 'validation');
        expect(body.error_description).toContain(named);
        expect(body.error_uri).toBe(`${PUBLIC_URL}/docs/api#things`);
        expect(await countAllThings()).toBe(before);
        expect(await countThingsWithUrl(url)).toBe(0);
      },
    );

    it('a tag holding an operator in a form body → 400 validation naming the tag', async () => {
      const url = uniqueUrl();
      const body = expectError(await post(form({ url, tags: 'fine,(nope)' }), owner.token, FORM), 400, 'validation');
      expect(body.error_description).toContain(`"(nope)" holds '('`);
      expect(await countThingsWithUrl(url)).toBe(0);
    });

    it('takes a form-urlencoded body', async () => {
      const url = uniqueUrl();
      const res = await post(
        form({ url, title: 'Form', category: 'audio', language: 'fr_FR', tags: 'x,y', hidden: '1' }),
        owner.token,
        FORM,
      );
      expect(res.statusCode, res.body).toBe(201);
      const body = json(res);
      expect(keys(body)).toEqual(CREATED_KEYS);
      const thing = json(await get(`/things/${body.id}`));
      expect(thing).toMatchObject({
        url,
        title: 'Form',
        category: 'audio',
        language: 'fr_FR',
        tags: ['x', 'y'],
        hidden: true,
      });
    });

    it('accepts boolean spellings in any case for hidden', async () => {
      const a = json(await post(form({ url: uniqueUrl(), hidden: 'TRUE' }), owner.token, FORM));
      const b = json(await post(form({ url: uniqueUrl(), hidden: 'False' }), owner.token, FORM));
      expect(json(await get(`/things/${a.id}`)).hidden).toBe(true);
      expect(json(await get(`/things/${b.id}`)).hidden).toBe(false);
    });

    it('tolerates a trailing slash', async () => {
      const res = await post({ url: uniqueUrl() }, owner.token, {}, '/things/');
      expect(res.statusCode, res.body).toBe(201);
    });

    it('accepts a URL of exactly 2048 characters and a title of 100 and a description of 1000', async () => {
      const prefix = `https://example.com/${uniqueName('long')}/`;
      const url = prefix + 'a'.repeat(2048 - prefix.length);
      expect(url.length).toBe(2048);
      const res = await post({ url, title: 't'.repeat(100), description: 'd'.repeat(1000) });
      expect(res.statusCode, res.body).toBe(201);
    });

    const invalid: Array<[string, () => Record<string, unknown>]> = [
      ['no url', () => ({ title: 'x' })],
      ['an empty url', () => ({ url: '' })],
      ['a relative url', () => ({ url: '/just/a/path' })],
      ['not a url', () => ({ url: 'not a url' })],
      ['an ftp url', () => ({ url: 'ftp://example.com/file' })],
      ['a javascript: url', () => ({ url: 'javascript:alert(1)' })],
      ['a url over 2048 characters', () => ({ url: `https://example.com/${'a'.repeat(2030)}` })],
      ['a title over 100 characters', () => ({ url: uniqueUrl(), title: 't'.repeat(101) })],
      ['a description over 1000 characters', () => ({ url: uniqueUrl(), description: 'd'.repeat(1001) })],
      ['an unknown category', () => ({ url: uniqueUrl(), category: 'cooking' })],
      ['an unknown language', () => ({ url: uniqueUrl(), language: 'xx_XX' })],
      ['a hidden that is no boolean', () => ({ url: uniqueUrl(), hidden: 'maybe' })],
    ];
    it.each(invalid)('%s → 400 validation, nothing written', async (_name, make) => {
      const payload = make();
      const before = await countAllThings();
      const res = await post(payload);
      expectError(res, 400, 'validation');
      expect(await countAllThings()).toBe(before);
      if (typeof payload.url === 'string' && payload.url) expect(await countThingsWithUrl(payload.url)).toBe(0);
    });

    it('a URL already registered → 400 validation naming the existing thing', async () => {
      const path = uniqueName('dup');
      const url = `https://example.com/${path}`;
      const first = await post({ url });
      expect(first.statusCode).toBe(201);
      const id = json(first).id;
      const before = await countAllThings();
      const again = expectError(await post({ url }, other.token), 400, 'validation');
      expect(again.error_description).toMatch(new RegExp(`\\b${id}\\b`));
      // after normalisation too
      const normalised = expectError(await post({ url: `HTTPS://EXAMPLE.COM:443/${path}` }), 400, 'validation');
      expect(normalised.error_description).toMatch(new RegExp(`\\b${id}\\b`));
      expect(await countAllThings()).toBe(before);
      // a different query is a different thing
      expect((await post({ url: `${url}?page=2` })).statusCode).toBe(201);
    });

    it('without a token → 401 unauthorized with WWW-Authenticate', async () => {
      const url = uniqueUrl();
      const res = await post({ url }, null);
      expectError(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
      expect(await countThingsWithUrl(url)).toBe(0);
    });

    it('a token without the thing scope → 403 insufficient_scope', async () => {
      const token = await tokenWith(t.services, owner.user.username, 'tip extendedread');
      const url = uniqueUrl();
      const res = await post({ url }, token);
      expectError(res, 403, 'insufficient_scope');
      expect(await countThingsWithUrl(url)).toBe(0);
    });

    it('a token with only the thing scope suffices', async () => {
      const token = await tokenWith(t.services, owner.user.username, 'thing');
      expect((await post({ url: uniqueUrl() }, token)).statusCode).toBe(201);
    });
  });

  describe('PATCH /things/:id and its POST workaround', () => {
    const patch = (
      id: number | string,
      payload: unknown,
      token: string | null = owner.token,
      headers: Record<string, string> = {},
    ) =>
      t.app.inject({
        method: 'PATCH',
        url: `${API}/things/${id}`,
        headers: { ...(token ? bearer(token) : {}), ...headers },
        payload: payload as string,
      });
    const expectOk = (res: LightMyRequestResponse) => {
      expect(res.statusCode, res.body).toBe(200);
      const body = json(res);
      expect(keys(body)).toEqual(MESSAGE_KEYS);
      expect(body.message).toBe('ok');
      expect(typeof body.description).toBe('string');
    };

    it('changes the fields given, keeps the others, and sets updated_at', async () => {
      clock.set(START + 30_000);
      const url = uniqueUrl();
      const id = await buildThing(t.services, owner, { url, title: 'Before', description: 'Keep me', tags: 'old' });
      clock.set(START + 30_500);
      expectOk(
        await patch(id, { title: 'After', category: 'video', language: 'es_ES', tags: 'new, newer', hidden: true }),
      );
      const thing = json(await get(`/things/${id}`, owner.token));
      expect(thing).toMatchObject({
        url,
        title: 'After',
        description: 'Keep me',
        category: 'video',
        language: 'es_ES',
        tags: ['new', 'newer'],
        hidden: true,
        created_at: START + 30_000,
        updated_at: START + 30_500,
      });
    });

    it('POST with _method=patch in the query string acts as PATCH', async () => {
      clock.set(START + 31_000);
      const id = await buildThing(t.services, owner);
      clock.set(START + 31_001);
      const res = await t.app.inject({
        method: 'POST',
        url: `${API}/things/${id}?_method=patch`,
        headers: bearer(owner.token),
        payload: { title: 'Via query' },
      });
      expectOk(res);
      expect(json(await get(`/things/${id}`, owner.token))).toMatchObject({
        title: 'Via query',
        updated_at: START + 31_001,
      });
    });

    it('POST with _method=patch in a form body acts as PATCH', async () => {
      const id = await buildThing(t.services, owner);
      const res = await t.app.inject({
        method: 'POST',
        url: `${API}/things/${id}`,
        headers: { ...bearer(owner.token), ...FORM },
        payload: form({ _method: 'patch', title: 'Via form', tags: 'f1,f2' }),
      });
      expectOk(res);
      expect(json(await get(`/things/${id}`))).toMatchObject({ title: 'Via form', tags: ['f1', 'f2'] });
    });

    it('POST with _method=PATCH in a JSON body acts as PATCH', async () => {
      const id = await buildThing(t.services, owner);
      const res = await t.app.inject({
        method: 'POST',
        url: `${API}/things/${id}`,
        headers: bearer(owner.token),
        payload: { _method: 'PATCH', title: 'Via JSON' },
      });
      expectOk(res);
      expect(json(await get(`/things/${id}`)).title).toBe('Via JSON');
    });

    it('takes a form body on PATCH itself', async () => {
      const id = await buildThing(t.services, owner);
      expectOk(await patch(id, form({ description: 'Form patch', hidden: 'true' }), owner.token, FORM));
      expect(json(await get(`/things/${id}`))).toMatchObject({ description: 'Form patch', hidden: true });
    });

    it('a url equal to the current one is ignored (clients send whole objects back)', async () => {
      const url = uniqueUrl();
      const id = await buildThing(t.services, owner, { url });
      const whole = json(await get(`/things/${id}`, owner.token));
      expectOk(await patch(id, { ...whole, title: 'Round trip' }));
      expect(json(await get(`/things/${id}`))).toMatchObject({ url, title: 'Round trip' });
    });

    it('a different url → 400 validation and nothing changed', async () => {
      const url = uniqueUrl();
      const id = await buildThing(t.services, owner, { url, title: 'Unchanged' });
      expectError(await patch(id, { url: uniqueUrl(), title: 'Changed' }), 400, 'validation');
      const thing = json(await get(`/things/${id}`, owner.token));
      expect(thing).toMatchObject({ url, title: 'Unchanged', updated_at: 0 });
    });

    it.each<[string, Record<string, unknown>]>([
      ['title over 100', { title: 't'.repeat(101) }],
      ['description over 1000', { description: 'd'.repeat(1001) }],
      ['unknown category', { category: 'cooking' }],
      ['unknown language', { language: 'xx_XX' }],
    ])('%s → 400 validation and nothing changed', async (_name, payload) => {
      const id = await buildThing(t.services, owner, { title: 'Unchanged' });
      expectError(await patch(id, { ...payload, hidden: true }), 400, 'validation');
      expect(json(await get(`/things/${id}`, owner.token))).toMatchObject({
        title: 'Unchanged',
        hidden: false,
        updated_at: 0,
      });
    });

    it.each<[string, (tags: string) => [unknown, Record<string, string>?, string?]]>([
      ['PATCH with JSON', (tags) => [{ title: 'Changed', tags }]],
      ['PATCH with a JSON array', () => [{ title: 'Changed', tags: ['fine', 'has space'] }]],
      ['PATCH with a form body', (tags) => [form({ title: 'Changed', tags }), FORM]],
      [
        'POST with _method=patch in a form body',
        (tags) => [form({ _method: 'patch', title: 'Changed', tags }), FORM, 'POST'],
      ],
    ])('%s: a tag a search could not find → 400 validation naming it, nothing changed', async (_name, make) => {
      const id = await buildThing(t.services, owner, { title: 'Unchanged', tags: 'kept' });
      const [payload, headers, method] = make('fine, a&b');
      const res = await t.app.inject({
        method: (method ?? 'PATCH') as 'PATCH' | 'POST',
        url: `${API}/things/${id}`,
        headers: { ...bearer(owner.token), ...headers },
        payload: payload as string,
      });
      const body = expectError(res, 400, 'validation');
      expect(body.error_description).toMatch(/"(a&b|has space)" holds/);
      expect(json(await get(`/things/${id}`, owner.token))).toMatchObject({
        title: 'Unchanged',
        tags: ['kept'],
        updated_at: 0,
      });
      const stored = await t.db.database.db.selectFrom('thing_tags').select('tag').where('thing_id', '=', id).execute();
      expect(stored.map((r) => r.tag)).toEqual(['kept']);
    });

    it('by someone else → 403 forbidden and nothing changed', async () => {
      const id = await buildThing(t.services, owner, { title: 'Mine' });
      expectError(await patch(id, { title: 'Stolen' }, other.token), 403, 'forbidden');
      const viaPost = await t.app.inject({
        method: 'POST',
        url: `${API}/things/${id}?_method=patch`,
        headers: bearer(other.token),
        payload: { title: 'Stolen' },
      });
      expectError(viaPost, 403, 'forbidden');
      expect(json(await get(`/things/${id}`)).title).toBe('Mine');
    });

    it('an unknown thing → 404 not_found', async () => {
      expectError(await patch(999999999, { title: 'x' }), 404, 'not_found');
      expectError(await patch('abc', { title: 'x' }), 404, 'not_found');
    });

    it('without a token → 401, without the thing scope → 403 insufficient_scope', async () => {
      const id = await buildThing(t.services, owner, { title: 'Same' });
      expectError(await patch(id, { title: 'x' }, null), 401, 'unauthorized');
      const tipOnly = await tokenWith(t.services, owner.user.username, 'tip');
      expectError(await patch(id, { title: 'x' }, tipOnly), 403, 'insufficient_scope');
      expect(json(await get(`/things/${id}`)).title).toBe('Same');
    });
  });

  describe('DELETE /things/:id', () => {
    const del = (id: number | string, token: string | null = owner.token) =>
      t.app.inject({ method: 'DELETE', url: `${API}/things/${id}`, headers: token ? bearer(token) : {} });

    it('204 with an empty body; afterwards the thing is 404 and its URL can be registered again', async () => {
      const url = uniqueUrl();
      const id = await buildThing(t.services, owner, { url });
      const res = await del(id);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expectError(await get(`/things/${id}`), 404, 'not_found');
      expectError(await get(`/things/${id}`, owner.token), 404, 'not_found');
      const lookup = await get(`/things/lookup/?url=${encodeURIComponent(url)}`);
      expect(lookup.statusCode).toBe(404);
      expect(json(lookup).message).toBe('not_found');
      expectError(await del(id), 404, 'not_found');
      const patched = await t.app.inject({
        method: 'PATCH',
        url: `${API}/things/${id}`,
        headers: bearer(owner.token),
        payload: { title: 'x' },
      });
      expectError(patched, 404, 'not_found');

      const again = await t.app.inject({
        method: 'POST',
        url: `${API}/things`,
        headers: bearer(other.token),
        payload: { url },
      });
      expect(again.statusCode, again.body).toBe(201);
      expect(json(again).id).not.toBe(id);
      const found = await get(`/things/lookup/?url=${encodeURIComponent(url)}`);
      expect(found.statusCode).toBe(302);
      expect(found.headers.location).toBe(thingApiUrl(json(again).id));
    });

    it("a deleted thing disappears from its owner's lists", async () => {
      const id = await buildThing(t.services, owner);
      expect((await del(id)).statusCode).toBe(204);
      const mine = json(await get('/user/things?count=100', owner.token));
      expect(mine.map((x: { id: number }) => x.id)).not.toContain(id);
    });

    it('by someone else → 403 forbidden and the thing stays', async () => {
      const id = await buildThing(t.services, owner);
      expectError(await del(id, other.token), 403, 'forbidden');
      expect((await get(`/things/${id}`)).statusCode).toBe(200);
    });

    it('unknown → 404; without a token → 401; without the thing scope → 403 insufficient_scope', async () => {
      expectError(await del(999999999), 404, 'not_found');
      const id = await buildThing(t.services, owner);
      expectError(await del(id, null), 401, 'unauthorized');
      const tipOnly = await tokenWith(t.services, owner.user.username, 'tip');
      expectError(await del(id, tipOnly), 403, 'insufficient_scope');
      expect((await get(`/things/${id}`)).statusCode).toBe(200);
    });
  });

  describe('GET /users/:username/things and GET /user/things', () => {
    let lister: TestUser;
    /** ids of lister's visible things, oldest first */
    const visible: number[] = [];
    let hiddenId: number;

    beforeAll(async () => {
      lister = await buildUser(t.services);
      for (let i = 0; i < 31; i++) {
        clock.set(START + 100_000 + i * 10);
        visible.push(await buildThing(t.services, lister, { title: `T${i}` }));
      }
      clock.set(START + 100_000 + 5); // between the first and second thing
      hiddenId = await buildThing(t.services, lister, { title: 'Hidden', hidden: true });
    });

    const ids = (res: LightMyRequestResponse) => {
      expect(res.statusCode, res.body).toBe(200);
      const list = json(res);
      expect(Array.isArray(list)).toBe(true);
      return list.map((x: { id: number }) => x.id) as number[];
    };
    const newestFirst = () => [...visible].reverse();

    it('newest first, 30 by default, full things with hidden as a boolean', async () => {
      const res = await get(`/users/${lister.user.username}/things`);
      const list = json(res);
      expect(ids(res)).toEqual(newestFirst().slice(0, 30));
      for (const x of list) {
        expect(keys(x)).toEqual(THING_KEYS);
        expect(x.hidden).toBe(false);
        expect(keys(x.owner)).toEqual(SUMMARY_KEYS);
      }
    });

    it('page and count select the slice', async () => {
      expect(ids(await get(`/users/${lister.user.username}/things?page=2`))).toEqual(newestFirst().slice(30, 60));
      expect(ids(await get(`/users/${lister.user.username}/things?count=5`))).toEqual(newestFirst().slice(0, 5));
      expect(ids(await get(`/users/${lister.user.username}/things?count=5&page=3`))).toEqual(
        newestFirst().slice(10, 15),
      );
      expect(ids(await get(`/users/${lister.user.username}/things?count=1`))).toEqual(newestFirst().slice(0, 1));
      expect(ids(await get(`/users/${lister.user.username}/things?count=100`))).toEqual(newestFirst());
      expect(ids(await get(`/users/${lister.user.username}/things?page=99`))).toEqual([]);
    });

    it('empty count= and page= mean the defaults', async () => {
      expect(ids(await get(`/users/${lister.user.username}/things?count=&page=`))).toEqual(newestFirst().slice(0, 30));
    });

    it.each([
      ['count=0'],
      ['count=101'],
      ['count=-1'],
      ['count=abc'],
      ['count=1.5'],
      ['page=0'],
      ['page=abc'],
      ['page=-2'],
    ])('%s → 400 invalid_parameters', async (q) => {
      expectError(await get(`/users/${lister.user.username}/things?${q}`), 400, 'invalid_parameters');
      expectError(await get(`/user/things?${q}`, lister.token), 400, 'invalid_parameters');
    });

    it('hidden things are shown to their owner only', async () => {
      const path = `/users/${lister.user.username}/things?count=100`;
      expect(ids(await get(path))).not.toContain(hiddenId);
      expect(ids(await get(path, other.token))).not.toContain(hiddenId);
      const forOwner = ids(await get(path, lister.token));
      expect(forOwner).toContain(hiddenId);
      expect(forOwner).toHaveLength(32);
      // newest first, hidden thing in its place (created between T0 and T1)
      expect(forOwner.slice(-2)).toEqual([hiddenId, visible[0]]);
    });

    it('per-viewer fields: the owner sees last_tip_at/updated_at, others tipped/subscribed', async () => {
      const path = `/users/${lister.user.username}/things?count=2`;
      for (const x of json(await get(path, lister.token))) expect(keys(x)).toEqual(OWNER_KEYS);
      for (const x of json(await get(path, other.token))) expect(keys(x)).toEqual(VIEWER_KEYS);
    });

    it('full swaps owners for full users; full=yes is 400', async () => {
      const list = json(await get(`/users/${lister.user.username}/things?count=2&full`));
      expect(list).toHaveLength(2);
      for (const x of list) expect(keys(x.owner)).toEqual(FULL_USER_KEYS);
      expectError(await get(`/users/${lister.user.username}/things?full=yes`), 400, 'invalid_parameters');
    });

    it('the username is matched case-insensitively', async () => {
      expect(ids(await get(`/users/${lister.user.username.toUpperCase()}/things?count=3`))).toEqual(
        newestFirst().slice(0, 3),
      );
    });

    it('an unknown user → 404 not_found', async () => {
      expectError(await get(`/users/${uniqueName('nobody')}/things`), 404, 'not_found');
      expectError(await get('/users/a%00b/things'), 400, 'invalid_request');
    });

    it('a user without things → 200 []', async () => {
      const empty = await buildUser(t.services);
      const res = await get(`/users/${empty.user.username}/things`);
      expect(res.statusCode).toBe(200);
      expect(json(res)).toEqual([]);
      expect(json(await get('/user/things', empty.token))).toEqual([]);
    });

    it("GET /user/things lists the caller's things, hidden included, newest first, paged", async () => {
      const all = ids(await get('/user/things?count=100', lister.token));
      expect(all).toHaveLength(32);
      expect(all).toContain(hiddenId);
      expect(ids(await get('/user/things', lister.token))).toEqual(all.slice(0, 30));
      expect(ids(await get('/user/things?page=2', lister.token))).toEqual(all.slice(30));
      expect(ids(await get('/user/things?count=&page=', lister.token))).toEqual(all.slice(0, 30));
      expect(ids(await get('/user/things?count=4&page=2', lister.token))).toEqual(all.slice(4, 8));
      // any scope will do
      const readOnly = await tokenWith(t.services, lister.user.username, 'extendedread');
      expect(ids(await get('/user/things?count=100', readOnly))).toEqual(all);
    });

    it('GET /user/things without a token → 401 unauthorized', async () => {
      const res = await get('/user/things');
      expectError(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
    });

    it('tolerates trailing slashes', async () => {
      expect(ids(await get(`/users/${lister.user.username}/things/?count=2`))).toEqual(newestFirst().slice(0, 2));
      expect(ids(await get('/user/things/?count=2', lister.token))).toHaveLength(2);
    });
  });
});
