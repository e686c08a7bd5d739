/**
 * SQLite planner statistics (src/db/connect.ts): statistics taken while `users` held one row (a
 * catalogue imported before anyone signed up, then ANALYZE) made every thing read scan the whole
 * users table. Opening the database refreshes statistics that went stale, and the periodic
 * refresh does the same on a database that stays open.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createDatabaseUrl } from '../helpers/db.ts';
import { openDatabase, type Database } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/** The plan of the thing read (things joined with their owner), as SQLite's EXPLAIN QUERY PLAN details. */
async function thingReadPlan(database: Database): Promise<string[]> {
  const r = await sql<{ detail: string }>`explain query plan
    select things.id, users.username from things left join users on users.id = things.owner_user_id
    where things.deleted_at is null and things.id = ${1}`.execute(database.db);
  return r.rows.map((row) => row.detail);
}

async function addUsers(database: Database, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i += 500) {
    const batch = Array.from({ length: Math.min(500, from + n - i) }, (_, j) => `stats${i + j}`);
    await database.db
      .insertInto('users')
      .values(
        batch.map((username) => ({
          username,
          username_key: username,
          email: '',
          password_hash: null,
          registered_at: 1,
        })),
      )
      .execute();
  }
}

describe('SQLite planner statistics', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  /** A database analysed with one user, then grown to 2,000 users without a new analysis. */
  async function staleDatabase(): Promise<string> {
    const { url, remove } = await createDatabaseUrl('sqlite');
    cleanups.push(remove);
    const first = await openDatabase(url, { sqliteOptimizeIntervalMs: 0 });
    await migrateToLatest(first);
    await addUsers(first, 0, 1);
    await sql`analyze`.execute(first.db);
    await addUsers(first, 1, 1999);
    const stat = await sql<{
      stat: string;
    }>`select stat from sqlite_stat1 where idx = 'sqlite_autoindex_users_1'`.execute(first.db);
    expect(stat.rows[0]?.stat).toMatch(/^1 /); // the statistics still say one user
    await first.close();
    return url;
  }

  it('opening the database refreshes statistics taken when users was tiny: the owner join uses the primary key', async () => {
    const url = await staleDatabase();
    const database = await openDatabase(url, { sqliteOptimizeIntervalMs: 0 });
    cleanups.unshift(() => database.close());
    const plan = await thingReadPlan(database);
    expect(plan.some((d) => /SEARCH users USING INTEGER PRIMARY KEY/.test(d))).toBe(true);
    expect(plan.some((d) => /SCAN users/.test(d))).toBe(false);
  });

  it('an open database refreshes them periodically', async () => {
    const { url, remove } = await createDatabaseUrl('sqlite');
    cleanups.push(remove);
    const database = await openDatabase(url, { sqliteOptimizeIntervalMs: 50 });
    cleanups.unshift(() => database.close());
    await migrateToLatest(database);
    await addUsers(database, 0, 1);
    await sql`analyze`.execute(database.db);
    await addUsers(database, 1, 1999);
    await expect
      .poll(async () => (await thingReadPlan(database)).some((d) => /SEARCH users USING INTEGER PRIMARY KEY/.test(d)), {
        timeout: 5000,
      })
      .toBe(true);
  });
});
