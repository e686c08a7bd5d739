/**
 * The search result cache kept across restarts (db/repositories/search-snapshots.ts; docs/adr/0033):
 * - both engines: table `search_snapshots`, one row (`id` = 1) holding the last snapshot a closing
 *   server wrote — the format it was written in (`format`), the value of the counter of
 *   `search_changes` it is valid for (`things`), when it was written (`saved_at`, Unix seconds)
 *   and its entries (`entries`, JSON text);
 * - SQLite: the counter itself, which PostgreSQL has had since 0012_search_changes. Table
 *   `search_changes` holds one row whose `things` moves by one for every row that a statement
 *   inserts or deletes in `things`, or updates in one of its searched or filtered columns (title,
 *   description, tags, url, category, language, hidden, deleted_at, owner) — row-level triggers
 *   inside the writing transaction, so every writer is counted (the server, `tipjar import things`,
 *   any other process). Tips, which update only the counters, never move it.
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

/** The columns of `things` whose change can change what a search matches (as in 0012_search_changes). */
const MATCHED_COLUMNS =
  'title, description, tags, url, category, language, hidden, deleted_at, owner_user_id, owner_identity';

export function makeSearchSnapshots(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create table search_snapshots (
        id integer primary key check (id = 1),
        format text not null,
        things bigint not null,
        saved_at bigint not null,
        entries text not null
      )`.execute(db);
      if (engine !== 'sqlite') return;
      await sql`create table search_changes (id integer primary key check (id = 1), things integer not null)`.execute(
        db,
      );
      await sql`insert into search_changes (id, things) values (1, 0)`.execute(db);
      const bump = 'update search_changes set things = things + 1 where id = 1;';
      await sql.raw(`create trigger things_search_changes_insert after insert on things begin ${bump} end`).execute(db);
      await sql.raw(`create trigger things_search_changes_delete after delete on things begin ${bump} end`).execute(db);
      await sql
        .raw(
          `create trigger things_search_changes_update after update of ${MATCHED_COLUMNS} on things begin ${bump} end`,
        )
        .execute(db);
    },
  };
}
