/**
 * PostgreSQL's search without scoring or counting every match. The word counts (migration
 * 0013_search_word_counts) must equal a count of the visible matches of each word through inserts,
 * edits, hiding, deletion, and the total of a one-word search must be that count.
 * With the RUM extension: a word search by relevance reads its page in rank order from
 * the ranked index (migration 0011_search_ranked) and must answer exactly what ranking every match
 * answers — the order by RUM's distance, ties newest first, with the total — on every page, also
 * when a group of equal ranks is cut by a page's edge, is larger than what the index read reads
 * ahead, or holds the viewer's own hidden things. Runs only with TEST_DATABASE_URL and where the
 * extension is installed (.ci/run installs it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { RANKED_SLACK, searchThingIds, type SearchCriteria } from '../../src/db/repositories/search.ts';
import { SEARCH_VECTOR_STATISTICS } from '../../src/db/migrations/0018_search_word_statistics.ts';

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
    // Groups of equal rank: identical titles, a tie group wider than what the index read reads
    // ahead, then smaller groups by where the word stands, a few hidden things of the viewer among them.
    const wide = RANKED_SLACK + 120;
    const rows = Array.from({ length: wide + 300 }, (_, i) => {
      const group = i < wide ? 0 : i < wide + 80 ? 1 : i < wide + 180 ? 2 : i < wide + 260 ? 3 : 4;
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
    const r = await sql<{ id: string }>`select id from thing_search
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

  it('keeps the count of each word equal to its visible matches through inserts, edits, hiding and deletion, and a one-word search totals it', async () => {
    const db = t.database.db;
    const words = ['zephyr', 'kit', 'descript', 'thing', 'noth', 'quux'];
    const check = async (step: string) => {
      for (const word of words) {
        const counted = await sql<{
          n: string;
        }>`select count(*) as n from things where deleted_at is null and hidden = 0
          and things_search_document(title, description, tags, url) @@ to_tsquery('english', ${word})`.execute(db);
        const kept = await sql<{ n: string }>`select things as n from search_word_counts where word = ${word}`.execute(
          db,
        );
        const expected = Number(counted.rows[0]!.n);
        expect(Number(kept.rows[0]?.n ?? 0), `${step}: ${word}`).toBe(expected);
        const search = await searchThingIds(t.database, {
          words: [word === 'descript' ? 'description' : word === 'noth' ? 'nothing' : word],
          sort: 'relevance',
          now: 1_800_000_000,
          page: 1,
          count: 5,
        });
        expect(search.total, `${step}: search ${word}`).toBe(expected);
      }
    };
    await check('as inserted');
    const some = (await sql<{ id: string }>`select id from things order by id limit 60`.execute(db)).rows.map((r) =>
      Number(r.id),
    );
    await db.updateTable('things').set({ title: 'quux thing' }).where('id', 'in', some.slice(0, 20)).execute();
    await check('titles changed');
    await db.updateTable('things').set({ hidden: 1 }).where('id', 'in', some.slice(10, 30)).execute();
    await check('hidden');
    await db.updateTable('things').set({ hidden: 0 }).where('id', 'in', some.slice(10, 15)).execute();
    await check('shown again');
    await db.updateTable('things').set({ deleted_at: 5 }).where('id', 'in', some.slice(30, 40)).execute();
    await check('deleted');
    await db.updateTable('things').set({ tips: 3, last_tip_at: 7 }).where('id', 'in', some.slice(40, 50)).execute();
    await check('counters moved');
    await db.deleteFrom('things').where('id', 'in', some.slice(50, 60)).execute();
    await check('rows removed');
  });

  it('keeps planner statistics of the 10,000 most common lexemes of the search vectors', async () => {
    const r = await sql<{ target: number }>`select a.attstattarget as target from pg_attribute as a
      where a.attrelid = 'thing_search'::regclass and a.attname = 'search_vector'`.execute(t.database.db);
    expect(Number(r.rows[0]!.target)).toBe(SEARCH_VECTOR_STATISTICS);
  });

  it('has the ranked index where RUM is installed', async () => {
    const r = await sql<{ n: string }>`select count(*) as n from pg_available_extensions where name = 'rum'`.execute(
      t.database.db,
    );
    expect(ranked).toBe(Number(r.rows[0]!.n) === 1);
  });
});
