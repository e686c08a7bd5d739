/**
 * Full-text search over things (issue 3, `GET /things/search`; DECISIONS.md "Search": `query`
 * searches title, description, tags and url). One index per engine, kept in step with `things`
 * by the database itself, so every writer (API, auto-submit, the bulk importer) is covered:
 *
 * - SQLite: `things_fts`, an external-content FTS5 table over things (columns title, description,
 *   tags, url; rowid = things.id; Porter stemming over unicode61 without diacritics), maintained by
 *   three triggers. The update trigger fires only when one of the indexed columns is assigned, so
 *   tips (which update `things.tips` on every tip) never touch the index. Ranked with bm25().
 * - PostgreSQL: a `search_vector tsvector` column on things (title weight A, tags B, description
 *   C, the url's words D; all with the `english` configuration, like Porter stemming on SQLite),
 *   set by a BEFORE trigger on insert and on updates of the indexed columns, with a GIN index.
 *   Ranked with ts_rank().
 *
 * Rows that already exist (an imported catalogue) are indexed when the migration runs.
 * Hidden and deleted things stay in the index; the search query filters them out.
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

/** The tsvector of one thing on PostgreSQL (used by the trigger and by the backfill). */
const PG_DOCUMENT_FUNCTION = sql`
create or replace function things_search_document(title text, description text, tags text, url text)
returns tsvector language sql immutable parallel safe as $$
  select setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
      || setweight(to_tsvector('english'::regconfig, replace(coalesce(tags, ''), ',', ' ')), 'B')
      || setweight(to_tsvector('english'::regconfig, coalesce(description, '')), 'C')
      || setweight(to_tsvector('english'::regconfig, regexp_replace(coalesce(url, ''), '[^[:alnum:]]+', ' ', 'g')), 'D')
$$`;

const PG_TRIGGER_FUNCTION = sql`
create or replace function things_search_vector_update() returns trigger language plpgsql as $$
begin
  new.search_vector := things_search_document(new.title, new.description, new.tags, new.url);
  return new;
end
$$`;

export function makeSearch(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine === 'sqlite') {
        await sql`create virtual table things_fts using fts5(
            title, description, tags, url,
            content = 'things', content_rowid = 'id',
            tokenize = 'porter unicode61 remove_diacritics 2')`.execute(db);
        await sql`create trigger things_fts_insert after insert on things begin
            insert into things_fts(rowid, title, description, tags, url)
            values (new.id, new.title, new.description, new.tags, new.url);
          end`.execute(db);
        await sql`create trigger things_fts_delete after delete on things begin
            insert into things_fts(things_fts, rowid, title, description, tags, url)
            values ('delete', old.id, old.title, old.description, old.tags, old.url);
          end`.execute(db);
        await sql`create trigger things_fts_update after update of title, description, tags, url on things begin
            insert into things_fts(things_fts, rowid, title, description, tags, url)
            values ('delete', old.id, old.title, old.description, old.tags, old.url);
            insert into things_fts(rowid, title, description, tags, url)
            values (new.id, new.title, new.description, new.tags, new.url);
          end`.execute(db);
        // Index the rows that are already there.
        await sql`insert into things_fts(things_fts) values ('rebuild')`.execute(db);
        return;
      }
      await sql`alter table things add column search_vector tsvector`.execute(db);
      await PG_DOCUMENT_FUNCTION.execute(db);
      await PG_TRIGGER_FUNCTION.execute(db);
      await sql`create trigger things_search_vector
          before insert or update of title, description, tags, url on things
          for each row execute function things_search_vector_update()`.execute(db);
      // Index the rows that are already there, then build the index in one pass.
      await sql`update things set search_vector = things_search_document(title, description, tags, url)`.execute(db);
      await sql`create index things_search on things using gin (search_vector)`.execute(db);
    },
  };
}
