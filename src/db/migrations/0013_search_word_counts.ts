/**
 * PostgreSQL: how many visible things (not hidden, not deleted) hold each word of the full-text
 * index, so that the total of a one-word search without filters is one row to read, not a count
 * of every match (a broad word matches a tenth of the catalogue, and counting it read every one
 * of their rows: db/repositories/search.ts countMatches). Table `search_word_counts` (`word`: a
 * lexeme of `things.search_vector`, `things`: the number of visible things whose vector holds it)
 * is kept by the database itself, in the writing transaction, so every writer is covered:
 * - new things: a statement-level trigger adds the lexemes of the statement's visible new rows,
 *   summed per word (a batch of an import is one upsert per word, not one per thing and word);
 * - deleted rows: likewise, subtracted;
 * - updates of a searched column or of `hidden` / `deleted_at` (a row-level trigger, since a
 *   statement-level one with the old and new rows cannot name columns and would run for every
 *   tip): the words the row had while visible are subtracted, those it has now while visible added.
 * Words are locked in word order in every trigger, so concurrent writers queue rather than
 * deadlock. Existing things are counted when the migration runs.
 * SQLite: nothing (FTS5 counts inside its own index).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

export function makeSearchWordCounts(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine !== 'postgres') return;
      await sql`create table search_word_counts (word text primary key, things bigint not null)`.execute(db);
      // The words of the visible rows of a relation, counted, upserted in word order (`sign` 1 or -1).
      const upsert = (rows: string, sign: string) =>
        `insert into search_word_counts as c (word, things)
          select w, ${sign} * count(*) from ${rows} as r, unnest(tsvector_to_array(r.search_vector)) as w
          where r.deleted_at is null and r.hidden = 0 group by w order by w
          on conflict (word) do update set things = c.things + excluded.things`;
      await sql
        .raw(
          `create function search_word_counts_inserted() returns trigger language plpgsql as $$
            begin ${upsert('new_rows', '1')}; return null; end $$`,
        )
        .execute(db);
      await sql
        .raw(
          `create function search_word_counts_deleted() returns trigger language plpgsql as $$
            begin ${upsert('old_rows', '-1')}; return null; end $$`,
        )
        .execute(db);
      await sql`create function search_word_counts_updated() returns trigger language plpgsql as $$
        declare
          was_visible boolean := old.deleted_at is null and old.hidden = 0 and old.search_vector is not null;
          is_visible boolean := new.deleted_at is null and new.hidden = 0 and new.search_vector is not null;
        begin
          if was_visible and is_visible and old.search_vector = new.search_vector then
            return null;
          end if;
          insert into search_word_counts as c (word, things)
          select w, sum(d) from (
            select w, -1 as d from unnest(tsvector_to_array(old.search_vector)) as w where was_visible
            union all
            select w, 1 as d from unnest(tsvector_to_array(new.search_vector)) as w where is_visible
          ) as changes group by w having sum(d) <> 0 order by w
          on conflict (word) do update set things = c.things + excluded.things;
          return null;
        end
        $$`.execute(db);
      await sql`create trigger things_word_counts_insert after insert on things
        referencing new table as new_rows for each statement execute function search_word_counts_inserted()`.execute(
        db,
      );
      await sql`create trigger things_word_counts_delete after delete on things
        referencing old table as old_rows for each statement execute function search_word_counts_deleted()`.execute(db);
      await sql`create trigger things_word_counts_update after update of title, description, tags, url, hidden, deleted_at
        on things for each row execute function search_word_counts_updated()`.execute(db);
      await sql.raw(upsert('things', '1')).execute(db);
    },
  };
}
