/**
 * PostgreSQL with the RUM extension: a word search by relevance reads its page in rank order from
 * the ranked index (migration 0011_search_ranked) and must answer exactly what ranking every match
 * answers — the order by RUM's distance, ties newest first, with the total — on every page, also
 * when a group of equal ranks is cut by a page's edge, is larger than what the index read reads
 * ahead, or holds the viewer's own hidden things. Runs only with TEST_DATABASE_URL and where the
 * extension is installed (.ci/run installs it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { searchThingIds, type SearchCriteria } from '../../src/db/repositories/search.ts';

describe.skipIf(!ENGINES.includes('postgres'))('ranked search on PostgreSQL', () => {
  let t: TestDatabase;
  let ranked = false;
  let viewer = 0;
  beforeAll(async () => {
    t = await createTestDatabase('postgres');
    const r = await sql<{ n: string }>`select count(*) as n from pg_indexes
      where schemaname = current_schema() and indexname = 'things_search_ranked'`.execute(t.database.db);
    ranked = Number(r.rows[0]!.n) === 1;
    const u = await t.database.db
      .insertInto('users')
      .values({ username: 'viewer', username_key: 'viewer', email: '', password_hash: null, registered_at: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    viewer = u.id;
    // Groups of equal rank: 120 identical titles (a tie group wider than the read-ahead), then
    // smaller groups by where the word stands, a few hidden things of the viewer among them.
    const rows = Array.from({ length: 420 }, (_, i) => {
      const group = i < 120 ? 0 : i < 200 ? 1 : i < 300 ? 2 : i < 380 ? 3 : 4;
      return {
        url: `https://example.com/ranked/${i}`,
        url_key: `example.com/ranked/${i}`,
        title: group === 0 ? 'zephyr kit' : group === 1 ? `zephyr zephyr ${i}` : `thing ${i}`,
        description: group === 2 ? 'a zephyr in the description' : group === 4 ? 'zephyr zephyr zephyr' : 'nothing',
        category: 'software',
        language: 'en',
        tags: group === 3 ? 'zephyr' : 'other',
        hidden: i % 37 === 0 ? 1 : 0,
        owner_user_id: i % 37 === 0 ? viewer : null,
        owner_identity: i % 37 === 0 ? null : 'ranked-owner',
        last_tip_at: null,
        deleted_at: null,
        created_at: 1,
        updated_at: 1,
      };
    });
    await t.database.db.insertInto('things').values(rows).execute();
  });
  afterAll(async () => {
    await t?.drop();
  });

  /** Every match ranked: the order the ranked search must reproduce. */
  async function everyMatch(viewerId: number | undefined): Promise<number[]> {
    const r = await sql<{ id: string }>`select id from things
      where deleted_at is null and (hidden = 0 or owner_user_id = ${viewerId ?? -1})
        and search_vector @@ plainto_tsquery('english', 'zephyr')
      order by search_vector operator(public.<=>) plainto_tsquery('english', 'zephyr'), id desc`.execute(t.database.db);
    return r.rows.map((x) => Number(x.id));
  }

  it.each([
    ['anonymous', 30, false],
    ['anonymous', 7, false],
    ['the viewer', 30, true],
  ])('answers every page as ranking every match does (%s, %i a page)', async (_who, count, asViewer) => {
    if (!ranked) return; // no RUM on this server: the ranked path is not there to test
    const viewerId = asViewer ? viewer : undefined;
    const expected = await everyMatch(viewerId);
    const pages = Math.ceil(expected.length / count) + 1;
    for (let page = 1; page <= pages; page++) {
      const c: SearchCriteria = {
        words: ['zephyr'],
        sort: 'relevance',
        now: 1_800_000_000,
        page,
        count,
        ...(viewerId !== undefined ? { viewerUserId: viewerId } : {}),
      };
      const got = await searchThingIds(t.database, c);
      expect(got.ids).toEqual(expected.slice((page - 1) * count, page * count));
      expect(got.total).toBe(expected.length);
    }
  });

  it('has the ranked index where RUM is installed', async () => {
    const r = await sql<{ n: string }>`select count(*) as n from pg_available_extensions where name = 'rum'`.execute(
      t.database.db,
    );
    expect(ranked).toBe(Number(r.rows[0]!.n) === 1);
  });
});
