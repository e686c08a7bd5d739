/**
 * The settings of Tipjar's PostgreSQL connections (src/db/connect.ts openDatabase): every
 * connection runs with JIT compilation off and in the URL's `schema`, and settings the URL's own
 * `options` parameter names are kept beside them. Runs only with TEST_DATABASE_URL.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/connect.ts';
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
});
