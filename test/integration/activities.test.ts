/**
 * Activities and feeds (api-v2.md "Activity stream", "Endpoints / Activities", conventions 3–4;
 * DECISIONS.md "Activities"): GET /users/:u/activities and /user/activities in `.as` (JSON
 * Activity Streams, the default) and `.atom` (Atom 1.0 + Activity Streams extensions), `type`
 * outgoing/incoming, 406 for JSON/XML, hidden/deleted things, JSONP; and the same feeds on the tip
 * and thing lists. Goldens under test/golden/ come from a fresh database with fixed data and a
 * fixed clock (regenerate with UPDATE_GOLDEN=1 after a deliberate change), on every engine.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parseFeed } from '@rowanmanning/feed-parser';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { expectError } from '../helpers/errors.ts';
import { insertActivity } from '../../src/db/repositories/activities.ts';

const AS_TYPE = 'application/stream+json';
const ATOM_TYPE = 'application/atom+xml;charset=utf-8';
const ITEM_KEYS = ['published', 'title', 'actor', 'verb', 'object', 'id'];
const SCHEMA = 'http://activitystrea.ms/schema/1.0/';

/** 2012-01-04T10:07:12Z, the original documentation's example instant. */
const T0 = Date.UTC(2012, 0, 4, 10, 7, 12) / 1000;
const HOUR = 3600;
const DAY = 24 * HOUR;

const GOLDEN_DIR = new URL('../golden/', import.meta.url);

/** Compares `text` with a golden file; UPDATE_GOLDEN=1 rewrites the file instead. */
function expectGolden(name: string, text: string): void {
  const path = fileURLToPath(new URL(name, GOLDEN_DIR));
  if (process.env.UPDATE_GOLDEN) writeFileSync(path, text);
  expect(text).toBe(readFileSync(path, 'utf8'));
}

/** A JSON body pretty-printed for a readable golden (key order kept). */
const pretty = (body: string) => `${JSON.stringify(JSON.parse(body), null, 2)}\n`;

/** Parses an `application/stream+json` response. */
function stream(res: LightMyRequestResponse): { items: any[] } {
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe(AS_TYPE);
  const body = JSON.parse(res.body);
  expect(Object.keys(body)).toEqual(['items']);
  for (const item of body.items) {
    expect(Object.keys(item)).toEqual(ITEM_KEYS);
    expect(Object.keys(item.actor)).toEqual(['displayName', 'url', 'objectType']);
    expect(Object.keys(item.object)).toEqual(['displayName', 'url', 'objectType']);
  }
  return body;
}

/** Checks an Atom response: status, content type, XML well-formedness. */
function atom(res: LightMyRequestResponse): string {
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe(ATOM_TYPE);
  expect(XMLValidator.validate(res.body)).toBe(true);
  return res.body;
}

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  isArray: (name) => ['entry', 'link'].includes(name),
});

const titles = (body: { items: any[] }) => body.items.map((i) => i.title);

