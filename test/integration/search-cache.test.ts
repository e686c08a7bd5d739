/**
 * The search result cache (src/domain/search, docs/adr/0015) through GET /things/search,
 * on every engine: a repeated search is answered from the cache, and every write this process
 * acknowledges — a new, changed, hidden, deleted or handed-over thing, a tip — shows in the very
 * next search; a transaction still open while a search runs cannot leave that search's result
 * behind; a write to things made outside this process (another process on SQLite, another
 * instance on PostgreSQL) shows at once too; on PostgreSQL another instance's tips change the tip
 * sorts once SEARCH_CACHE_SECONDS have passed.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { searchCacheCounts, searchThings } from '../helpers/search.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { insertThing } from '../../src/db/repositories/things.ts';
import { urlKey, parseHttpUrl } from '../../src/domain/urls.ts';
import { parseProfile, updateProfile } from '../../src/domain/users.ts';
import { TREND_WINDOW } from '../../src/db/repositories/search.ts';

const NOW = Date.UTC(2026, 5, 10, 12) / 1000;
const MAX_AGE = 30;
/** Lets the tests scrape GET /metrics (served only behind a token). */
const METRICS_TOKEN = 'search-cache-metrics-token-0123456789abcdef';

describe.each(ENGINES)('search result cache on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser;
  let tipper: TestUser;
  const clock = fixedClock(NOW);

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock, env: { SEARCH_CACHE_SECONDS: String(MAX_AGE), METRICS_TOKEN } });
    owner = await buildUser(t.services);
    tipper = await buildUser(t.services);
  });
  afterAll(async () => t.close());

  const search = (query: string, headers: Record<string, string> = {}) => searchThings(t.app, query, headers);
  const cacheCounts = () => searchCacheCounts(t.app, METRICS_TOKEN);
  /** A word no other test uses, so each test has searches of its own. */
  const freshWord = () => uniqueName('zq').replace(/[^a-z0-9]/g, '');
  /** A thing written straight into the database, as another instance or process would. */
  const insertBehindTheCache = async (executor: typeof t.db.database.db, title: string) => {
    const url = `https://example.org/${uniqueName('behind')}`;
    await executor
      .insertInto('things')
      .values({
        url,
        url_key: urlKey(parseHttpUrl(url)!),
        title,
        category: 'other',
        language: 'en',
        owner_user_id: owner.user.id,
        created_at: clock.now(),
      })
      .execute();
  };

  it('a repeated search is answered from the cache: the counts show one miss, then hits', async () => {
    const word = freshWord();
    const a = await buildThing(t.services, owner, { title: `${word} one` });
    const before = await cacheCounts();
    expect((await search(`query=${word}`)).ids).toEqual([a]);
    expect((await search(`query=${word}`)).ids).toEqual([a]);
    expect((await search(`query=${word}`)).ids).toEqual([a]);
    const after = await cacheCounts();
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(2);
  });

  it('a write behind the cache, by another connection, is in the next search (SQLite: data_version; PostgreSQL: the database counts writes to things)', async () => {
    const word = freshWord();
    const a = await buildThing(t.services, owner, { title: `${word} first` });
    expect((await search(`query=${word}`)).total).toBe(1);
    expect((await search(`query=${word}`)).ids).toEqual([a]);
    // A second connection to the same database: another process on SQLite, another instance on PostgreSQL.
    const other = await openDatabase(t.db.url);
    try {
      await insertBehindTheCache(other.db, `${word} second`);
    } finally {
      await other.close();
    }
    const before = await cacheCounts();
    expect((await search(`query=${word}`)).total).toBe(2);
    expect((await cacheCounts()).misses - before.misses).toBe(1);
  });

  it("on PostgreSQL a tip sort ages out after SEARCH_CACHE_SECONDS (other instances' tips are unseen), a relevance search does not", async () => {
    if (engine !== 'postgres') return;
    const word = freshWord();
    const a = await buildThing(t.services, owner, { title: `${word} tipped` });
    const b = await buildThing(t.services, owner, { title: `${word} untipped` });
    expect((await search(`query=${word}&sort=tips`)).ids).toEqual([b, a]);
    expect((await search(`query=${word}`)).total).toBe(2);
    // A tip written by another instance: no counter of this process moves.
    const other = await openDatabase(t.db.url);
    try {
      const tipper = await other.db
        .insertInto('users')
        .values({
          username: uniqueName('tip'),
          username_key: uniqueName('tip'),
          email: '',
          password_hash: null,
          registered_at: 1,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await other.db
        .insertInto('tips')
        .values({ thing_id: a, tipper_id: tipper.id, period: '2000-01', created_at: clock.now(), client_id: null })
        .execute();
      await other.db
        .insertInto('tip_hours')
        .values({
          thing_id: a,
          hour: Math.floor(clock.now() / 3600),
          tips: 1,
          first_at: clock.now(),
          last_at: clock.now(),
          weight: 1,
        })
        .execute();
      await other.db.updateTable('things').set({ tips: 1 }).where('id', '=', a).execute();
    } finally {
      await other.close();
    }
    clock.advance(MAX_AGE - 1);
    expect((await search(`query=${word}&sort=tips`)).ids).toEqual([b, a]);
    const before = await cacheCounts();
    expect((await search(`query=${word}`)).total).toBe(2);
    expect((await cacheCounts()).hits - before.hits).toBe(1);
    clock.advance(1);
    expect((await search(`query=${word}&sort=tips`)).ids).toEqual([a, b]);
  });

  it('past SEARCH_CACHE_SECONDS only the tip sorts are recomputed on PostgreSQL; on SQLite, which sees every change, none is', async () => {
    const word = freshWord();
    await buildThing(t.services, owner, { title: `${word} aging` });
    await search(`query=${word}`);
    await search(`query=${word}&sort=tips_week`);
    clock.advance(MAX_AGE);
    const before = await cacheCounts();
    await search(`query=${word}`);
    const afterRelevance = await cacheCounts();
    await search(`query=${word}&sort=tips_week`);
    const afterTips = await cacheCounts();
    expect(afterRelevance.hits - before.hits).toBe(1);
    expect(afterTips.hits - afterRelevance.hits).toBe(engine === 'sqlite' ? 1 : 0);
  });

  it('things created, changed, hidden and deleted through the API show in the next search', async () => {
    const word = freshWord();
    const a = await buildThing(t.services, owner, { title: `${word} alpha` });
    expect((await search(`query=${word}`)).ids).toEqual([a]);

    const created = await t.app.inject({
      method: 'POST',
      url: `${API}/things`,
      headers: bearer(owner.token),
      payload: { url: `https://example.com/${uniqueName('new')}`, title: `${word} beta` },
    });
    expect(created.statusCode, created.body).toBe(201);
    const b = json<{ id: number }>(created).id;
    expect((await search(`query=${word}`)).ids).toEqual([b, a]);

    const other = freshWord();
    expect((await search(`query=${other}`)).ids).toEqual([]);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `${API}/things/${a}`,
      headers: bearer(owner.token),
      payload: { title: `${other} renamed` },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect((await search(`query=${other}`)).ids).toEqual([a]);
    expect((await search(`query=${word}`)).ids).toEqual([b]);

    const hidden = await t.app.inject({
      method: 'PATCH',
      url: `${API}/things/${b}`,
      headers: bearer(owner.token),
      payload: { hidden: true },
    });
    expect(hidden.statusCode, hidden.body).toBe(200);
    expect((await search(`query=${word}`)).ids).toEqual([]);
    // …but still for its owner, whose searches have their own entries.
    expect((await search(`query=${word}`, bearer(owner.token))).ids).toEqual([b]);

    const deleted = await t.app.inject({ method: 'DELETE', url: `${API}/things/${a}`, headers: bearer(owner.token) });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await search(`query=${other}`)).ids).toEqual([]);
  });

  it('another sort or page of the same matches answers their current total: after a thing is created, and after one is written behind the cache', async () => {
    const word = freshWord();
    await buildThing(t.services, owner, { title: `${word} one` });
    await buildThing(t.services, owner, { title: `${word} two` });
    expect((await search(`query=${word}&count=1`)).total).toBe(2);
    // Pages of one thing are full, so each of these searches needs the total of all pages.
    expect((await search(`query=${word}&sort=tips&count=1`)).total).toBe(2);
    await buildThing(t.services, owner, { title: `${word} three` });
    expect((await search(`query=${word}&sort=trend&count=1`)).total).toBe(3);
    expect((await search(`query=${word}&page=2&count=1`)).total).toBe(3);
    const other = await openDatabase(t.db.url);
    try {
      await insertBehindTheCache(other.db, `${word} four`);
    } finally {
      await other.close();
    }
    expect((await search(`query=${word}&sort=tips_week&count=1`)).total).toBe(4);
    expect((await search(`query=${word}&page=3&count=1`)).total).toBe(4);
  });

  it('a tip reorders the tip sorts in the next search', async () => {
    const word = freshWord();
    const a = await buildThing(t.services, owner, { title: `${word} older` });
    const b = await buildThing(t.services, owner, { title: `${word} newer` });
    for (const sort of ['tips', 'tips_day', 'trend'])
      expect((await search(`query=${word}&sort=${sort}`)).ids).toEqual([b, a]);
    expect((await search(`sort=tips&count=1`)).ids).not.toEqual([a]);
    const res = await t.app.inject({ method: 'POST', url: `${API}/things/${a}/tip`, headers: bearer(tipper.token) });
    expect(res.statusCode, res.body).toBe(200);
    for (const sort of ['tips', 'tips_day', 'trend'])
      expect((await search(`query=${word}&sort=${sort}`)).ids).toEqual([a, b]);
    // The things of a cached page are read fresh: their counters are never those of the cache.
    const again = await search(`query=${word}`);
    expect(again.things.find((x) => x.id === a)?.tips).toBe(1);
  });

  it('the tip-sort windows move with the clock: a tip leaves tips_day once a day has passed', async () => {
    const word = freshWord();
    const a = await buildThing(t.services, owner, { title: `${word} tipped` });
    const b = await buildThing(t.services, owner, { title: `${word} later` });
    const res = await t.app.inject({ method: 'POST', url: `${API}/things/${a}/tip`, headers: bearer(tipper.token) });
    expect(res.statusCode, res.body).toBe(200);
    expect((await search(`query=${word}&sort=tips_day`)).ids).toEqual([a, b]);
    clock.advance(86400 + 1);
    expect((await search(`query=${word}&sort=tips_day`)).ids).toEqual([b, a]);
  });

  it("a windowed sort is kept until the clock moves a tip across its window's edge: recomputed the second the oldest tip leaves, or one dated ahead enters", async () => {
    clock.advance(TREND_WINDOW + 1); // the other tests' tips are out of every window from here on
    const tip = async (id: number) =>
      expect(
        (await t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(tipper.token) }))
          .statusCode,
      ).toBe(200);
    const misses = async () => (await cacheCounts()).misses;
    let m: number;

    // trend first: its 30-day window would still hold the tips_day case's tip.
    for (const [sort, window] of [
      ['trend', TREND_WINDOW],
      ['tips_day', 86400],
    ] as const) {
      const leaving = freshWord();
      const a = await buildThing(t.services, owner, { title: `${leaving} tipped` });
      const b = await buildThing(t.services, owner, { title: `${leaving} later` });
      const tippedAt = clock.now();
      await tip(a);
      clock.advance(10);
      expect((await search(`query=${leaving}&sort=${sort}`)).ids, sort).toEqual([a, b]);
      clock.set(tippedAt + window - 1);
      m = await misses();
      expect((await search(`query=${leaving}&sort=${sort}`)).ids, sort).toEqual([a, b]);
      if (engine === 'sqlite') expect(await misses(), sort).toBe(m);
      clock.set(tippedAt + window);
      m = await misses();
      expect((await search(`query=${leaving}&sort=${sort}`)).ids, sort).toEqual([b, a]);
      expect(await misses(), sort).toBe(m + 1);
    }

    // A tip dated after the search (an instance whose clock is ahead) counts from its second on.
    const entering = freshWord();
    const c = await buildThing(t.services, owner, { title: `${entering} tipped` });
    const d = await buildThing(t.services, owner, { title: `${entering} later` });
    const aheadAt = clock.now();
    await tip(c);
    clock.set(aheadAt - 50);
    expect((await search(`query=${entering}&sort=tips_day`)).ids).toEqual([d, c]);
    clock.set(aheadAt - 1);
    m = await misses();
    expect((await search(`query=${entering}&sort=tips_day`)).ids).toEqual([d, c]);
    if (engine === 'sqlite') expect(await misses()).toBe(m);
    clock.set(aheadAt);
    expect((await search(`query=${entering}&sort=tips_day`)).ids).toEqual([c, d]);
  });

  it('a search run while a transaction writing a match is still open is not served once that transaction committed', async () => {
    const word = freshWord();
    const a = await buildThing(t.services, owner, { title: `${word} settled` });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const wrote = new Promise<void>((resolve) => (inserted = resolve));
    const url = `https://example.com/${uniqueName('open')}`;
    const writer = inTransaction(t.db.database, async (trx) => {
      const id = await insertThing(
        trx,
        {
          url,
          urlKey: urlKey(parseHttpUrl(url)!),
          title: `${word} pending`,
          description: '',
          category: 'other',
          language: 'en',
          tags: [],
          hidden: false,
        },
        { userId: owner.user.id },
        clock.now(),
      );
      inserted();
      await gate;
      return id;
    });
    await wrote;
    // PostgreSQL: the search runs now, beside the open transaction, and cannot see its row.
    // SQLite: the search ranks on the read thread now, without the row, but reads its page's
    // things on the server's connection, which is busy until the transaction ends.
    const during = search(`query=${word}`);
    if (engine === 'postgres') expect((await during).ids).toEqual([a]);
    release();
    const b = await writer;
    await during;
    expect((await search(`query=${word}`)).ids).toEqual([b, a]);
  });

  it('an anonymous search asked again is answered from its rendered JSON, byte for byte the same, also as XML and JSONP', async () => {
    const word = freshWord();
    const renamed = await buildUser(t.services);
    const a = await buildThing(t.services, renamed, {
      title: `${word} rendered – déjà vu ✓`,
      description: 'first words',
    });
    const raw = (suffix = '', query = '') =>
      t.app.inject({ url: `${API}/things/search${suffix}?query=${word}${query}` });
    const answers = [await raw(), await raw(), await raw()];
    expect(new Set(answers.map((r) => r.body)).size).toBe(1);
    for (const r of answers) {
      expect(r.headers['content-type']).toBe('application/json;charset=utf-8');
      expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
    }
    expect(json<{ things: { title: string }[] }>(answers[2]!).things[0]!.title).toBe(`${word} rendered – déjà vu ✓`);
    const xml = [(await raw('.xml')).body, (await raw('.xml')).body];
    expect(xml[0]).toContain(`<title>${word} rendered – déjà vu ✓</title>`);
    expect(xml[1]).toBe(xml[0]);
    const jsonp = await raw('', '&jsonp=cb');
    expect(jsonp.headers['content-type']).toBe('application/javascript;charset=utf-8');
    expect(jsonp.body).toBe(`/**/cb(${answers[0]!.body});`);
    // Changes no code path of Tipjar makes (SQL behind every cache) show which answers come from
    // memory. A username never changes, so no version follows it: the kept answer is served.
    await sql`update users set username = ${`${renamed.user.username}x`} where id = ${renamed.user.id}`.execute(
      t.db.database.db,
    );
    expect((await raw()).body).toBe(answers[0]!.body);
    // A write of the thing's row: on PostgreSQL its version (xmin) moves, as it does for a write
    // by another instance, and the answer is made anew; on SQLite, where this process's writes are
    // followed through its own code and this one bypassed it, the kept answer is still served.
    await sql`update things set description = ${'behind the caches'} where id = ${a}`.execute(t.db.database.db);
    const next = json<{ things: { description: string; owner: { username: string } }[] }>(await raw());
    expect(next.things[0]!.description).toBe(engine === 'sqlite' ? 'first words' : 'behind the caches');
    expect(next.things[0]!.owner.username).toBe(
      engine === 'sqlite' ? renamed.user.username : `${renamed.user.username}x`,
    );
  });

  it('a rendered answer is made again once one of its things changed: a tip, an edit', async () => {
    const word = freshWord();
    const a = await buildThing(t.services, owner, { title: `${word} one`, description: 'before' });
    const b = await buildThing(t.services, owner, { title: `${word} two` });
    for (let i = 0; i < 3; i++) await search(`query=${word}`);
    const tipped = await t.app.inject({ method: 'POST', url: `${API}/things/${b}/tip`, headers: bearer(tipper.token) });
    expect(tipped.statusCode, tipped.body).toBe(200);
    expect((await search(`query=${word}`)).things.find((x) => x.id === b)?.tips).toBe(1);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `${API}/things/${a}`,
      headers: bearer(owner.token),
      payload: { description: 'after' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const body = json<{ things: { id: number; description: string }[] }>(
      await t.app.inject({ url: `${API}/things/search?query=${word}` }),
    );
    expect(body.things.find((x) => x.id === a)?.description).toBe('after');
  });

  it("with full, an owner's profile change shows in the next search (full answers are not kept rendered)", async () => {
    const word = freshWord();
    const profiled = await buildUser(t.services);
    await buildThing(t.services, profiled, { title: `${word} profiled` });
    const cityOf = async () =>
      json<{ things: { owner: { city: string } }[] }>(
        await t.app.inject({ url: `${API}/things/search?query=${word}&full=1` }),
      ).things[0]!.owner.city;
    for (let i = 0; i < 3; i++) expect(await cityOf()).toBe('');
    await updateProfile(t.services, profiled.user.id, parseProfile({ city: 'Lyon' }));
    expect(await cityOf()).toBe('Lyon');
  });

  it('each app follows the commits of its own database: writes to another database in the same process leave its cached results alone', async () => {
    const elsewhere = await buildTestApp(engine, {
      clock,
      env: { SEARCH_CACHE_SECONDS: String(MAX_AGE), METRICS_TOKEN },
    });
    try {
      const word = freshWord();
      const a = await buildThing(t.services, owner, { title: `${word} here` });
      expect((await search(`query=${word}`)).ids).toEqual([a]);
      const before = await cacheCounts();
      // A thing, a tip and an edit on the other database.
      const user = await buildUser(elsewhere.services);
      const tipperThere = await buildUser(elsewhere.services);
      const b = await buildThing(elsewhere.services, user, { title: `${word} there` });
      const tipped = await elsewhere.app.inject({
        method: 'POST',
        url: `${API}/things/${b}/tip`,
        headers: bearer(tipperThere.token),
      });
      expect(tipped.statusCode, tipped.body).toBe(200);
      expect((await search(`query=${word}`)).ids).toEqual([a]);
      const after = await cacheCounts();
      expect(after.hits - before.hits).toBe(1);
      expect(after.misses - before.misses).toBe(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('SEARCH_CACHE_SECONDS=0 turns the cache off: no cache counts, every search sees the database', async () => {
    const off = await buildTestApp(engine, { clock, env: { SEARCH_CACHE_SECONDS: '0', METRICS_TOKEN } });
    try {
      const user = await buildUser(off.services);
      const word = freshWord();
      await buildThing(off.services, user, { title: `${word} one` });
      const first = await off.app.inject({ url: `${API}/things/search?query=${word}` });
      expect(json(first).total_items).toBe(1);
      await sql`update things set title = ${'renamed'} where title = ${`${word} one`}`.execute(off.db.database.db);
      const second = await off.app.inject({ url: `${API}/things/search?query=${word}` });
      expect(json(second).total_items).toBe(0);
      const metrics = await off.app.inject({ url: '/metrics', headers: bearer(METRICS_TOKEN) });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toContain('tipjar_http_request_duration_seconds');
      expect(metrics.body).not.toContain('tipjar_search_cache_requests_total');
    } finally {
      await off.close();
    }
  });
});
