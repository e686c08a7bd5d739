/**
 * PostgreSQL's full-text index keeps no pending list (migration 0006_search_index_direct): things
 * registered after the migration are in the GIN index itself at once, so no search has to scan a
 * list of pending entries. Runs only with TEST_DATABASE_URL (SQLite's FTS5 has no such list).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';

describe.skipIf(!ENGINES.includes('postgres'))('PostgreSQL full-text index', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('is built with fastupdate off', async () => {
    const r = await sql<{ options: string[] | null }>`select c.reloptions as options from pg_class c
      join pg_namespace n on n.oid = c.relnamespace where c.relname = 'things_search' and n.nspname = current_schema()`.execute(
      t.database.db,
    );
    expect(r.rows[0]?.options).toContain('fastupdate=off');
  });

  it('leaves nothing pending after things are registered: gin_clean_pending_list finds no page to merge', async () => {
    await t.database.db
      .insertInto('things')
      .values(
        Array.from({ length: 200 }, (_, i) => ({
          url: `https://example.com/pending/${i}`,
          url_key: `example.com/pending/${i}`,
          title: `pending entry ${i} zebra`,
          description: 'words to index',
          category: 'software',
          language: 'en',
          tags: 'pending',
          owner_user_id: null,
          owner_identity: 'pending-owner',
          last_tip_at: null,
          deleted_at: null,
          created_at: 1,
          updated_at: 1,
        })),
      )
      .execute();
    const found = await sql<{
      n: string;
    }>`select count(*) as n from things where search_vector @@ plainto_tsquery('english', 'zebra')`.execute(
      t.database.db,
    );
    expect(Number(found.rows[0]!.n)).toBe(200);
    const pending = await sql<{
      pages: string;
    }>`select gin_clean_pending_list('things_search'::regclass) as pages`.execute(t.database.db);
    expect(Number(pending.rows[0]!.pages)).toBe(0);
  });
});
