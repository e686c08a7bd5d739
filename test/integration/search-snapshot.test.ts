/**
 * The search result cache kept across restarts (src/domain/search/snapshot.ts, docs/adr/0033), on
 * every engine: a server started with `keepSearchResults` (`tipjar serve`) answers from the cache
 * the popular relevance searches the server before it kept when it closed — only while no write
 * that can change what a search matches has committed since (the database's own counter,
 * `search_changes`, moved by every writer: another process, the import command, a server). Tips do
 * not move it; tip sorts and per-viewer searches are never kept; apps without the flag keep nothing.
 */
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import type { Services } from '../../src/domain/services.ts';
import { tipThing } from '../../src/domain/tips.ts';
import type { ThingId } from '../../src/domain/records.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { readSearchChanges } from '../../src/db/repositories/search.ts';
import { bearer, PUBLIC_URL } from '../helpers/app.ts';
import { searchCacheCounts, searchThings } from '../helpers/search.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { buildThing, buildUser, principalOf, uniqueName, type TestUser } from '../helpers/factories.ts';

const NOW = Date.UTC(2026, 5, 10, 12) / 1000;
const METRICS_TOKEN = 'search-snapshot-metrics-token-0123456789abcdef';

describe.each(ENGINES)('search results kept across restarts on %s', (engine) => {
  let db: TestDatabase;
  let s: Services;
  let owner: TestUser;
  const clock = fixedClock(NOW);
  const open: FastifyInstance[] = [];

  beforeEach(async () => {
    db = await createTestDatabase(engine);
    s = { database: db.database, clock, siteUrl: 'http://tipjar.test', passwordHashing: unboundedHashing };
    owner = await buildUser(s);
  });
  afterEach(async () => {
    for (const app of open.splice(0)) await app.close();
    await db.drop();
  });

  /** A server's app on the test database, as `tipjar serve` builds it (or, with `keep` false, as tests and commands do). */
  const start = async (keep = true) => {
    const config = loadConfig({
      PUBLIC_URL,
      LOG_LEVEL: 'silent',
      DATABASE_URL: db.url,
      DISCOVERY: 'off',
      METRICS_TOKEN,
    });
    const app = await buildApp({ config, database: db.database, clock, keepSearchResults: keep });
    await app.ready();
    open.push(app);
    return app;
  };
  const stop = async (app: FastifyInstance) => {
    open.splice(open.indexOf(app), 1);
    await app.close();
  };
  const search = searchThings;
  const cacheCounts = (app: FastifyInstance) => searchCacheCounts(app, METRICS_TOKEN);
  const word = () => uniqueName('kq').replace(/[^a-z0-9]/g, '');
  /** Asks `query` twice, so that the cache counts it as popular (its protected segment). */
  const askTwice = async (app: FastifyInstance, query: string, headers: Record<string, string> = {}) => {
    const first = await search(app, query, headers);
    expect(await search(app, query, headers)).toEqual(first);
    return first;
  };

  it('a relevance search asked twice before a restart is answered from the cache after it, with the same page', async () => {
    const w = word();
    await buildThing(s, owner, { title: `${w} one` });
    await buildThing(s, owner, { title: `${w} two ${w}` });
    const a = await start();
    const before = await askTwice(a, `query=${w}`);
    expect(before.total).toBe(2);
    await stop(a);

    const b = await start();
    expect(b.searchResultsRestored).toBe(1);
    const counts = await cacheCounts(b);
    expect(await search(b, `query=${w}`)).toEqual(before);
    const after = await cacheCounts(b);
    expect(after.hits - counts.hits).toBe(1);
    expect(after.misses - counts.misses).toBe(0);
  });

  it('tip sorts, per-viewer searches and searches asked once are not kept', async () => {
    const w = word();
    await buildThing(s, owner, { title: `${w} thing` });
    const a = await start();
    await askTwice(a, `query=${w}&sort=tips`);
    await askTwice(a, `query=${w}&sort=trend`);
    await askTwice(a, `query=${w}&category=software`, bearer(owner.token));
    await search(a, `query=${w}&language=en_GB`);
    await stop(a);

    const b = await start();
    expect(b.searchResultsRestored).toBe(0);
  });

  it('a thing written while no server ran, by another connection, makes the kept results stale', async () => {
    const w = word();
    const first = await buildThing(s, owner, { title: `${w} first` });
    const a = await start();
    expect((await askTwice(a, `query=${w}`)).ids).toEqual([first]);
    await stop(a);

    // Another process (the import command, another instance) adds a matching thing.
    const other = await openDatabase(db.url);
    try {
      const s2: Services = { ...s, database: other };
      await buildThing(s2, owner, { title: `${w} second` });
    } finally {
      await other.close();
    }
    const b = await start();
    expect(b.searchResultsRestored).toBe(0);
    expect((await search(b, `query=${w}`)).total).toBe(2);
  });

  it('an edit, hiding or deletion while no server ran makes them stale; a tip does not', async () => {
    const w = word();
    const thing = await buildThing(s, owner, { title: `${w} edited` });
    const tipper = await buildUser(s);
    const writes: [string, () => Promise<unknown>, boolean][] = [
      ['a tip', () => tipThing(s, principalOf(tipper.user), thing as ThingId), true],
      [
        'an edit of the title',
        () =>
          db.database.db
            .updateTable('things')
            .set({ title: `${w} renamed` })
            .where('id', '=', thing)
            .execute(),
        false,
      ],
      [
        'hiding',
        () => db.database.db.updateTable('things').set({ hidden: 1 }).where('id', '=', thing).execute(),
        false,
      ],
      [
        'a deletion',
        () => db.database.db.updateTable('things').set({ deleted_at: NOW }).where('id', '=', thing).execute(),
        false,
      ],
    ];
    for (const [what, write, kept] of writes) {
      const a = await start();
      await askTwice(a, `query=${w}`);
      await stop(a);
      const counter = await readSearchChanges(db.database);
      await write();
      expect((await readSearchChanges(db.database)) === counter, `${what} moves the counter`).toBe(kept);
      const b = await start();
      expect(b.searchResultsRestored, what).toBe(kept ? 1 : 0);
      await stop(b);
    }
  });

  it('a snapshot written in another format is not used', async () => {
    const w = word();
    await buildThing(s, owner, { title: `${w} thing` });
    const a = await start();
    await askTwice(a, `query=${w}`);
    await stop(a);
    await sql`update search_snapshots set format = 'search-results/0 0014_search_snapshots'`.execute(db.database.db);
    const b = await start();
    expect(b.searchResultsRestored).toBe(0);
  });

  it('an app built without keepSearchResults (tests, commands) writes nothing', async () => {
    const w = word();
    await buildThing(s, owner, { title: `${w} thing` });
    const a = await start(false);
    await askTwice(a, `query=${w}`);
    await stop(a);
    const rows = await sql<{ n: number }>`select count(*) as n from search_snapshots`.execute(db.database.db);
    expect(Number(rows.rows[0]!.n)).toBe(0);
  });
});
