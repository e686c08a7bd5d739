/**
 * PostgreSQL's `things` rows (migration 0019_search_vector_in_search_table_only): they hold no
 * search vector (the search table does), and their pages keep room for the row version a tip
 * writes, so a tip's update of its thing's counters stays on the row's page — a heap-only update,
 * which writes no index entry. Runs only with TEST_DATABASE_URL (SQLite updates rows in place).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { THINGS_FILLFACTOR } from '../../src/db/migrations/0019_search_vector_in_search_table_only.ts';

describe.skipIf(!ENGINES.includes('postgres'))('PostgreSQL things rows', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('postgres');
    // More things than the first pages hold, all inserted at once: inserts fill each page to the
    // fill factor before they go on to the next.
    await t.database.db
      .insertInto('things')
      .values(
        Array.from({ length: 300 }, (_, i) => ({
          url: `https://example.com/storage/${i}`,
          url_key: `example.com/storage/${i}`,
          title: `storage thing ${i} with a title of ordinary length`,
          description: 'A description of the length most things have, a sentence or two about what it is.',
          category: 'software',
          language: 'en',
          tags: 'storage,pages,rows',
          owner_user_id: null,
          owner_identity: 'storage-owner',
          last_tip_at: null,
          deleted_at: null,
          created_at: 1,
          updated_at: 1,
        })),
      )
      .execute();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('keeps search vectors in the search table only', async () => {
    const columns = await sql<{ table: string }>`select table_name as table from information_schema.columns
      where table_schema = current_schema() and column_name = 'search_vector'`.execute(t.database.db);
    expect(columns.rows.map((r) => r.table)).toEqual(['thing_search']);
  });

  it('fills pages to the fill factor, and a tip updates its thing on the same page, every time', async () => {
    const db = t.database.db;
    const options = await sql<{ options: string[] | null }>`select reloptions as options from pg_class
      where oid = 'things'::regclass`.execute(db);
    expect(options.rows[0]?.options).toContain(`fillfactor=${THINGS_FILLFACTOR}`);
    const place = async (id: number) =>
      (await sql<{ page: number }>`select (ctid::text::point)[0]::int as page from things where id = ${id}`.execute(db))
        .rows[0]!.page;
    // The last thing of the first page: its page is as full as inserts make it.
    const first = await sql<{ id: string }>`select id from things where (ctid::text::point)[0] = 0
      order by (ctid::text::point)[1] desc limit 1`.execute(db);
    const id = Number(first.rows[0]!.id);
    const later = await sql<{ n: string }>`select count(*) as n from things where (ctid::text::point)[0] > 0`.execute(
      db,
    );
    expect(Number(later.rows[0]!.n)).toBeGreaterThan(0);
    for (let tip = 1; tip <= 3; tip++) {
      // What a tip writes to its thing (db/migrations/0015_tips_at_once.ts): the counters only.
      await sql`update things set tips = tips + 1, last_tip_at = ${tip}, tips_user_count = tips_user_count + 1
        where id = ${id}`.execute(db);
      expect(await place(id), `tip ${tip}`).toBe(0);
    }
  });
});
