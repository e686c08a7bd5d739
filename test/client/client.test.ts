/**
 * `@tipjar/client` against the real server (the app listening on 127.0.0.1, its requests through
 * fetch), on every engine: every method of `Tipjar` at least once, each returning the
 * representation the server sends; every error code of the API and of the OAuth endpoints mapped
 * to a `TipjarError` (status, code, description, error_uri, rate-limit headers) or a
 * `RateLimitError` (`retryAfter`); paged lists iterated across pages; the OAuth code exchange and
 * revocation with PKCE (the browser flow is test/client/oauth-browser.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { RateLimitError, Tipjar, TipjarError, type ErrorCode } from '@tipjar/client';
import { ENGINES } from '../helpers/db.ts';
import { listenTestApp, type ListeningApp } from '../helpers/server.ts';
import { buildThing, buildUser, tokenWith, uniqueName, type TestUser } from '../helpers/factories.ts';
import { buildClient, authorizeCode, type TestClient } from '../helpers/oauth.ts';
import { createPartner, type PartnerRecord } from '../../src/webhooks/partners.ts';
import { issueToken } from '../../src/auth/tokens.ts';

/** Runs `call` and returns the `TipjarError` it rejects with (fails if it resolves or throws another). */
async function refusal(call: Promise<unknown> | (() => unknown)): Promise<TipjarError> {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (err) {
    expect(err).toBeInstanceOf(TipjarError);
    return err as TipjarError;
  }
  throw new Error('expected a TipjarError, but the call succeeded');
}

/**
 * Asserts an API error as the client maps it: `status`, `code`, the description the server sent
 * (non-empty), its error_uri into the server's /docs/api, and the four rate-limit headers.
 */
function expectApiError(err: TipjarError, site: string, status: number, code: ErrorCode): void {
  expect({ status: err.status, code: err.code }, err.message).toEqual({ status, code });
  expect(err.description.length).toBeGreaterThan(0);
  expect(err.message).toBe(`${code}: ${err.description}`);
  expect(err.uri).toMatch(new RegExp(`^${site.replace(/[.:/]/g, '\\$&')}/docs/api#`));
  expect(Object.keys(err.rateLimit).sort()).toEqual(['current', 'limit', 'remaining', 'reset']);
  expect(err.rateLimit.remaining! + err.rateLimit.current!).toBe(err.rateLimit.limit);
}

/** A fetch that records the path and query of every request before sending it. */
function recordingFetch(log: string[]): (request: Request) => Promise<Response> {
  return (request) => {
    const url = new URL(request.url);
    log.push(`${request.method} ${url.pathname}${url.search}`);
    return fetch(request);
  };
}

