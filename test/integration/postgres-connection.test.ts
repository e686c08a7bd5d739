/**
 * The settings of Tipjar's PostgreSQL connections (src/db/connect.ts openDatabase): every
 * connection runs with JIT compilation off and in the URL's `schema`, and settings the URL's own
 * `options` parameter names are kept beside them; `warmConnections` opens every connection of the
 * pool at once. Runs only with TEST_DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createDatabaseUrl } from '../helpers/db.ts';

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL connection settings', () => {
  let url: string;
  let remove: () => Promise<void>;
  let database: Database;

  beforeAll(async () => {
    ({ url, remove } = await createDatabaseUrl('postgres'));
    const withOptions = new URL(url);
    withOptions.searchParams.set('options', '-c statement_timeout=12345');
    database = await openDatabase(withOptions.toString());
  });
  afterAll(async () => {
    await database.close();
    await remove();
  });

  it("runs without JIT, in the URL's schema, with the URL's own options", async () => {
    // Several connections of the pool at once: each must have the settings.
    const settings = await Promise.all(
      [1, 2, 3].map(async () => {
        const { rows } = await sql<{
          jit: string;
          schema: string;
          timeout: string;
        }>`select current_setting('jit') as jit, current_schema() as schema, current_setting('statement_timeout') as timeout, pg_sleep(0.05)`.execute(
          database.db,
        );
        return rows[0];
      }),
    );
    const schema = new URL(url).searchParams.get('schema');
    for (const s of settings) expect(s).toMatchObject({ jit: 'off', schema, timeout: '12345ms' });
  });

  it('warmConnections opens every connection of the pool and runs its read on each', async () => {
    const name = `warm_${randomBytes(4).toString('hex')}`;
    const named = new URL(url);
    named.searchParams.set('application_name', name);
    const pooled = await openDatabase(named.toString(), { poolSize: 3 });
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      await migrateToLatest(pooled);
      const backends = async () =>
        Number(
          (await admin.query('select count(*) as n from pg_stat_activity where application_name = $1', [name])).rows[0]
            .n,
        );
      expect(await pooled.warmConnections!()).toBe(3);
      expect(await backends()).toBe(3);
    } finally {
      await admin.end();
      await pooled.close();
    }
  });
});
