/**
 * Full-text search over things (`GET /things/search`; DECISIONS.md "Search": `query`
 * searches title, description, tags and url). The index is kept in step with `things` by the
 * database itself, so every writer (API, auto-submit, the bulk importer) is covered:
 *
 * - SQLite: two external-content FTS5 tables over things (columns title, description, tags, url;
 *   rowid = things.id; Porter stemming over unicode61 without diacritics): `things_fts` holds the
 *   visible things (not hidden, not deleted) and `things_fts_hidden` the hidden ones, so the common
 *   search (anyone's visible things) counts and ranks inside the index without reading `things`.
 *   Three triggers move a thing between them; the update trigger fires only when an indexed column,
 *   `hidden` or `deleted_at` is assigned, so tips (which update `things.tips`) never touch the
 *   index. Ranked with bm25().
 * - PostgreSQL: a `search_vector tsvector` column on things (title weight A, tags B, description
 *   C, the url's words D; all with the `english` configuration, like Porter stemming on SQLite),
 *   set by a BEFORE trigger on insert and on updates of the indexed columns, with a GIN index.
 *   Ranked with ts_rank().
 *
 * The url is indexed without its scheme and a leading `www.` (every thing has them; they would
 * make `http` or `www` match the whole catalogue). Both engines also get `things_visible`, a
 * partial index over visible things covering the search filters (id, category, language, owner),
 * for counting and newest-first paging without reading whole rows.
 *
 * Rows that already exist (an imported catalogue) are indexed when the migration runs.
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

const FTS_COLUMNS = 'title, description, tags, url';

/** The url as indexed (SQLite): without the scheme and a leading "www.". */
function sqliteUrlText(ref: string): string {
  const rest = `substr(${ref}, instr(${ref}, '://') + 3)`;
  return `(case when lower(substr(${rest}, 1, 4)) = 'www.' then substr(${rest}, 5) else ${rest} end)`;
}

/** The values a row of `ref` ('new' | 'old' | 'things') contributes to an FTS table. */
const ftsValues = (ref: string) =>
  `${ref}.id, ${ref}.title, ${ref}.description, ${ref}.tags, ${sqliteUrlText(`${ref}.url`)}`;

/** SQLite trigger statements adding (`new`) or removing (`old`) a row to/from the FTS table it belongs in. */
function sqliteFtsStatements(ref: 'new' | 'old'): string {
  const visible = `${ref}.deleted_at is null and ${ref}.hidden = 0`;
  const hidden = `${ref}.deleted_at is null and ${ref}.hidden <> 0`;
  if (ref === 'new') {
    return `insert into things_fts(rowid, ${FTS_COLUMNS}) select ${ftsValues('new')} where ${visible};
      insert into things_fts_hidden(rowid, ${FTS_COLUMNS}) select ${ftsValues('new')} where ${hidden};`;
  }
  return `insert into things_fts(things_fts, rowid, ${FTS_COLUMNS}) select 'delete', ${ftsValues('old')} where ${visible};
    insert into things_fts_hidden(things_fts_hidden, rowid, ${FTS_COLUMNS}) select 'delete', ${ftsValues('old')} where ${hidden};`;
}

/** The tsvector of one thing on PostgreSQL (used by the trigger and by the backfill). */
const PG_DOCUMENT_FUNCTION = sql`
create or replace function things_search_document(title text, description text, tags text, url text)
returns tsvector language sql immutable parallel safe as $$
  select setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
      || setweight(to_tsvector('english'::regconfig, replace(coalesce(tags, ''), ',', ' ')), 'B')
      || setweight(to_tsvector('english'::regconfig, coalesce(description, '')), 'C')
      || setweight(to_tsvector('english'::regconfig,
           regexp_replace(regexp_replace(coalesce(url, ''), '^[A-Za-z][A-Za-z0-9+.-]*://(www\\.)?', ''), '[^[:alnum:]]+', ' ', 'g')), 'D')
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
      await db.schema
        .createIndex('things_visible')
        .on('things')
        .columns(['id', 'category', 'language', 'owner_user_id'])
        .where(sql<boolean>`deleted_at is null and hidden = 0`)
        .execute();
      if (engine === 'sqlite') {
        for (const table of ['things_fts', 'things_fts_hidden']) {
          await sql
            .raw(
              `create virtual table ${table} using fts5(${FTS_COLUMNS},
                content = 'things', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2')`,
            )
            .execute(db);
        }
        await sql
          .raw(`create trigger things_fts_insert after insert on things begin ${sqliteFtsStatements('new')} end`)
          .execute(db);
        await sql
          .raw(`create trigger things_fts_delete after delete on things begin ${sqliteFtsStatements('old')} end`)
          .execute(db);
        await sql
          .raw(
            `create trigger things_fts_update after update of ${FTS_COLUMNS}, hidden, deleted_at on things begin
              ${sqliteFtsStatements('old')} ${sqliteFtsStatements('new')} end`,
          )
          .execute(db);
        // Index the rows that are already there.
        await sql
          .raw(
            `insert into things_fts(rowid, ${FTS_COLUMNS}) select ${ftsValues('things')} from things where deleted_at is null and hidden = 0`,
          )
          .execute(db);
        await sql
          .raw(
            `insert into things_fts_hidden(rowid, ${FTS_COLUMNS}) select ${ftsValues('things')} from things where deleted_at is null and hidden <> 0`,
          )
          .execute(db);
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