describe.each(ENGINES)('@tipjar/client against the real server (%s)', (engine) => {
  let server: ListeningApp;
  let site: string;
  /** owns things; every scope */
  let owner: TestUser;
  /** funded, every scope */
  let tipper: TestUser;
  let anonymous: Tipjar;
  let asOwner: Tipjar;
  let asTipper: Tipjar;
  /** the server's own answer to a GET, for comparing the client's values with the wire */
  const wire = async (path: string, token?: string): Promise<unknown> => {
    const res = await fetch(`${site}/rest/v2${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    expect(res.status, path).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    server = await listenTestApp(engine);
    site = server.site;
    owner = await buildUser(server.services);
    tipper = await buildUser(server.services);
    anonymous = new Tipjar({ baseUrl: site });
    asOwner = new Tipjar({ baseUrl: site, accessToken: owner.token });
    asTipper = new Tipjar({ baseUrl: `${site}/rest/v2/`, accessToken: tipper.token });
  });
  afterAll(async () => server?.close());

  describe('reference data and limits', () => {
    it('categories() and languages() are the lists the server sends', async () => {
      const categories = await anonymous.categories();
      expect(categories.map((c) => c.id)).toEqual(['text', 'images', 'video', 'audio', 'software', 'people', 'rest']);
      expect(categories).toEqual(await wire('/categories'));
      const languages = await anonymous.languages();
      expect(languages.length).toBeGreaterThan(40);
      expect(languages.find((l) => l.id === 'en_GB')).toEqual({ id: 'en_GB', text: 'English' });
      expect(languages).toEqual(await wire('/languages'));
    });

    it("rateLimit() is the caller's window: the token's (5000) or the address's (1000)", async () => {
      const before = await asTipper.rateLimit();
      expect(before.hourly_limit).toBe(5000);
      await asTipper.me.get();
      const after = await asTipper.rateLimit();
      expect(after.current_hits).toBe(before.current_hits + 1);
      expect(after.remaining_hits).toBe(before.remaining_hits - 1);
      expect(after.reset_time_in_seconds % 3600).toBe(0);
      expect(Date.parse(after.reset_time) / 1000).toBe(after.reset_time_in_seconds);
      expect((await anonymous.rateLimit()).hourly_limit).toBe(1000);
    });
  });

  describe('things', () => {
    it('create → get → update → get: the creation body, the full thing with the per-viewer fields, the message', async () => {
      const url = `https://example.org/${uniqueName('post')}`;
      const created = await asOwner.things.create({
        url,
        title: 'My post',
        tags: ['typed', 'client'],
        category: 'text',
      });
      expect(created).toEqual({
        id: expect.any(Number),
        link: `${site}/rest/v2/things/${created.id}`,
        message: 'ok',
        description: expect.any(String),
      });

      const mine = await asOwner.things.get(created.id);
      expect(mine).toEqual(await wire(`/things/${created.id}`, owner.token));
      expect(mine).toMatchObject({ type: 'thing', id: created.id, url, title: 'My post', tags: ['typed', 'client'] });
      expect(mine.owner.username).toBe(owner.user.username);
      expect(mine.updated_at).toBe(0);
      expect(mine.tipped).toBe(false);

      const seen = await anonymous.things.get(created.id);
      expect('tipped' in seen || 'updated_at' in seen).toBe(false);
      const full = await anonymous.things.get(created.id, { full: true });
      expect(full.owner.firstname).toBe('');
      expect(seen.owner.firstname).toBeUndefined();

      const changed = await asOwner.things.update(created.id, { title: 'My better post', hidden: false });
      expect(changed.message).toBe('ok');
      const after = await asOwner.things.get(created.id);
      expect(after.title).toBe('My better post');
      expect(after.updated_at).toBeGreaterThan(0);
    });

    it('getMany(ids): the things in the order asked, duplicates once; one id → an array of one; none → []', async () => {
      const a = await buildThing(server.services, owner);
      const b = await buildThing(server.services, owner);
      const both = await anonymous.things.getMany([b, a, b]);
      expect(both.map((t) => t.id)).toEqual([b, a]);
      expect(both).toEqual(await wire(`/things/${b},${a}`));
      expect((await anonymous.things.getMany([a])).map((t) => t.id)).toEqual([a]);
      const log: string[] = [];
      expect(await new Tipjar({ baseUrl: site, fetch: recordingFetch(log) }).things.getMany([])).toEqual([]);
      expect(log).toEqual([]);
    });

    it('lookup(url): the thing registered for the URL (the 302 followed), or null', async () => {
      const url = `https://example.org/${uniqueName('lookup')}`;
      const { id } = await asOwner.things.create({ url, title: 'Found me' });
      const found = await asTipper.things.lookup(url);
      expect(found?.id).toBe(id);
      expect(found?.tipped).toBe(false); // followed with the caller's token
      expect(await anonymous.things.lookup(`https://example.org/${uniqueName('nothing')}`)).toBeNull();
    });

    it('lookup(url) with a fetch that does not follow redirects reads the 302 body and gets the thing', async () => {
      const url = `https://example.org/${uniqueName('manual')}`;
      const { id } = await asOwner.things.create({ url });
      const log: string[] = [];
      const manual = new Tipjar({
        baseUrl: site,
        fetch: (request) => {
          log.push(new URL(request.url).pathname);
          return fetch(request, { redirect: 'manual' });
        },
      });
      expect((await manual.things.lookup(url))?.id).toBe(id);
      expect(log).toEqual(['/rest/v2/things/lookup', `/rest/v2/things/${id}`]);
    });

    it('delete(id): 204, then the thing is gone (not_found)', async () => {
      const id = await buildThing(server.services, owner);
      await expect(asOwner.things.delete(id)).resolves.toBeUndefined();
      expectApiError(await refusal(anonymous.things.get(id)), site, 404, 'not_found');
    });

    it('search(criteria): one page of the search result; searchAll iterates every page', async () => {
      const word = `zq${uniqueName('w').replace(/[^a-z0-9]/g, '')}`;
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push(await buildThing(server.services, owner, { title: `${word} number ${i}` }));
      const newestFirst = [...ids].reverse();

      const first = await anonymous.things.search({ query: word }, { count: 2 });
      expect(first).toMatchObject({ total_items: 5, items: 2, page: 1 });
      expect(first.things.map((t) => t.id)).toEqual(newestFirst.slice(0, 2));
      expect(first).toEqual(await wire(`/things/search?query=${word}&count=2`));
      const third = await anonymous.things.search({ query: word }, { count: 2, page: 3 });
      expect(third.things.map((t) => t.id)).toEqual(newestFirst.slice(4));

      const log: string[] = [];
      const counted = new Tipjar({ baseUrl: site, fetch: recordingFetch(log) });
      const seen: number[] = [];
      for await (const thing of counted.things.searchAll({ query: word }, { count: 2 })) seen.push(thing.id);
      expect(seen).toEqual(newestFirst);
      expect(log).toEqual([1, 2, 3].map((p) => `GET /rest/v2/things/search?query=${word}&count=2&page=${p}`));
    });
  });

  describe('paged lists', () => {
    let lister: TestUser;
    let listed: number[];

    beforeAll(async () => {
      lister = await buildUser(server.services);
      listed = [];
      for (let i = 0; i < 5; i++) listed.push(await buildThing(server.services, lister, { title: `listed ${i}` }));
      listed.reverse(); // newest first
    });

    it('users.things(username): for await across pages, a request per page until a short page', async () => {
      const log: string[] = [];
      const client = new Tipjar({ baseUrl: site, fetch: recordingFetch(log) });
      const seen: number[] = [];
      for await (const thing of client.users.things(lister.user.username, { count: 2 })) seen.push(thing.id);
      expect(seen).toEqual(listed);
      expect(log).toEqual([1, 2, 3].map((p) => `GET /rest/v2/users/${lister.user.username}/things?page=${p}&count=2`));
    });

    it('a list whose last page is full ends with one empty page; break stops fetching', async () => {
      const log: string[] = [];
      const client = new Tipjar({ baseUrl: site, fetch: recordingFetch(log) });
      const pages: number[][] = [];
      for await (const page of client.users.things(lister.user.username, { count: 5 }).pages()) {
        pages.push(page.map((t) => t.id));
      }
      expect(pages).toEqual([listed]);
      expect(log).toHaveLength(2);

      log.length = 0;
      for await (const thing of client.users.things(lister.user.username, { count: 1 })) {
        if (thing.id === listed[1]) break;
      }
      expect(log).toHaveLength(2);
    });

    it('page(n): one page; [] past the end; the default count is the API’s 30', async () => {
      const list = anonymous.users.things(lister.user.username, { count: 2 });
      expect((await list.page(2)).map((t) => t.id)).toEqual(listed.slice(2, 4));
      expect(await list.page(9)).toEqual([]);
      expect(anonymous.users.things(lister.user.username).count).toBe(30);
      expect((await anonymous.users.things(lister.user.username).page()).map((t) => t.id)).toEqual(listed);
      expect(() => anonymous.users.things(lister.user.username, { count: 101 })).toThrow(RangeError);
    });

    it('me.things(), with hidden things the public list leaves out', async () => {
      const hidden = await buildThing(server.services, lister, { hidden: true });
      const mine = new Tipjar({ baseUrl: site, accessToken: lister.token });
      const ids: number[] = [];
      for await (const thing of mine.me.things({ count: 3 })) ids.push(thing.id);
      expect(ids).toEqual([hidden, ...listed]);
      const publicIds: number[] = [];
      for await (const thing of anonymous.users.things(lister.user.username, { count: 3 })) publicIds.push(thing.id);
      expect(publicIds).toEqual(listed);
    });
  });

  describe('tips', () => {
    it('tips.tip(thingId) and tips.tipUrl(url): the confirmation; the tip lists show them, paged', async () => {
      const giver = await buildUser(server.services);
      const asGiver = new Tipjar({ baseUrl: site, accessToken: giver.token });
      const first = await buildThing(server.services, owner, { title: 'tip me' });
      const confirmation = await asGiver.tips.tip(first);
      expect(confirmation).toEqual({
        message: 'ok',
        description: expect.any(String),
        thing: {
          type: 'thing',
          resource: `${site}/rest/v2/things/${first}`,
          link: expect.any(String),
          id: first,
          tips: 1,
          url: expect.any(String),
          title: 'tip me',
          image: '',
        },
      });

      const url = `https://example.org/${uniqueName('byurl')}`;
      const { id: second } = await asOwner.things.create({ url, title: 'tip my URL' });
      const byUrl = await asGiver.tips.tipUrl(url);
      expect(byUrl.thing.id).toBe(second);

      const mine: number[] = [];
      for await (const tip of asGiver.me.tips({ count: 1 })) mine.push(tip.thing.id);
      expect(mine).toEqual([second, first]);

      const theirs = [];
      for await (const tip of anonymous.users.tips(giver.user.username, { count: 1, full: true })) theirs.push(tip);
      expect(theirs.map((t) => t.thing.id)).toEqual([second, first]);
      expect(theirs[0]!.owner.username).toBe(giver.user.username);
      expect('firstname' in theirs[0]!.owner).toBe(true); // full
      expect(theirs[0]).toMatchObject({ type: 'tip', created_at: expect.any(Number) });

      const onThing = [];
      for await (const tip of asOwner.things.tips(first)) onThing.push(tip);
      expect(onThing.map((t) => t.owner.username)).toEqual([giver.user.username]);
      expect(await asOwner.things.tips(first).page()).toEqual(await wire(`/things/${first}/tips`, owner.token));
    });
  });

  describe('users and the current user', () => {
    it('users.get(username): the public User; me.get(): the own User with extendedread fields', async () => {
      const user = await anonymous.users.get(owner.user.username);
      expect(user).toEqual(await wire(`/users/${owner.user.username}`));
      expect(user).toMatchObject({ type: 'user', username: owner.user.username });
      expect(user.email).toBeUndefined();
      const me = await asOwner.me.get();
      expect(me.email).toBe(`${owner.user.username}@example.com`);
      expect(me.registered_at).toEqual(expect.any(Number));
      expect(me.budget_cents).toBe(500);
    });
  });

  describe('subscriptions', () => {
    it('subscribe → list → toggle (paused, started) → unsubscribe', async () => {
      const subscriber = await buildUser(server.services);
      const client = new Tipjar({ baseUrl: site, accessToken: subscriber.token });
      const id = await buildThing(server.services, owner, { title: 'follow me' });
      const subscribed = await client.subscriptions.subscribe(id);
      expect(subscribed).toMatchObject({ message: 'ok', thing: { id, tips: 1 } });
      const list = await client.subscriptions.list();
      expect(list).toEqual(await wire('/user/subscriptions', subscriber.token));
      expect(list).toMatchObject([{ type: 'subscription', active: true, thing: { id, subscribed: true } }]);
      expect((await client.subscriptions.toggle(id)).message).toBe('paused');
      expect((await client.subscriptions.list())[0]!.active).toBe(false);
      expect((await client.subscriptions.toggle(id)).message).toBe('started');
      await expect(client.subscriptions.unsubscribe(id)).resolves.toBeUndefined();
      expect(await client.subscriptions.list()).toEqual([]);
    });
  });

  describe('activities', () => {
    it('activities.user(username, {type}) and activities.me(): Activity Streams JSON', async () => {
      const actor = await buildUser(server.services);
      const client = new Tipjar({ baseUrl: site, accessToken: actor.token });
      const id = await buildThing(server.services, owner, { title: 'liked' });
      await client.tips.tip(id);
      const outgoing = await anonymous.activities.user(actor.user.username);
      expect(outgoing).toEqual(await wire(`/users/${actor.user.username}/activities`));
      expect(outgoing.items.map((i) => i.verb)).toEqual(['like']);
      expect(outgoing.items[0]!.title).toBe(`${actor.user.username} tipped "liked"`);
      expect((await client.activities.me()).items).toEqual(outgoing.items);
      const incoming = await asOwner.activities.me({ type: 'incoming' });
      expect(incoming.items.some((i) => i.actor.displayName === actor.user.username && i.verb === 'like')).toBe(true);
      expect((await anonymous.activities.user(owner.user.username, { type: 'incoming' })).items).toEqual(
        incoming.items,
      );
    });
  });

  describe('partner verification', () => {
    let partner: PartnerRecord;

    beforeAll(async () => {
      partner = (
        await createPartner(server.services, {
          namespace: uniqueName('p'),
          webhookUrl: 'http://127.0.0.1:9/hook',
          events: 'pendingclickcreate',
          allowPrivateWebhook: true,
        })
      ).partner;
    });

    it("users.verify(username, identity) and me.verify(identity) with a token of the partner's client", async () => {
      const user = await buildUser(server.services, { funded: false });
      const token = await issueToken(server.services, user.user.username, 'tip', partner.clientRowId);
      const client = new Tipjar({ baseUrl: site, accessToken: token });
      const one = await client.users.verify(user.user.username, `partner:${partner.namespace}:one`);
      expect(one).toEqual({ message: 'ok', description: expect.stringContaining(`partner:${partner.namespace}:one`) });
      const two = await client.me.verify(`partner:${partner.namespace}:two`);
      expect(two.message).toBe('ok');
      // a token of no partner's client may not verify
      const refused = await refusal(asOwner.me.verify(`partner:${partner.namespace}:three`));
      expectApiError(refused, site, 401, 'unauthorized');
    });
  });

  describe('errors: every code of the API', () => {
    it('invalid_request (400): tipUrl of something that is not a URL', async () => {
      expectApiError(await refusal(asTipper.tips.tipUrl('not a url')), site, 400, 'invalid_request');
    });

    it('invalid_parameters (400): a malformed tag expression; more than 100 ids', async () => {
      expectApiError(await refusal(anonymous.things.search({ tags: 'a |' })), site, 400, 'invalid_parameters');
      const ids = Array.from({ length: 101 }, (_, i) => i + 1);
      expectApiError(await refusal(anonymous.things.getMany(ids)), site, 400, 'invalid_parameters');
    });

    it('validation (400): a bad URL; a URL registered twice', async () => {
      expectApiError(await refusal(asOwner.things.create({ url: 'ftp://nope' })), site, 400, 'validation');
      const url = `https://example.org/${uniqueName('twice')}`;
      await asOwner.things.create({ url });
      expectApiError(await refusal(asOwner.things.create({ url })), site, 400, 'validation');
    });

    it('unauthorized (401): no token; an unknown token', async () => {
      expectApiError(await refusal(anonymous.me.get()), site, 401, 'unauthorized');
      const bogus = new Tipjar({ baseUrl: site, accessToken: 'not-a-token' });
      expectApiError(await refusal(bogus.categories()), site, 401, 'unauthorized');
      expectApiError(await refusal(anonymous.me.tips().page()), site, 401, 'unauthorized');
    });

    it('no_means (401): a tipper without means', async () => {
      const poor = await buildUser(server.services, { funded: false });
      const id = await buildThing(server.services, owner);
      const err = await refusal(new Tipjar({ baseUrl: site, accessToken: poor.token }).tips.tip(id));
      expectApiError(err, site, 401, 'no_means');
    });

    it('insufficient_scope (403): tipping with a token of scope thing', async () => {
      const thingOnly = await tokenWith(server.services, tipper.user.username, 'thing');
      const id = await buildThing(server.services, owner);
      const err = await refusal(new Tipjar({ baseUrl: site, accessToken: thingOnly }).tips.tip(id));
      expectApiError(err, site, 403, 'insufficient_scope');
    });

    it('tip_once (403), tip_owner (403)', async () => {
      const id = await buildThing(server.services, owner);
      await asTipper.tips.tip(id);
      expectApiError(await refusal(asTipper.tips.tip(id)), site, 403, 'tip_once');
      expectApiError(await refusal(asOwner.tips.tip(id)), site, 403, 'tip_owner');
    });

    it('forbidden (403): updating or deleting a thing of someone else', async () => {
      const id = await buildThing(server.services, owner);
      expectApiError(await refusal(asTipper.things.update(id, { title: 'mine now' })), site, 403, 'forbidden');
      expectApiError(await refusal(asTipper.things.delete(id)), site, 403, 'forbidden');
    });

    it('thing_owner (403), subscribed (403)', async () => {
      const id = await buildThing(server.services, owner);
      expectApiError(await refusal(asOwner.subscriptions.subscribe(id)), site, 403, 'thing_owner');
      const fan = new Tipjar({ baseUrl: site, accessToken: (await buildUser(server.services)).token });
      await fan.subscriptions.subscribe(id);
      expectApiError(await refusal(fan.subscriptions.subscribe(id)), site, 403, 'subscribed');
    });

    it('not_found (404): an unknown thing, user, subscription', async () => {
      expectApiError(await refusal(anonymous.things.get(987654321)), site, 404, 'not_found');
      expectApiError(await refusal(anonymous.users.get(uniqueName('ghost'))), site, 404, 'not_found');
      expectApiError(await refusal(anonymous.users.tips(uniqueName('ghost')).page()), site, 404, 'not_found');
      const id = await buildThing(server.services, owner);
      expectApiError(await refusal(asTipper.subscriptions.unsubscribe(id)), site, 404, 'not_found');
    });

    it('not_acceptable (406): a fetch that asks for a format the API does not offer', async () => {
      const html = new Tipjar({
        baseUrl: site,
        fetch: (request) => {
          request.headers.set('accept', 'text/html');
          return fetch(request);
        },
      });
      expectApiError(await refusal(html.categories()), site, 406, 'not_acceptable');
    });

    it('server_error (500): a failure of the database', async () => {
      const db = server.db.database.db;
      if (engine === 'sqlite') {
        await sql`CREATE TRIGGER client_boom BEFORE INSERT ON activities BEGIN SELECT RAISE(ABORT, 'boom'); END`.execute(
          db,
        );
      } else {
        await sql`CREATE FUNCTION client_boom_fn() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$`.execute(
          db,
        );
        await sql`CREATE TRIGGER client_boom BEFORE INSERT ON activities FOR EACH ROW EXECUTE FUNCTION client_boom_fn()`.execute(
          db,
        );
      }
      try {
        const err = await refusal(asOwner.things.create({ url: `https://example.org/${uniqueName('boom')}` }));
        expectApiError(err, site, 500, 'server_error');
      } finally {
        if (engine === 'sqlite') await sql`DROP TRIGGER client_boom`.execute(db);
        else {
          await sql`DROP TRIGGER client_boom ON activities`.execute(db);
          await sql`DROP FUNCTION client_boom_fn()`.execute(db);
        }
      }
    });

    it('an answer that is not the error shape (a proxy page): server_error for 5xx, unexpected_response otherwise', async () => {
      const proxied = (status: number) =>
        new Tipjar({
          baseUrl: site,
          fetch: async () =>
            new Response('<html>Bad gateway</html>', { status, headers: { 'content-type': 'text/html' } }),
        });
      const gateway = await refusal(proxied(502).categories());
      expect({ status: gateway.status, code: gateway.code, uri: gateway.uri }).toEqual({
        status: 502,
        code: 'server_error',
        uri: undefined,
      });
      expect(gateway.description).toBe('HTTP 502');
      expect(gateway.rateLimit).toEqual({});
      expect((await refusal(proxied(418).categories())).code).toBe('unexpected_response');
    });
  });

  describe('OAuth: code exchange with PKCE, revocation, metadata, refusals', () => {
    let app: TestClient;
    const redirectUri = 'http://127.0.0.1/callback';

    beforeAll(async () => {
      app = await buildClient(server.services, { callbackDomain: '127.0.0.1' });
    });

    it('authorizationUrl: response_type=code, the client, redirect_uri, scope, state and an S256 challenge', async () => {
      const { url, state, codeVerifier } = await anonymous.oauth.authorizationUrl({
        clientId: app.clientId,
        redirectUri,
        scope: ['tip', 'extendedread'],
      });
      const u = new URL(url);
      expect(`${u.origin}${u.pathname}`).toBe(`${site}/oauth/authorize`);
      const q = Object.fromEntries(u.searchParams);
      const challenge = Buffer.from(
        await crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier)),
      ).toString('base64url');
      expect(q).toEqual({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: redirectUri,
        scope: 'tip extendedread',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      expect(codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(state).toMatch(/^[A-Za-z0-9_-]{22}$/);
      const again = await anonymous.oauth.authorizationUrl({ clientId: app.clientId, state: 'mine' });
      expect(again.state).toBe('mine');
      expect(again.codeVerifier).not.toBe(codeVerifier);
    });

    it('exchangeCode (PKCE) gives a token that works; revoke ends it; the code cannot be used twice', async () => {
      const user = await buildUser(server.services);
      const { codeVerifier, url } = await anonymous.oauth.authorizationUrl({
        clientId: app.clientId,
        redirectUri,
        scope: 'tip',
      });
      const q = Object.fromEntries(new URL(url).searchParams);
      const { code } = await authorizeCode(server.services, app, user.user.id, q);
      const credentials = { clientId: app.clientId, clientSecret: app.clientSecret };
      const token = await anonymous.oauth.exchangeCode({ ...credentials, code, redirectUri, codeVerifier });
      expect(token).toEqual({ access_token: expect.any(String), token_type: 'bearer', scope: 'tip' });

      const asUser = new Tipjar({ baseUrl: site, accessToken: token.access_token });
      expect((await asUser.me.get()).username).toBe(user.user.username);

      const reused = await refusal(anonymous.oauth.exchangeCode({ ...credentials, code, redirectUri, codeVerifier }));
      expect({ status: reused.status, code: reused.code, uri: reused.uri }).toEqual({
        status: 400,
        code: 'invalid_grant',
        uri: undefined,
      });

      await anonymous.oauth.revoke({ ...credentials, token: token.access_token });
      expectApiError(await refusal(asUser.me.get()), site, 401, 'unauthorized');
      // revoking again, or an unknown token, is no error (RFC 7009 §2.2)
      await expect(anonymous.oauth.revoke({ ...credentials, token: 'unknown' })).resolves.toBeUndefined();
    });

    it('exchangeCode refusals: invalid_grant (wrong verifier), invalid_client (401), invalid_request', async () => {
      const user = await buildUser(server.services);
      const { url } = await anonymous.oauth.authorizationUrl({ clientId: app.clientId, redirectUri, scope: 'tip' });
      const { code } = await authorizeCode(
        server.services,
        app,
        user.user.id,
        Object.fromEntries(new URL(url).searchParams),
      );
      const credentials = { clientId: app.clientId, clientSecret: app.clientSecret };
      const wrongVerifier = await refusal(
        anonymous.oauth.exchangeCode({ ...credentials, code, redirectUri, codeVerifier: 'x'.repeat(43) }),
      );
      expect([wrongVerifier.status, wrongVerifier.code]).toEqual([400, 'invalid_grant']);
      const badClient = await refusal(
        anonymous.oauth.exchangeCode({ clientId: app.clientId, clientSecret: 'wrong', code: 'c', redirectUri }),
      );
      expect([badClient.status, badClient.code]).toEqual([401, 'invalid_client']);
      expect(badClient.description.length).toBeGreaterThan(0);
      const noVerifier = await refusal(anonymous.oauth.exchangeCode({ ...credentials, code: '', redirectUri }));
      expect([noVerifier.status, noVerifier.code]).toEqual([400, 'invalid_request']);
      const revokeBadClient = await refusal(
        anonymous.oauth.revoke({ clientId: app.clientId, clientSecret: 'no', token: 't' }),
      );
      expect([revokeBadClient.status, revokeBadClient.code]).toEqual([401, 'invalid_client']);
    });

    it('callbackCode: the code of a redirect; invalid_scope and state_mismatch from the real authorization endpoint', async () => {
      const { url, state } = await anonymous.oauth.authorizationUrl({
        clientId: app.clientId,
        redirectUri,
        scope: 'tip bogus',
      });
      // Refused before any log-in: the server redirects back with error=invalid_scope.
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const location = res.headers.get('location')!;
      expect(location.startsWith(`${redirectUri}?`)).toBe(true);
      const err = await refusal(() => anonymous.oauth.callbackCode(location, state));
      expect({ status: err.status, code: err.code }).toEqual({ status: 0, code: 'invalid_scope' });
      expect(err.description).toContain('bogus');
      const mismatch = await refusal(() => anonymous.oauth.callbackCode(location, 'another state'));
      expect(mismatch.code).toBe('state_mismatch');

      const user = await buildUser(server.services);
      const good = await anonymous.oauth.authorizationUrl({ clientId: app.clientId, redirectUri, scope: 'tip' });
      const { code, location: approved } = await authorizeCode(
        server.services,
        app,
        user.user.id,
        Object.fromEntries(new URL(good.url).searchParams),
      );
      expect(anonymous.oauth.callbackCode(approved, good.state)).toBe(code);
    });

    it('metadata(): the RFC 8414 document, PKCE S256 among its methods', async () => {
      const metadata = await anonymous.oauth.metadata();
      expect(metadata.token_endpoint).toBe(`${site}/oauth/token`);
      expect(metadata.code_challenge_methods_supported).toContain('S256');
      expect(metadata).toEqual(await (await fetch(`${site}/.well-known/oauth-authorization-server`)).json());
    });
  });
});

