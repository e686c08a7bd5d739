/**
 * PostgreSQL: a ranked full-text index, so that a search by relevance reads its first page in rank
 * order from the index instead of scoring every match (a broad word matches a tenth of the
 * catalogue). When the RUM extension (Debian: postgresql-<version>-rum) is installed on the server
 * — or can be created here, which needs a superuser, since RUM is not a trusted extension — this
 * creates `things_search_ranked`, a RUM index (`rum_tsvector_ops`: lexemes with their positions
 * and weights) over the visible things (not hidden, not deleted); repositories/search.ts uses it
 * when it is there (searchRanking). Without RUM nothing is created and searches rank with
 * ts_rank over the GIN index of 0002_search, as before. Installing RUM later and running
 * `tipjar migrate` does not add the index (this migration ran already): an operator creates it by
 * hand (docs/operations.md). The extension goes into schema `public` (or stays where it is), so
 * that it outlives any one application schema.
 * SQLite: nothing (FTS5's bm25 ranks inside its own index).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

/** The name of the ranked index (repositories/search.ts looks for it). */
export const RANKED_INDEX = 'things_search_ranked';

export function makeSearchRanked(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine !== 'postgres') return;
      const { rows } = await sql<{ installed: string | null; available: boolean; superuser: boolean }>`select
          (select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'rum') as installed,
          exists (select 1 from pg_available_extensions where name = 'rum') as available,
          (select rolsuper from pg_roles where rolname = current_user) as superuser`.execute(db);
      const r = rows[0]!;
      let schema = r.installed;
      if (schema === null) {
        // A failed CREATE EXTENSION would abort the migrations' transaction: only try what can succeed.
        if (!r.available || !r.superuser) return;
        await sql`create extension if not exists rum schema public`.execute(db);
        schema = 'public';
      }
      await sql`create index ${sql.id(RANKED_INDEX)} on things
        using rum (search_vector ${sql.id(schema, 'rum_tsvector_ops')})
        where deleted_at is null and hidden = 0`.execute(db);
    },
  };
}
