/**
 * PostgreSQL: the full-text index `things_search` (GIN, migration 0002_search) without a pending
 * list (`fastupdate = off`). With the default `fastupdate = on`, new index entries first go to an
 * unsorted pending list that every search scans whole until autovacuum (or a list past
 * `gin_pending_list_limit`, 4 MB) merges it: after the benchmark's import of ≈ 197k things, a
 * search for a word of 16 things took 4.4 ms instead of 0.27 ms. PostgreSQL's documentation advises
 * turning it off "if consistently-fast response times are more important than update speed" —
 * here a thing is written once and searched many times; tips never touch the index (the trigger
 * fires only on the indexed columns). The entries already pending are merged now.
 * SQLite: nothing (its FTS5 tables have no such list).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

export function makeSearchIndexDirect(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine !== 'postgres') return;
      await sql`alter index things_search set (fastupdate = off)`.execute(db);
      await sql`select gin_clean_pending_list('things_search'::regclass)`.execute(db);
    },
  };
}
