/**
 * PostgreSQL: slimmer `things` rows, and room in their pages for the new row version a tip writes
 * (docs/adr/0044).
 * - A thing's search vector is kept only in `thing_search`, no longer also in
 *   `things.search_vector`. The row trigger that copies a thing into the search table computes the
 *   vector from the thing's searched columns (`things_search_document`), and the word-count
 *   triggers of 0013_search_word_counts compute the vectors of the rows they count the same way,
 *   so the counts are unchanged. A `things` row gets ≈ 40 % smaller.
 * - `things` pages are filled to THINGS_FILLFACTOR % by inserts: a tip's update of its thing's
 *   counters (no indexed column) then finds room on the row's own page and is a heap-only update,
 *   which writes no index entry.
 * Both apply to rows as they are written; rows written before keep the dropped column's bytes and
 * full pages until then. `VACUUM FULL things` rewrites them all at once (it locks the table while
 * it runs: docs/operations.md).
 * SQLite: nothing (FTS5 holds its own index; SQLite updates rows in place).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

/** Percent of each `things` page that inserts fill (PostgreSQL's `fillfactor`; its default is 100). */
export const THINGS_FILLFACTOR = 85;

/** The vector of a row `r` of things (or of a transition table of things), as 0002_search defines it. */
const DOCUMENT = (r: string) => `things_search_document(${r}.title, ${r}.description, ${r}.tags, ${r}.url)`;

/** The columns of things whose change the search table follows (0016_search_table's, but the vector). */
const FOLLOWED = 'title, description, tags, url, url_key, category, language, hidden, deleted_at, owner_user_id';

export function makeSearchVectorInSearchTableOnly(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine !== 'postgres') return;
      await sql
        .raw(
          `create or replace function thing_search_follow() returns trigger language plpgsql as $$
            begin
              if tg_op = 'DELETE' then
                delete from thing_search where id = old.id;
                return null;
              end if;
              insert into thing_search (id, search_vector, tag_keys, deleted_at, hidden, owner_user_id, category, language, url_key)
                select t.id, ${DOCUMENT('t')},
                  coalesce((select array_agg(tt.tag order by tt.tag) from thing_tags as tt where tt.thing_id = t.id), '{}'),
                  t.deleted_at, t.hidden, t.owner_user_id, t.category, t.language, t.url_key
                from things as t where t.id = new.id
                on conflict (id) do update set search_vector = excluded.search_vector, tag_keys = excluded.tag_keys,
                  deleted_at = excluded.deleted_at, hidden = excluded.hidden, owner_user_id = excluded.owner_user_id,
                  category = excluded.category, language = excluded.language, url_key = excluded.url_key;
              return null;
            end
            $$`,
        )
        .execute(db);
      await sql`drop trigger things_search_table on things`.execute(db);
      await sql
        .raw(
          `create constraint trigger things_search_table after insert or update of ${FOLLOWED} on things
           deferrable initially deferred for each row execute function thing_search_follow()`,
        )
        .execute(db);

      // The word counts: the same sums as before, of vectors computed from the rows.
      const upsert = (rows: string, sign: string) =>
        `insert into search_word_counts as c (word, things)
          select w, ${sign} * count(*) from ${rows} as r, unnest(tsvector_to_array(${DOCUMENT('r')})) as w
          where r.deleted_at is null and r.hidden = 0 group by w order by w
          on conflict (word) do update set things = c.things + excluded.things`;
      await sql
        .raw(
          `create or replace function search_word_counts_inserted() returns trigger language plpgsql as $$
            begin ${upsert('new_rows', '1')}; return null; end $$`,
        )
        .execute(db);
      await sql
        .raw(
          `create or replace function search_word_counts_deleted() returns trigger language plpgsql as $$
            begin ${upsert('old_rows', '-1')}; return null; end $$`,
        )
        .execute(db);
      await sql
        .raw(
          `create or replace function search_word_counts_updated() returns trigger language plpgsql as $$
            declare
              was_visible boolean := old.deleted_at is null and old.hidden = 0;
              is_visible boolean := new.deleted_at is null and new.hidden = 0;
              old_vector tsvector := case when was_visible then ${DOCUMENT('old')} end;
              new_vector tsvector := case when is_visible then ${DOCUMENT('new')} end;
            begin
              if was_visible and is_visible and old_vector = new_vector then
                return null;
              end if;
              insert into search_word_counts as c (word, things)
              select w, sum(d) from (
                select w, -1 as d from unnest(tsvector_to_array(old_vector)) as w where was_visible
                union all
                select w, 1 as d from unnest(tsvector_to_array(new_vector)) as w where is_visible
              ) as changes group by w having sum(d) <> 0 order by w
              on conflict (word) do update set things = c.things + excluded.things;
              return null;
            end
            $$`,
        )
        .execute(db);

      await sql`drop trigger things_search_vector on things`.execute(db);
      await sql`drop function things_search_vector_update()`.execute(db);
      await sql`alter table things drop column search_vector`.execute(db);
      await sql.raw(`alter table things set (fillfactor = ${THINGS_FILLFACTOR})`).execute(db);
    },
  };
}
