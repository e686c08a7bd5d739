/**
 * The SQLite server connection's write path (src/db/connect.ts, src/db/checkpointer.ts): the
 * write-ahead log is checkpointed by a thread of its own after group commits, the connection
 * itself only past LOG_BOUND_PAGES; temporary files (the savepoints' statement journal) stay in
 * memory. SQLite only: PostgreSQL has none of this.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { sqlitePath } from '../../src/db/connect.ts';
import { LOG_BOUND_PAGES } from '../../src/db/checkpointer.ts';
import { uniqueName } from '../helpers/factories.ts';

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe('SQLite write path: WAL checkpoints on their own thread', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('sqlite');
  });
  afterAll(async () => t.drop());

  it('the server connection checkpoints by itself only past the bound and keeps temporary files in memory', async () => {
    const [auto] = (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(t.database.db)).rows;
    expect(auto!.wal_autocheckpoint).toBe(LOG_BOUND_PAGES);
    const [temp] = (await sql<{ temp_store: number }>`pragma temp_store`.execute(t.database.db)).rows;
    expect(temp!.temp_store).toBe(2); // MEMORY
  });

  it('after group commits the thread copies the log into the database file; every committed row is there', async () => {
    expect(t.database.checkpointer).toBeDefined();
    const names = Array.from({ length: 200 }, () => uniqueName('ckpt'));
    await Promise.all(
      names.map((username) =>
        inTransaction(t.database, (trx) =>
          trx
            .insertInto('users')
            .values({ username, username_key: username.toLowerCase(), email: 'x'.repeat(500), registered_at: 1 })
            .execute(),
        ),
      ),
    );
    const ran = await until(() => t.database.checkpointer!.stats().checkpoints > 0, 5000);
    expect(ran).toBe(true);
    const stats = t.database.checkpointer!.stats();
    expect(stats.logFrames).toBeGreaterThan(0);
    expect(stats.failures).toBe(0);
    // Another connection (another process would do the same) sees every committed row.
    const other = new BetterSqlite3(sqlitePath(t.url), { readonly: true });
    try {
      const n = other.prepare(`select count(*) from users where username like 'ckpt%'`).pluck().get() as number;
      expect(n).toBe(names.length);
    } finally {
      other.close();
    }
  });

  it('close stops the thread', async () => {
    const own = await createTestDatabase('sqlite');
    await inTransaction(own.database, (trx) => trx.selectFrom('users').select('id').execute());
    const started = Date.now();
    await own.drop();
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
