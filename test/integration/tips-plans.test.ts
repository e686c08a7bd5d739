/**
 * PostgreSQL: the plans `tips_at_once` keeps (migration 0017_tips_at_once_index_plans). A
 * connection keeps the function's plans for its life and settles on generic ones after five calls;
 * made while `tips` and `period_budgets` were analysed empty (a new database on a server whose
 * autovacuum is off), they scanned both tables whole, so every later tip on that connection read
 * every tip row. After the table has grown, a tip on the same connection must reach both tables by
 * index only.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unboundedHashing } from '../../src/auth/passwords.ts';
import { systemClock } from '../../src/domain/clock.ts';
import type { Services } from '../../src/domain/services.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';

/** Tips written straight into `tips` (other periods of one pair) before the last call. */
const GROWN_TO = 20_000;

describe.skipIf(!process.env.TEST_DATABASE_URL)('tips_at_once on a grown tips table (PostgreSQL)', () => {
  let db: TestDatabase;
  let s: Services;
  let tipper: TestUser;
  let things: number[];
  /** One connection, so that every call uses the plans that connection keeps. */
  let client: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    s = { database: db.database, clock: systemClock, siteUrl: 'http://tipjar.test', passwordHashing: unboundedHashing };
    const owner = await buildUser(s);
    tipper = await buildUser(s);
    things = [];
    for (let i = 0; i < 10; i++) things.push(await buildThing(s, owner, { url: `https://plans.example/${i}` }));
    const url = new URL(db.url);
    const schema = url.searchParams.get('schema')!;
    url.searchParams.delete('schema');
    client = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${schema}` });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  /** One tip through the function on `client`: its `tip_id` (null when nothing was written). */
  async function tipAtOnce(thingId: number): Promise<string | null> {
    const at = Math.floor(Date.now() / 1000);
    const period = new Date(at * 1000).toISOString().slice(0, 7);
    const r = await client.query<{ tip_id: string | null }>(
      `select tip_id from tips_at_once($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::text[],
         $6::bigint[], $7::bigint[], $8::float8[])`,
      [[thingId], [tipper.user.id], [period], [at], ['api'], [null], [Math.floor(at / 3600)], [1]],
    );
    return r.rows[0]!.tip_id;
  }

  it('reads tips and period_budgets by index after the table grew behind its kept plans', async () => {
    await client.query('analyze tips, period_budgets');
    // Eight calls while the tables are (nearly) empty: past the five after which plans go generic.
    for (const id of things.slice(0, 8)) expect(await tipAtOnce(id)).not.toBeNull();
    await client.query(
      `insert into tips (thing_id, tipper_id, period, created_at, source, client_id)
       select $1, $2, 'x' || lpad(n::text, 6, '0'), 1, 'api', null from generate_series(1, $3::int) as n`,
      [things[9], tipper.user.id, GROWN_TO],
    );
    await client.query('begin');
    try {
      expect(await tipAtOnce(things[8]!)).not.toBeNull();
      const scans = await client.query<{ relname: string; seq_scan: string }>(
        `select relname, seq_scan from pg_stat_xact_user_tables
         where schemaname = current_schema() and relname in ('tips', 'period_budgets') order by relname`,
      );
      expect(scans.rows.map((r) => [r.relname, Number(r.seq_scan)])).toEqual([
        ['period_budgets', 0],
        ['tips', 0],
      ]);
    } finally {
      await client.query('commit');
    }
  });
});
