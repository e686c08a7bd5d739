/**
 * Tips per thing and hour (the tip sorts of search, DECISIONS.md "Search"): `tip_hours` holds, for
 * each thing and each hour (`hour` = floor(created_at / 3600)) with tips, how many (`tips`), the
 * first and last tip's time (`first_at`, `last_at`, Unix seconds) and `weight`, the sum over those
 * tips of 2^((created_at − hour·3600) / TREND_HALF_LIFE). A tip's transaction adds its tip here
 * (db/repositories/tips.ts), so the windows of `tips_month|week|day` and `trend` read one row per
 * hour with tips instead of one row per tip; hours cut by a window's edge are counted from the
 * tips themselves (db/repositories/search.ts). Existing tips are counted in when the migration runs.
 * If TREND_HALF_LIFE ever changes, `weight` must be recomputed.
 */
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../connect.ts';
import { TREND_HALF_LIFE } from '../repositories/search.ts';

export function makeTipHours(engine: Engine) {
  const big = engine === 'postgres' ? 'bigint' : 'integer';
  const real = engine === 'postgres' ? 'double precision' : 'real';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('tip_hours')
        .addColumn('thing_id', big, (c) => c.notNull().references('things.id'))
        .addColumn('hour', big, (c) => c.notNull())
        .addColumn('tips', big, (c) => c.notNull())
        .addColumn('first_at', big, (c) => c.notNull())
        .addColumn('last_at', big, (c) => c.notNull())
        .addColumn('weight', real, (c) => c.notNull())
        .addPrimaryKeyConstraint('tip_hours_pk', ['thing_id', 'hour'])
        .execute();
      await db.schema.createIndex('tip_hours_hour').on('tip_hours').column('hour').execute();
      const age =
        engine === 'postgres'
          ? sql`(created_at - (created_at / 3600) * 3600)::float8`
          : sql`(created_at - (created_at / 3600) * 3600) * 1.0`;
      await sql`insert into tip_hours (thing_id, hour, tips, first_at, last_at, weight)
        select thing_id, created_at / 3600, count(*), min(created_at), max(created_at), sum(power(2.0, ${age} / ${TREND_HALF_LIFE}))
        from tips group by thing_id, created_at / 3600`.execute(db);
    },
  };
}