describe.each(ENGINES)('@tipjar/client over the rate limits (%s)', (engine) => {
  let server: ListeningApp;

  beforeAll(async () => {
    server = await listenTestApp(engine, {
      RATE_LIMIT_AUTHENTICATED: '3',
      CLIENT_AUTH_FAILURES_PER_CLIENT_AND_IP: '2',
    });
  });
  afterAll(async () => server?.close());

  it('403 rate_limit_exceeded → RateLimitError with retryAfter (seconds to the window end) and the headers', async () => {
    const user = await buildUser(server.services);
    const client = new Tipjar({ baseUrl: server.site, accessToken: user.token });
    for (let i = 0; i < 3; i++) await client.categories();
    const err = await refusal(client.categories());
    expect(err).toBeInstanceOf(RateLimitError);
    const limited = err as RateLimitError;
    expectApiError(limited, server.site, 403, 'rate_limit_exceeded');
    expect(limited.rateLimit).toMatchObject({ limit: 3, remaining: 0, current: 3 });
    const secondsLeft = limited.rateLimit.reset! - Math.floor(Date.now() / 1000);
    expect(limited.retryAfter).toBeGreaterThan(0);
    expect(Math.abs(limited.retryAfter - secondsLeft)).toBeLessThanOrEqual(2);
    // rateLimit() is not counted, and says the same
    expect((await client.rateLimit()).remaining_hits).toBe(0);
  });

  it('429 after too many failed client authentications → RateLimitError (invalid_request) with retryAfter', async () => {
    const app = await buildClient(server.services, { callbackDomain: '127.0.0.1' });
    const client = new Tipjar({ baseUrl: server.site });
    const wrong = { clientId: app.clientId, clientSecret: 'wrong', code: 'c' };
    for (let i = 0; i < 2; i++) expect((await refusal(client.oauth.exchangeCode(wrong))).code).toBe('invalid_client');
    const err = await refusal(client.oauth.exchangeCode({ ...wrong, clientSecret: app.clientSecret }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect({ status: err.status, code: err.code }).toEqual({ status: 429, code: 'invalid_request' });
    expect((err as RateLimitError).retryAfter).toBeGreaterThan(0);
    expect((err as RateLimitError).retryAfter).toBeLessThanOrEqual(900);
  });
});
