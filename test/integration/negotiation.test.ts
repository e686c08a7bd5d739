/**
 * Accept negotiation (api-v2.md conventions 2–3; DECISIONS.md "Wire format": media-type parameters
 * in Accept are matched per RFC 9110 §12.5.1, never a reason for 406; "Formats and protocol"), on
 * every engine: every format (JSON, XML, text/xml, Activity Streams, Atom, JSONP) asked for with
 * parameters, q-values and several ranges, on a plain resource, a list and an activity feed; an
 * Accept that matches nothing offered is 406; and every media type /openapi.json declares for an
 * operation's success response, sent back as Accept (what Swagger UI's "Try it out" does), is
 * answered in that media type.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';

const JSON_TYPE = 'application/json;charset=utf-8';
const XML_TYPE = 'application/xml;charset=utf-8';
const TEXT_XML_TYPE = 'text/xml;charset=utf-8';
const AS_TYPE = 'application/stream+json';
const ATOM_TYPE = 'application/atom+xml;charset=utf-8';
const JSONP_TYPE = 'application/javascript;charset=utf-8';

/** A browser's Accept (Chromium navigating to a URL). */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/** Asserts a 200 in `type`, with a body of that format. */
function expectFormat(res: LightMyRequestResponse, type: string): void {
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe(type);
  if (type === JSON_TYPE || type === AS_TYPE) expect(() => JSON.parse(res.body)).not.toThrow();
  if (type === XML_TYPE || type === TEXT_XML_TYPE || type === ATOM_TYPE) expect(res.body).toMatch(/^<\?xml /);
  if (type === JSONP_TYPE) expect(res.body).toMatch(/^\/\*\*\/cb\(/);
}

/** Asserts 406 `not_acceptable` in the JSON error shape, naming what the resource offers. */
function expectNotAcceptable(res: LightMyRequestResponse, offers: string): void {
  expect(res.statusCode, res.body).toBe(406);
  const body = json(res);
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description', 'error_uri']);
  expect(body.error).toBe('not_acceptable');
  expect(body.error_description).toContain(offers);
}

describe.each(ENGINES)('Accept negotiation on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser;
  let thingId: number;

  beforeAll(async () => {
    t = await buildTestApp(engine);
    owner = await buildUser(t.services);
    thingId = await buildThing(t.services, owner, { title: 'Negotiated' });
  });
  afterAll(async () => t.close());

  const get = (url: string, accept: string) => t.app.inject({ url: `${API}${url}`, headers: { accept } });

  describe('a plain resource (GET /things/:id: JSON, XML)', () => {
    it.each([
      ['application/json;charset=utf-8', JSON_TYPE],
      ['application/json; charset=UTF-8', JSON_TYPE],
      ['application/json;charset="utf-8"', JSON_TYPE],
      ['Application/JSON;Charset=utf-8', JSON_TYPE],
      ['application/json;q=0.9', JSON_TYPE],
      ['application/json;charset=utf-8;q=0.5', JSON_TYPE],
      ['application/xml;charset=utf-8', XML_TYPE],
      ['application/xml; charset=UTF-8; q=0.7', XML_TYPE],
      ['text/xml;charset=utf-8', TEXT_XML_TYPE],
      ['text/xml; charset="UTF-8"', TEXT_XML_TYPE],
      ['text/xml;charset=utf-8;q=0.5, application/json;charset=utf-8;q=0.9', JSON_TYPE],
      ['application/json;charset=utf-8;q=0.1, application/xml;charset=utf-8;q=0.8', XML_TYPE],
      ['application/json;charset=iso-8859-1, application/xml;q=0.5', XML_TYPE],
      ['application/*;q=0.5, text/xml;charset=utf-8', TEXT_XML_TYPE],
      ['*/*;q=0.1, text/xml;charset=utf-8', TEXT_XML_TYPE],
      ['*/*;charset=utf-8', JSON_TYPE],
      // The most specific matching range decides (RFC 9110 §12.5.1): JSON refused, XML at 0.2.
      ['application/json;charset=utf-8;q=0, application/*;q=0.2', XML_TYPE],
      [BROWSER, XML_TYPE],
    ])('Accept: %s → %s', async (accept, type) => {
      expectFormat(await get(`/things/${thingId}`, accept), type);
    });

    it('JSONP: Accept application/javascript;charset=utf-8 with ?jsonp= → the JSONP body', async () => {
      expectFormat(await get(`/things/${thingId}?jsonp=cb`, JSONP_TYPE), JSONP_TYPE);
      expectFormat(
        await get(`/things/${thingId}?jsonp=cb`, 'application/javascript;q=0.9, application/json;q=0.1'),
        JSONP_TYPE,
      );
    });

    it.each([
      'application/json;charset=iso-8859-1',
      'application/json;version=2',
      'text/html',
      'application/json;q=0',
      ATOM_TYPE,
      AS_TYPE,
      // JSONP needs its callback: without ?jsonp= there is no JavaScript to send.
      JSONP_TYPE,
    ])('Accept: %s matches nothing offered → 406', async (accept) => {
      expectNotAcceptable(
        await get(`/things/${thingId}`, accept),
        '.json, .xml (Accept: application/json, application/xml, text/xml; JSONP: application/javascript with ?jsonp=<callback>)',
      );
    });
  });

  describe('a list that is also a feed (GET /users/:u/things: JSON, XML, Activity Streams, Atom)', () => {
    it.each([
      ['application/json;charset=utf-8', JSON_TYPE],
      ['text/xml;charset=utf-8', TEXT_XML_TYPE],
      ['application/xml;charset=UTF-8', XML_TYPE],
      ['application/stream+json;charset=utf-8', AS_TYPE],
      ['application/stream+json', AS_TYPE],
      ['application/atom+xml;charset=utf-8', ATOM_TYPE],
      ['application/atom+xml; charset=UTF-8; q=0.9, application/json;charset=utf-8;q=0.5', ATOM_TYPE],
      ['application/atom+xml;charset=utf-8;q=0.3, application/stream+json;charset=utf-8;q=0.4', AS_TYPE],
      ['application/atom+xml;charset=iso-8859-1, application/stream+json;q=0.1', AS_TYPE],
    ])('Accept: %s → %s', async (accept, type) => {
      expectFormat(await get(`/users/${owner.user.username}/things`, accept), type);
    });

    it('JSONP with Accept application/javascript;charset=utf-8 wraps the JSON list', async () => {
      expectFormat(await get(`/users/${owner.user.username}/things?jsonp=cb`, JSONP_TYPE), JSONP_TYPE);
    });

    it.each(['application/atom+xml;charset=iso-8859-1', 'application/rss+xml', 'text/html;charset=utf-8'])(
      'Accept: %s → 406',
      async (accept) => {
        expectNotAcceptable(
          await get(`/users/${owner.user.username}/things`, accept),
          '.json, .xml, .as, .atom (Accept: application/json, application/xml, text/xml, application/stream+json, application/atom+xml;',
        );
      },
    );
  });

  describe('an activity feed (GET /users/:u/activities: Activity Streams, Atom)', () => {
    it.each([
      ['application/stream+json', AS_TYPE],
      ['application/stream+json;charset=utf-8', AS_TYPE],
      ['application/stream+json; charset=UTF-8; q=0.8', AS_TYPE],
      ['application/atom+xml;charset=utf-8', ATOM_TYPE],
      ['application/atom+xml;charset=utf-8;q=0.5, application/stream+json;charset=utf-8;q=0.4', ATOM_TYPE],
      ['application/json;charset=utf-8, application/atom+xml;charset=utf-8;q=0.1', ATOM_TYPE],
      ['*/*;q=0.1, application/atom+xml;charset=utf-8', ATOM_TYPE],
      [BROWSER, AS_TYPE],
    ])('Accept: %s → %s', async (accept, type) => {
      expectFormat(await get(`/users/${owner.user.username}/activities`, accept), type);
    });

    it('JSONP with Accept application/javascript;charset=utf-8 wraps the Activity Streams body', async () => {
      expectFormat(await get(`/users/${owner.user.username}/activities?jsonp=cb`, JSONP_TYPE), JSONP_TYPE);
    });

    it.each([
      'application/json;charset=utf-8',
      'application/xml;charset=utf-8',
      'text/xml',
      'application/stream+json;charset=iso-8859-1',
    ])('Accept: %s → 406 (activities are feeds only)', async (accept) => {
      expectNotAcceptable(
        await get(`/users/${owner.user.username}/activities`, accept),
        '.as, .atom (Accept: application/stream+json, application/atom+xml; JSONP: application/javascript with ?jsonp=<callback>)',
      );
    });
  });

  it('a suffix still wins over Accept, parameters or not', async () => {
    expectFormat(await get(`/things/${thingId}.xml`, 'application/json;charset=utf-8'), XML_TYPE);
    expectFormat(
      await get(`/users/${owner.user.username}/activities.atom`, 'application/stream+json;charset=utf-8'),
      ATOM_TYPE,
    );
  });

  it('every media type /openapi.json declares for a success response, sent back as Accept, is answered in it (Swagger UI "Try it out")', async () => {
    const doc = json(await t.app.inject({ url: '/openapi.json' }));
    const thing = (
      await t.db.database.db.selectFrom('things').select('url').where('id', '=', thingId).executeTakeFirstOrThrow()
    ).url;
    let answered = 0;
    for (const [path, operations] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(operations)) {
        // Swagger UI lets the first 2xx response with content control Accept.
        const success = Object.entries<any>(op.responses).find(
          ([status, r]) => status.startsWith('2') && Object.keys(r.content ?? {}).length > 0,
        );
        if (!success) continue;
        const url = path
          .replace('{ids}', String(thingId))
          .replace('{id}', String(thingId))
          .replace('{username}', owner.user.username);
        for (const media of Object.keys(success[1].content)) {
          const query = new URLSearchParams();
          if (media === JSONP_TYPE) query.set('jsonp', 'cb');
          if (path.endsWith('/things/lookup')) query.set('url', thing);
          const res = await t.app.inject({
            method: method.toUpperCase() as 'GET',
            url: `${url}${query.size > 0 ? `?${query}` : ''}`,
            // Reads with the owner's token; writes without one (401: nothing changes).
            headers: { accept: media, ...(method === 'get' ? bearer(owner.token) : {}) },
          });
          const what = `${method.toUpperCase()} ${path} Accept: ${media}`;
          expect(res.statusCode, `${what}: ${res.body}`).not.toBe(406);
          if (method === 'get' && !path.endsWith('/things/lookup')) {
            expect(res.statusCode, `${what}: ${res.body}`).toBe(200);
            expect(res.headers['content-type'], what).toBe(media);
            answered++;
          }
        }
      }
    }
    expect(answered).toBeGreaterThanOrEqual(60);
  });
});