/** The stored id of the newest activity row of `actorId` with `verb` on `thingId` (the last part of its tag URI). */
async function activityRowId(t: TestApp, actorId: number, verb: string, thingId: number): Promise<number> {
  const r = await t.db.database.db
    .selectFrom('activities')
    .select('id')
    .where('actor_user_id', '=', actorId)
    .where('verb', '=', verb)
    .where('thing_id', '=', thingId)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** The stored id of `tipperId`'s newest tip on `thingId`. */
async function tipRowId(t: TestApp, tipperId: number, thingId: number): Promise<number> {
  const r = await t.db.database.db
    .selectFrom('tips')
    .select('id')
    .where('tipper_id', '=', tipperId)
    .where('thing_id', '=', thingId)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return r.id;
}

describe.each(ENGINES)('activities and feeds on %s', (engine) => {
  describe('goldens (fresh database, fixed data and clock)', () => {
    let t: TestApp;
    const clock = fixedClock(T0 - DAY);
    let alice: TestUser, bob: TestUser, carol: TestUser;
    let acoustid: number;

    beforeAll(async () => {
      t = await buildTestApp(engine, { clock });
      alice = await buildUser(t.services, { username: 'alice' });
      bob = await buildUser(t.services, { username: 'bob' });
      carol = await buildUser(t.services, { username: 'carol' });
      const tip = (id: number, u: TestUser) =>
        t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(u.token) });

      clock.set(T0);
      acoustid = await buildThing(t.services, bob, { url: 'https://acoustid.org/', title: 'Acoustid' });
      clock.set(T0 + 60);
      const hidden = await buildThing(t.services, bob, {
        url: 'https://example.com/secret',
        title: 'Hidden gem',
        hidden: true,
      });
      clock.set(T0 + HOUR);
      expect((await tip(acoustid, alice)).statusCode).toBe(200);
      clock.set(T0 + 2 * HOUR);
      expect((await tip(acoustid, carol)).statusCode).toBe(200);
      clock.set(T0 + 3 * HOUR);
      expect((await tip(hidden, carol)).statusCode).toBe(200);
      clock.set(T0 + DAY);
      const fish = await buildThing(t.services, alice, {
        url: 'https://example.com/fish?a=1&b=2',
        title: 'Fish & "Chips" <b>',
      });
      clock.set(T0 + DAY + 60);
      expect((await tip(fish, bob)).statusCode).toBe(200);
      clock.set(T0 + 2 * DAY);
    });
    afterAll(async () => t?.close());

    it('GET /users/:u/activities.as (outgoing) matches test/golden/activities-outgoing.as.json', async () => {
      const res = await t.app.inject({ url: `${API}/users/alice/activities.as` });
      const body = stream(res);
      expect(body.items[1]).toEqual({
        published: '2012-01-04T11:07:12+00:00',
        title: 'alice tipped "Acoustid"',
        actor: { displayName: 'alice', url: `${PUBLIC_URL}/profile/alice`, objectType: 'person' },
        verb: 'like',
        object: { displayName: 'Acoustid', url: `${PUBLIC_URL}/thing/${acoustid}`, objectType: 'bookmark' },
        id: `tag:tipjar.test,2012-01-04:alice/like/${acoustid}/${await activityRowId(t, alice.user.id, 'like', acoustid)}`,
      });
      expectGolden('activities-outgoing.as.json', pretty(res.body));
    });

    it('GET /users/:u/activities.atom?type=incoming matches test/golden/activities-incoming.atom', async () => {
      const res = await t.app.inject({ url: `${API}/users/bob/activities.atom?type=incoming` });
      expectGolden('activities-incoming.atom', atom(res));
    });

    it('GET /users/:u/tips.atom matches test/golden/tips.atom', async () => {
      const res = await t.app.inject({ url: `${API}/users/carol/tips.atom` });
      expectGolden('tips.atom', atom(res));
    });

    it('GET /users/:u/things.as matches test/golden/things.as.json (hidden things left out for others)', async () => {
      const res = await t.app.inject({ url: `${API}/users/bob/things.as` });
      expect(titles(stream(res))).toEqual(['bob registered "Acoustid"']);
      expectGolden('things.as.json', pretty(res.body));
    });

    it('the Atom feed parses in a real feed parser with the right titles, links, ids, dates and authors', async () => {
      const res = await t.app.inject({ url: `${API}/users/bob/activities.atom?type=incoming` });
      const feed = parseFeed(atom(res));
      expect(feed.meta.type).toBe('atom');
      expect(feed.title).toBe('Activities on things of bob');
      expect(feed.self).toBe(`${PUBLIC_URL}${API}/users/bob/activities.atom?type=incoming`);
      expect(feed.url).toBe(`${PUBLIC_URL}/profile/bob`);
      expect(feed.updated?.toISOString()).toBe('2012-01-04T12:07:12.000Z');
      expect(feed.authors.map((a) => [a.name, a.url])).toEqual([['bob', `${PUBLIC_URL}/profile/bob`]]);
      expect(feed.items.map((i) => [i.title, i.url, i.id, i.published?.toISOString(), i.authors[0]?.name])).toEqual([
        [
          'carol tipped "Acoustid"',
          `${PUBLIC_URL}/thing/${acoustid}`,
          `tag:tipjar.test,2012-01-04:carol/like/${acoustid}/${await activityRowId(t, carol.user.id, 'like', acoustid)}`,
          '2012-01-04T12:07:12.000Z',
          'carol',
        ],
        [
          'alice tipped "Acoustid"',
          `${PUBLIC_URL}/thing/${acoustid}`,
          `tag:tipjar.test,2012-01-04:alice/like/${acoustid}/${await activityRowId(t, alice.user.id, 'like', acoustid)}`,
          '2012-01-04T11:07:12.000Z',
          'alice',
        ],
      ]);
    });

    it('Atom carries the Activity Streams extensions: verb, object type, object id/title/link, actor type', async () => {
      const res = await t.app.inject({ url: `${API}/users/alice/activities.atom` });
      const doc = xml.parse(atom(res));
      expect(doc.feed['@_xmlns']).toBe('http://www.w3.org/2005/Atom');
      expect(doc.feed['@_xmlns:activity']).toBe('http://activitystrea.ms/spec/1.0/');
      expect(doc.feed.id).toBe(`${PUBLIC_URL}${API}/users/alice/activities.atom`);
      const [post, like] = doc.feed.entry;
      expect(post['activity:verb']).toBe(`${SCHEMA}post`);
      expect(post.title).toBe('alice registered "Fish & "Chips" <b>"');
      expect(post['activity:object'].title).toBe('Fish & "Chips" <b>');
      expect(like['activity:verb']).toBe(`${SCHEMA}like`);
      expect(like.author).toEqual({
        name: 'alice',
        uri: `${PUBLIC_URL}/profile/alice`,
        'activity:object-type': `${SCHEMA}person`,
      });
      expect(like['activity:object']).toEqual({
        'activity:object-type': `${SCHEMA}bookmark`,
        id: `${PUBLIC_URL}/thing/${acoustid}`,
        title: 'Acoustid',
        link: [{ '@_rel': 'alternate', '@_type': 'text/html', '@_href': `${PUBLIC_URL}/thing/${acoustid}` }],
      });
      expect(like.published).toBe('2012-01-04T11:07:12+00:00');
      expect(like.updated).toBe('2012-01-04T11:07:12+00:00');
      expect(like.link).toEqual([
        { '@_rel': 'alternate', '@_type': 'text/html', '@_href': `${PUBLIC_URL}/thing/${acoustid}` },
      ]);
    });

    it('an empty feed is still a valid Atom document, updated now', async () => {
      const res = await t.app.inject({ url: `${API}/users/carol/activities.atom?type=incoming` });
      const feed = parseFeed(atom(res));
      expect(feed.items).toEqual([]);
      expect(feed.updated?.getTime()).toBe((T0 + 2 * DAY) * 1000);
      expect(stream(await t.app.inject({ url: `${API}/users/carol/activities.as?type=incoming` }))).toEqual({
        items: [],
      });
    });

    it('the owner sees their hidden thing in their feeds; the tipper and everyone else do not', async () => {
      const anonymous = stream(await t.app.inject({ url: `${API}/users/bob/activities?type=incoming` }));
      expect(titles(anonymous)).toEqual(['carol tipped "Acoustid"', 'alice tipped "Acoustid"']);
      const owner = stream(
        await t.app.inject({ url: `${API}/user/activities?type=incoming`, headers: bearer(bob.token) }),
      );
      expect(titles(owner)).toEqual([
        'carol tipped "Hidden gem"',
        'carol tipped "Acoustid"',
        'alice tipped "Acoustid"',
      ]);
      const ownerOut = stream(await t.app.inject({ url: `${API}/users/bob/activities`, headers: bearer(bob.token) }));
      expect(titles(ownerOut)).toEqual([
        'bob tipped "Fish & "Chips" <b>"',
        'bob registered "Hidden gem"',
        'bob registered "Acoustid"',
      ]);
      const carolOut = stream(await t.app.inject({ url: `${API}/users/carol/activities` }));
      expect(titles(carolOut)).toEqual(['carol tipped "Acoustid"']);
    });

    it('tip feeds leave out tips on hidden things but for the thing’s owner, as the JSON tip list does', async () => {
      const carolTips = json(await t.app.inject({ url: `${API}/users/carol/tips` }));
      expect(carolTips.map((tip: any) => tip.thing.title)).toEqual(['Acoustid']);
      expect(titles(stream(await t.app.inject({ url: `${API}/users/carol/tips.as` })))).toEqual([
        'carol tipped "Acoustid"',
      ]);
      const asOwner = stream(await t.app.inject({ url: `${API}/users/carol/tips.as`, headers: bearer(bob.token) }));
      expect(titles(asOwner)).toEqual(['carol tipped "Hidden gem"', 'carol tipped "Acoustid"']);
    });
  });

  describe('behaviour', () => {
    let t: TestApp;
    const clock = fixedClock(T0);
    const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url: `${API}${url}`, headers });
    const tip = (id: number, u: TestUser) =>
      t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(u.token) });

    beforeAll(async () => {
      t = await buildTestApp(engine, { clock });
    });
    afterAll(async () => t?.close());

    /** An owner with one thing, tipped by a fan one hour later. */
    async function scene() {
      clock.set(T0);
      const owner = await buildUser(t.services);
      const fan = await buildUser(t.services);
      const id = await buildThing(t.services, owner, { title: 'Song' });
      clock.set(T0 + HOUR);
      expect((await tip(id, fan)).statusCode).toBe(200);
      return { owner, fan, id, o: owner.user.username, f: fan.user.username };
    }

    it('no suffix and no Accept (or */*) → application/stream+json; Accept picks .as or .atom', async () => {
      const { o } = await scene();
      expect(stream(await get(`/users/${o}/activities`)).items).toHaveLength(1);
      expect(stream(await get(`/users/${o}/activities`, { accept: '*/*' })).items).toHaveLength(1);
      expect(stream(await get(`/users/${o}/activities`, { accept: 'application/stream+json' })).items).toHaveLength(1);
      atom(await get(`/users/${o}/activities`, { accept: 'application/atom+xml' }));
      // A suffix wins over the Accept header.
      atom(await get(`/users/${o}/activities.atom`, { accept: 'application/stream+json' }));
    });

    it('.json, .xml and Accept json/xml/other on activities → 406 not_acceptable (JSON error body), on both forms', async () => {
      const { o, owner } = await scene();
      for (const path of [`/users/${o}/activities`, '/user/activities']) {
        const auth = bearer(owner.token);
        expectError(await get(`${path}.json`, auth), 406, 'not_acceptable');
        expectError(await get(`${path}.xml`, auth), 406, 'not_acceptable');
        expectError(await get(path, { ...auth, accept: 'application/json' }), 406, 'not_acceptable');
        expectError(await get(path, { ...auth, accept: 'application/xml' }), 406, 'not_acceptable');
        expectError(await get(path, { ...auth, accept: 'text/html' }), 406, 'not_acceptable');
      }
    });

    it('type=outgoing (default) is what the user did; incoming is what others did to their things, without their own acts', async () => {
      const { o, f, id } = await scene();
      const outgoing = stream(await get(`/users/${o}/activities`));
      expect(outgoing).toEqual(stream(await get(`/users/${o}/activities?type=outgoing`)));
      expect(outgoing).toEqual(stream(await get(`/users/${o}/activities?type=`)));
      expect(outgoing.items.map((i) => [i.verb, i.actor.displayName, i.title])).toEqual([
        ['post', o, `${o} registered "Song"`],
      ]);
      const incoming = stream(await get(`/users/${o}/activities?type=incoming`));
      // The owner's own `post` of the thing is not incoming.
      expect(incoming.items.map((i) => [i.verb, i.actor.displayName, i.object.url])).toEqual([
        ['like', f, `${PUBLIC_URL}/thing/${id}`],
      ]);
      expect(stream(await get(`/users/${o}/activities?type=INCOMING`))).toEqual(incoming);
      expect(titles(stream(await get(`/users/${f}/activities`)))).toEqual([`${f} tipped "Song"`]);
      expect(stream(await get(`/users/${f}/activities?type=incoming`))).toEqual({ items: [] });
    });

    it('any other type → 400 invalid_parameters, on .as, .atom and /user/activities', async () => {
      const { o, owner } = await scene();
      for (const value of ['both', 'out', '1', 'incoming ']) {
        expectError(await get(`/users/${o}/activities?type=${encodeURIComponent(value)}`), 400, 'invalid_parameters');
        expectError(
          await get(`/users/${o}/activities.atom?type=${encodeURIComponent(value)}`),
          400,
          'invalid_parameters',
        );
        expectError(
          await get(`/user/activities?type=${encodeURIComponent(value)}`, bearer(owner.token)),
          400,
          'invalid_parameters',
        );
      }
    });

    it('unknown user → 404 not_found; /user/activities without a token → 401 unauthorized', async () => {
      expectError(await get('/users/nobody-here/activities'), 404, 'not_found');
      expectError(await get('/users/nobody-here/activities.atom'), 404, 'not_found');
      expectError(await get('/user/activities'), 401, 'unauthorized');
      expectError(await get('/user/activities.atom'), 401, 'unauthorized');
    });

    it('/user/activities is the caller’s feed; its Atom id names the user, its self link is the address asked', async () => {
      const { o, owner } = await scene();
      const own = stream(await get('/user/activities', bearer(owner.token)));
      expect(own).toEqual(stream(await get(`/users/${o}/activities`)));
      const doc = xml.parse(atom(await get('/user/activities.atom/?type=incoming&jsonp=cb', bearer(owner.token))));
      expect(doc.feed.id).toBe(`${PUBLIC_URL}${API}/users/${o}/activities.atom?type=incoming`);
      expect(doc.feed.title).toBe(`Activities on things of ${o}`);
      expect(doc.feed.link).toEqual([
        {
          '@_rel': 'self',
          '@_type': 'application/atom+xml',
          '@_href': `${PUBLIC_URL}${API}/user/activities.atom?type=incoming`,
        },
        { '@_rel': 'alternate', '@_type': 'text/html', '@_href': `${PUBLIC_URL}/profile/${o}` },
      ]);
      expect(doc.feed.author).toEqual({ name: o, uri: `${PUBLIC_URL}/profile/${o}` });
    });

    it('a deleted thing leaves every feed, its owner’s included', async () => {
      const { o, f, owner, id } = await scene();
      expect(
        (await t.app.inject({ method: 'DELETE', url: `${API}/things/${id}`, headers: bearer(owner.token) })).statusCode,
      ).toBe(204);
      expect(stream(await get('/user/activities', bearer(owner.token)))).toEqual({ items: [] });
      expect(stream(await get('/user/activities?type=incoming', bearer(owner.token)))).toEqual({ items: [] });
      expect(stream(await get(`/users/${f}/activities`))).toEqual({ items: [] });
      expect(stream(await get(`/users/${o}/things.as`))).toEqual({ items: [] });
    });

    it('tips of a user who hides their tips are left out for everyone but that user', async () => {
      const { o, f, fan, owner } = await scene();
      await t.db.database.db.updateTable('users').set({ hide_tips: 1 }).where('id', '=', fan.user.id).execute();
      expect(stream(await get(`/users/${f}/activities`))).toEqual({ items: [] });
      expect(stream(await get(`/users/${o}/activities?type=incoming`, bearer(owner.token)))).toEqual({ items: [] });
      expect(titles(stream(await get('/user/activities', bearer(fan.token))))).toEqual([`${f} tipped "Song"`]);
      expect(stream(await get(`/users/${f}/tips.as`))).toEqual({ items: [] });
    });

    it('subscriptions (verb follow) read "{user} subscribed to "{title}""', async () => {
      const { o, f, fan, owner, id } = await scene();
      await insertActivity(t.db.database.db, {
        actorUserId: fan.user.id,
        verb: 'follow',
        thingId: id,
        thingOwnerUserId: owner.user.id,
        now: T0 + 2 * HOUR,
      });
      const body = stream(await get(`/users/${o}/activities?type=incoming`));
      expect(body.items[0]).toEqual({
        published: '2012-01-04T12:07:12+00:00',
        title: `${f} subscribed to "Song"`,
        actor: { displayName: f, url: `${PUBLIC_URL}/profile/${f}`, objectType: 'person' },
        verb: 'follow',
        object: { displayName: 'Song', url: `${PUBLIC_URL}/thing/${id}`, objectType: 'bookmark' },
        id: `tag:tipjar.test,2012-01-04:${f}/follow/${id}/${await activityRowId(t, fan.user.id, 'follow', id)}`,
      });
      const doc = xml.parse(atom(await get(`/users/${o}/activities.atom?type=incoming`)));
      expect(doc.feed.entry[0]['activity:verb']).toBe(`${SCHEMA}follow`);
    });

    it('subscribing (POST /things/:id/subscriptions) shows as follow, then the tip it makes as like', async () => {
      clock.set(T0);
      const owner = await buildUser(t.services);
      const follower = await buildUser(t.services);
      const id = await buildThing(t.services, owner, { title: 'Podcast' });
      clock.set(T0 + DAY);
      const res = await t.app.inject({
        method: 'POST',
        url: `${API}/things/${id}/subscriptions`,
        headers: bearer(follower.token),
      });
      expect(res.statusCode, res.body).toBe(200);
      const f = follower.user.username;
      const body = stream(await get(`/users/${owner.user.username}/activities?type=incoming`));
      expect(body.items.map((i) => [i.verb, i.title, i.id])).toEqual([
        [
          'like',
          `${f} tipped "Podcast"`,
          `tag:tipjar.test,2012-01-05:${f}/like/${id}/${await activityRowId(t, follower.user.id, 'like', id)}`,
        ],
        [
          'follow',
          `${f} subscribed to "Podcast"`,
          `tag:tipjar.test,2012-01-05:${f}/follow/${id}/${await activityRowId(t, follower.user.id, 'follow', id)}`,
        ],
      ]);
    });

    it('a subscription paused and started again on one day gives two follow items with different ids', async () => {
      clock.set(T0);
      const owner = await buildUser(t.services);
      const follower = await buildUser(t.services);
      const id = await buildThing(t.services, owner, { title: 'Radio' });
      const sub = (method: 'POST' | 'PUT') =>
        t.app.inject({ method, url: `${API}/things/${id}/subscriptions`, headers: bearer(follower.token) });
      clock.set(T0 + HOUR);
      expect((await sub('POST')).statusCode).toBe(200);
      clock.set(T0 + 2 * HOUR);
      expect(json(await sub('PUT')).message).toBe('paused');
      clock.set(T0 + 3 * HOUR);
      expect(json(await sub('PUT')).message).toBe('started');
      const follows = stream(await get(`/users/${follower.user.username}/activities`)).items.filter(
        (i) => i.verb === 'follow',
      );
      expect(follows).toHaveLength(2);
      expect(follows[0].id).not.toBe(follows[1].id);
      const entries = parseFeed(atom(await get(`/users/${follower.user.username}/activities.atom`))).items.filter((i) =>
        i.title?.includes('subscribed'),
      );
      expect(new Set(entries.map((e) => e.id)).size).toBe(2);
    });

    it('JSONP wraps .as (application/javascript, real status); Atom is never wrapped', async () => {
      const { o } = await scene();
      const plain = await get(`/users/${o}/activities.as`);
      const res = await get(`/users/${o}/activities.as?jsonp=feed.cb`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/javascript;charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body).toBe(`/**/feed.cb(${plain.body});`);
      const err = await get(`/users/nobody-here/activities.as?jsonp=cb`);
      expect(err.statusCode).toBe(404);
      expect(err.body).toMatch(/^\/\*\*\/cb\(\{"error":"not_found",/);
      expectError(
        await get(`/users/${o}/activities.as?jsonp=${encodeURIComponent('alert(1)')}`),
        400,
        'invalid_parameters',
      );
      atom(await get(`/users/${o}/activities.atom?jsonp=cb`));
    });

    it('the newest 100 items only, newest first', async () => {
      clock.set(T0);
      const prolific = await buildUser(t.services);
      for (let i = 1; i <= 102; i++) {
        clock.set(T0 + i * 60);
        await buildThing(t.services, prolific, { title: `Thing ${i}` });
      }
      const body = stream(await get(`/users/${prolific.user.username}/activities?count=5&page=2`));
      expect(body.items).toHaveLength(100);
      expect(body.items[0].title).toBe(`${prolific.user.username} registered "Thing 102"`);
      expect(body.items[99].title).toBe(`${prolific.user.username} registered "Thing 3"`);
      const published = body.items.map((i) => Date.parse(i.published));
      expect(published).toEqual([...published].sort((a, b) => b - a));
      expect(parseFeed(atom(await get(`/users/${prolific.user.username}/activities.atom`))).items).toHaveLength(100);
    });

    it('characters XML 1.0 cannot carry are dropped from Atom; a thing without a title is named by its URL', async () => {
      clock.set(T0);
      const owner = await buildUser(t.services);
      // refused by the API today, but a title stored before may hold them
      const bell = await buildThing(t.services, owner, { title: 'Bell', url: 'https://example.com/bell' });
      await t.db.database.db
        .updateTable('things')
        .set({ title: 'Bell\u0007 and \u001Bescape' })
        .where('id', '=', bell)
        .execute();
      await buildThing(t.services, owner, { title: '', url: 'https://example.com/untitled' });
      const body = atom(await get(`/users/${owner.user.username}/activities.atom`));
      const titlesInFeed = parseFeed(body).items.map((i) => i.title);
      expect(titlesInFeed).toContain(`${owner.user.username} registered "Bell and escape"`);
      expect(titlesInFeed).toContain(`${owner.user.username} registered "https://example.com/untitled"`);
    });

    describe('feeds on tip and thing lists', () => {
      it('no suffix stays JSON; .as and .atom render the same tips as like items', async () => {
        const { f, fan, id } = await scene();
        const list = json(await get(`/users/${f}/tips`));
        expect(list).toHaveLength(1);
        const as = stream(await get(`/users/${f}/tips.as`));
        expect(as).toEqual(stream(await get('/user/tips.as', bearer(fan.token))));
        // a tip list's items are its tips: the tag URI ends in the tip's stored id
        const tipId = await tipRowId(t, fan.user.id, id);
        expect(as.items.map((i) => [i.verb, i.title, i.id])).toEqual([
          ['like', `${f} tipped "Song"`, `tag:tipjar.test,2012-01-04:${f}/like/${id}/${tipId}`],
        ]);
        const feed = parseFeed(atom(await get('/user/tips.atom', bearer(fan.token))));
        expect(feed.title).toBe(`Tips by ${f}`);
        expect(feed.items.map((i) => [i.title, i.url])).toEqual([[`${f} tipped "Song"`, `${PUBLIC_URL}/thing/${id}`]]);
        expect(xml.parse(atom(await get('/user/tips.atom', bearer(fan.token)))).feed.id).toBe(
          `${PUBLIC_URL}${API}/users/${f}/tips.atom`,
        );
      });

      it('/things/:id/tips.as and .atom need a token, list the thing’s tippers, and name the thing', async () => {
        const { o, f, fan, id } = await scene();
        expectError(await get(`/things/${id}/tips.as`), 401, 'unauthorized');
        expectError(await get(`/things/${id}/tips.atom`), 401, 'unauthorized');
        expectError(await get('/things/999999/tips.atom', bearer(fan.token)), 404, 'not_found');
        expect(titles(stream(await get(`/things/${id}/tips.as`, bearer(fan.token))))).toEqual([`${f} tipped "Song"`]);
        const feed = parseFeed(atom(await get(`/things/${id}/tips.atom`, bearer(fan.token))));
        expect(feed.title).toBe('Tips on "Song"');
        expect(feed.url).toBe(`${PUBLIC_URL}/thing/${id}`);
        expect(feed.authors.map((a) => a.name)).toEqual([o]);
      });

      it('things feeds: post items by the owner, same paging as the JSON list, hidden only for the owner', async () => {
        clock.set(T0);
        const owner = await buildUser(t.services);
        const o = owner.user.username;
        for (const [i, title] of ['One', 'Two', 'Three'].entries()) {
          clock.set(T0 + i * 60);
          await buildThing(t.services, owner, { title, hidden: title === 'Two' });
        }
        expect(titles(stream(await get(`/users/${o}/things.as`)))).toEqual([
          `${o} registered "Three"`,
          `${o} registered "One"`,
        ]);
        expect(titles(stream(await get('/user/things.as', bearer(owner.token))))).toEqual([
          `${o} registered "Three"`,
          `${o} registered "Two"`,
          `${o} registered "One"`,
        ]);
        const page2 = stream(await get('/user/things.as?count=1&page=2', bearer(owner.token)));
        const json2 = json(await get('/user/things?count=1&page=2', bearer(owner.token)));
        expect(page2.items.map((i) => i.object.url)).toEqual(json2.map((th: any) => th.link));
        const doc = xml.parse(atom(await get(`/users/${o}/things.atom?count=1&page=2`)));
        expect(doc.feed.id).toBe(`${PUBLIC_URL}${API}/users/${o}/things.atom?count=1&page=2`);
        expect(doc.feed.title).toBe(`Things by ${o}`);
        expect(doc.feed.entry.map((e: any) => e.title)).toEqual([`${o} registered "One"`]);
        expectError(await get(`/users/${o}/things.as?count=0`), 400, 'invalid_parameters');
        expectError(await get('/users/nobody-here/things.atom'), 404, 'not_found');
      });

      it('the tip and thing lists still answer JSON and XML; other formats → 406', async () => {
        const { o, f } = await scene();
        expect(json(await get(`/users/${o}/things.json`))).toHaveLength(1);
        const x = await get(`/users/${f}/tips.xml`);
        expect(x.statusCode).toBe(200);
        expect(x.headers['content-type']).toBe('application/xml;charset=utf-8');
        expect(x.body).toMatch(/<tips><tip>/);
        expectError(await get(`/users/${o}/things.rss`), 406, 'not_acceptable');
      });
    });
  });
});
