/**
 * PostgreSQL: table `thing_search`, what a search reads of a thing, apart from the counters every
 * tip updates (repositories/search.ts; docs/adr/0036). One row per thing (`id` = things.id) with
 * `search_vector` (copied from things, where 0002_search's trigger computes it), the filtered
 * columns (`deleted_at`, `hidden`, `owner_user_id`, `category`, `language`, `url_key`) and
 * `tag_keys`, the thing's rows of thing_tags (lower-cased tags, sorted) as an array, so that a
 * tag expression is a condition on the row itself. A row trigger on things keeps it in step: on
 * insert and on updates of the columns it copies or derives from (`tags` among them: thing_tags is
 * written only with them, db/repositories/things.ts), deferred to the writing transaction's
 * commit, once its thing_tags rows are written too; on delete at once. Tips update only things'
 * counters, so the pages of thing_search stay clean and small (≈ a third of things) and a
 * search's count reads them from the buffer cache.
 *
 * The full-text indexes move here: the GIN index `things_search` and, where 0011_search_ranked
 * created it, the RUM index `things_search_ranked` (same names: repositories/search.ts looks for
 * the latter by name); a GIN index over `tag_keys`, and indexes for the url and owner filters.
 * SQLite: nothing (its FTS5 tables already hold what a search reads).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';
import { RANKED_INDEX } from './0011_search_ranked.ts';

/** The columns of things whose change the search table follows. */
const FOLLOWED =
  'title, description, tags, url, search_vector, url_key, category, language, hidden, deleted_at, owner_user_id';

export function makeSearchTable(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine !== 'postgres') return;
      await sql`create table thing_search (
        id bigint primary key,
        search_vector tsvector,
        tag_keys text[] not null,
        deleted_at bigint,
        hidden integer not null,
        owner_user_id bigint,
        category text not null,
        language text not null,
        url_key text not null
      )`.execute(db);
      // Run at commit (deferred), when the thing's thing_tags rows — written after its row — are
      // there too; it reads the thing as committed, so several writes of one transaction agree.
      await sql`create function thing_search_follow() returns trigger language plpgsql as $$
        begin
          if tg_op = 'DELETE' then
            delete from thing_search where id = old.id;
            return null;
          end if;
          insert into thing_search (id, search_vector, tag_keys, deleted_at, hidden, owner_user_id, category, language, url_key)
            select t.id, t.search_vector,
              coalesce((select array_agg(tt.tag order by tt.tag) from thing_tags as tt where tt.thing_id = t.id), '{}'),
              t.deleted_at, t.hidden, t.owner_user_id, t.category, t.language, t.url_key
            from things as t where t.id = new.id
            on conflict (id) do update set search_vector = excluded.search_vector, tag_keys = excluded.tag_keys,
              deleted_at = excluded.deleted_at, hidden = excluded.hidden, owner_user_id = excluded.owner_user_id,
              category = excluded.category, language = excluded.language, url_key = excluded.url_key;
          return null;
        end
        $$`.execute(db);
      await sql
        .raw(
          `create constraint trigger things_search_table after insert or update of ${FOLLOWED} on things
           deferrable initially deferred for each row execute function thing_search_follow()`,
        )
        .execute(db);
      await sql`create trigger things_search_table_delete after delete on things
        for each row execute function thing_search_follow()`.execute(db);
      await sql`insert into thing_search (id, search_vector, tag_keys, deleted_at, hidden, owner_user_id, category, language, url_key)
        select t.id, t.search_vector,
          coalesce((select array_agg(tt.tag order by tt.tag) from thing_tags as tt where tt.thing_id = t.id), '{}'),
          t.deleted_at, t.hidden, t.owner_user_id, t.category, t.language, t.url_key
        from things as t`.execute(db);

      // The full-text indexes follow the vectors; the ranked one keeps its operator class's schema.
      const { rows } = await sql<{ schema: string }>`select n.nspname as schema
        from pg_extension e join pg_namespace n on n.oid = e.extnamespace
        where e.extname = 'rum' and exists (
          select 1 from pg_indexes where schemaname = current_schema() and indexname = ${RANKED_INDEX})`.execute(db);
      await sql`drop index things_search`.execute(db);
      await sql`create index things_search on thing_search using gin (search_vector) with (fastupdate = off)`.execute(
        db,
      );
      if (rows[0]) {
        await sql`drop index ${sql.id(RANKED_INDEX)}`.execute(db);
        await sql`create index ${sql.id(RANKED_INDEX)} on thing_search
          using rum (search_vector ${sql.id(rows[0].schema, 'rum_tsvector_ops')})
          where deleted_at is null and hidden = 0`.execute(db);
      }
      await sql`create index thing_search_tags on thing_search using gin (tag_keys) with (fastupdate = off)`.execute(
        db,
      );
      await sql`create index thing_search_url on thing_search (url_key) where deleted_at is null`.execute(db);
      await sql`create index thing_search_owner on thing_search (owner_user_id, id)`.execute(db);
    },
  };
}
