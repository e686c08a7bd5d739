/**
 * PostgreSQL's full-text index keeps no pending list (migration 0006_search_index_direct): things
 * registered after the migration are in the GIN index itself at once, so no search has to scan a
 * list of pending entries. The search table (migration 0016_search_table) follows every write to
 * things: insert, edits of each copied column, tags, hiding, deletion, a change of owner — and
 * never a tip. Runs only with TEST_DATABASE_URL (SQLite's FTS5 has no such list or table).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { buildUser } from '../helpers/factories.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { parseNewThing } from '../../src/domain/thing-input.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { insertThing, softDeleteThing, updateThing } from '../../src/db/repositories/things.ts';

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
    }>`select count(*) as n from thing_search where search_vector @@ plainto_tsquery('english', 'zebra')`.execute(
      t.database.db,
    );
    expect(Number(found.rows[0]!.n)).toBe(200);
    const pending = await sql<{
      pages: string;
    }>`select gin_clean_pending_list('things_search'::regclass) as pages`.execute(t.database.db);
    expect(Number(pending.rows[0]!.pages)).toBe(0);
  });

  /** Rows of thing_search that differ from what their thing derives (none when it follows), and rows missing. */
  const drift = async () =>
    (
      await sql<{ id: string }>`select coalesce(t.id, s.id) as id from things t full join thing_search s on s.id = t.id
        where s.id is null or t.id is null
          or (things_search_document(t.title, t.description, t.tags, t.url), coalesce((select array_agg(tag order by tag) from thing_tags where thing_id = t.id), '{}'), t.deleted_at, t.hidden, t.owner_user_id, t.category, t.language, t.url_key)
             is distinct from (s.search_vector, s.tag_keys, s.deleted_at, s.hidden, s.owner_user_id, s.category, s.language, s.url_key)`.execute(
        t.database.db,
      )
    ).rows.map((r) => Number(r.id));

  it('the search table follows every write to things, and a tip does not touch it', async () => {
    const db = t.database.db;
    const owner = await buildUser({
      database: t.database,
      clock: systemClock,
      siteUrl: 'http://tipjar.test',
      passwordHashing: unboundedHashing,
    });
    const id = await inTransaction(t.database, (trx) =>
      insertThing(
        trx,
        parseNewThing({ url: 'https://example.com/follow', title: 'Follow me', tags: 'One,TWO,one' }),
        { identity: 'follow-owner' },
        1,
      ),
    );
    const row = async () =>
      (
        await sql<{ tag_keys: string[]; search_vector: string; hidden: number; deleted_at: number | null }>`select
          tag_keys, search_vector::text as search_vector, hidden, deleted_at from thing_search where id = ${id}`.execute(
          db,
        )
      ).rows[0];
    expect((await row())!.tag_keys).toEqual(['one', 'two']);
    expect(await drift()).toEqual([]);

    const changes: ((trx: typeof db) => Promise<unknown>)[] = [
      (trx) => updateThing(trx, id, { title: 'Renamed zebra' }, 2),
      (trx) => updateThing(trx, id, { description: 'other words', tags: ['Three'] }, 3),
      (trx) =>
        sql`update things set category = 'video', language = 'de', url = 'https://example.com/moved', url_key = 'example.com/moved' where id = ${id}`.execute(
          trx,
        ),
      (trx) => updateThing(trx, id, { hidden: true }, 4),
      (trx) =>
        sql`update things set owner_user_id = ${owner.user.id}, owner_identity = null where id = ${id}`.execute(trx),
    ];
    for (const change of changes) {
      await inTransaction(t.database, change);
      expect(await drift()).toEqual([]);
    }
    expect(await row()).toMatchObject({ tag_keys: ['three'], hidden: 1, deleted_at: null });
    await inTransaction(t.database, (trx) => softDeleteThing(trx, id, 5));
    expect(await drift()).toEqual([]);
    expect(await row()).toMatchObject({ tag_keys: [], hidden: 1, deleted_at: 5 });
    expect((await row())!.search_vector).toContain('zebra');

    // A tip's update of the counters leaves the row as it was (no new row version).
    const version = async () =>
      (await sql<{ v: string }>`select xmin::text as v from thing_search where id = ${id}`.execute(db)).rows[0]!.v;
    const before = await version();
    await sql`update things set tips = tips + 1, last_tip_at = 9 where id = ${id}`.execute(db);
    expect(await version()).toBe(before);

    await sql`delete from things where id = ${id}`.execute(db);
    expect(await row()).toBeUndefined();
    expect(await drift()).toEqual([]);
  });
});
