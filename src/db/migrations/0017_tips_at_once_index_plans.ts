/**
 * PostgreSQL: `tips_at_once` (migration 0015) plans with `enable_seqscan = off`. Every statement of
 * the function reaches its rows by key (a thing, a tipper, a period, an hour: primary keys and the
 * unique indexes its `on conflict` clauses name), so an index scan is right at any table size. A
 * PL/pgSQL function keeps its statements' plans for the life of its connection, and PostgreSQL
 * settles on a generic plan after five calls; made while `tips` and `period_budgets` are nearly
 * empty (a new database), that plan scans them whole, and every later tip on that connection pays
 * for the whole table (docs/adr/0040). The setting applies only while the function runs.
 * SQLite: nothing (no such function).
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';

/** The function's signature, as 0015 created it. */
const TIPS_AT_ONCE = 'tips_at_once(bigint[], bigint[], text[], bigint[], text[], bigint[], bigint[], float8[])';

export function makeTipsAtOnceIndexPlans(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine !== 'postgres') return;
      await sql.raw(`alter function ${TIPS_AT_ONCE} set enable_seqscan = off`).execute(db);
    },
  };
}
