/**
 * PostgreSQL: a counter of the writes that can change what a search matches, kept by the database
 * itself, so that every instance's search cache sees every instance's writes (db/repositories/
 * search.ts readSearchChanges; docs/adr/0015). Table `search_changes` holds one row whose
 * `things` moves by one in every statement that inserts, deletes or updates a thing's searched
 * or filtered columns (title, description, tags, url, category, language, hidden, deleted_at,
 * owner) — a statement-level trigger, inside the writing transaction, so the new value is seen
 * exactly when the write is. Tips (which update only the counters) never move it. Writes of things
 * queue on the row until they commit; tips, the frequent writes, do not touch it.
 * SQLite: nothing (it sees every change through `PRAGMA data_version`).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

export function makeSearchChanges(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine !== 'postgres') return;
      await sql`create table search_changes (id integer primary key check (id = 1), things bigint not null)`.execute(
        db,
      );
      await sql`insert into search_changes (id, things) values (1, 0)`.execute(db);
      await sql`create function search_changes_things() returns trigger language plpgsql as $$
        begin
          update search_changes set things = things + 1 where id = 1;
          return null;
        end
        $$`.execute(db);
      await sql`create trigger things_search_changes
        after insert or delete or update of title, description, tags, url, category, language, hidden, deleted_at,
          owner_user_id, owner_identity
        on things for each statement execute function search_changes_things()`.execute(db);
    },
  };
}
