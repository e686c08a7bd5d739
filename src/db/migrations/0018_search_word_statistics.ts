/**
 * PostgreSQL: the planner's statistics of `thing_search.search_vector` track the 10,000 most common
 * lexemes (statistics target 1,000) instead of the default 1,000. A lexeme outside that list is
 * estimated at half the rarest tracked one's frequency: with the default, 683 of a million things
 * for a word held by 46, so a word search with a tags filter intersected the word's matches with
 * every thing holding the tag (a bitmap of the tags index, 8 ms) instead of testing the few
 * matches' rows (docs/adr/0042). The table is analysed once here, so the setting holds at once on
 * servers whose autovacuum is off; autovacuum's later analyses keep it.
 * SQLite: nothing (no planner statistics of this kind).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

/** The statistics target of the search vectors: PostgreSQL keeps ten times as many most common lexemes. */
export const SEARCH_VECTOR_STATISTICS = 1000;

export function makeSearchWordStatistics(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine !== 'postgres') return;
      await sql
        .raw(`alter table thing_search alter column search_vector set statistics ${SEARCH_VECTOR_STATISTICS}`)
        .execute(db);
      await sql`analyze thing_search`.execute(db);
    },
  };
}
