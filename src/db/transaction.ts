/**
 * Runs work in one database transaction: everything a write does (rows, counters, ledger, activity,
 * outbox) commits together or not at all.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './connect.ts';
import type { DB } from './schema.ts';

/** A Kysely handle bound to an open transaction (or the plain database for reads). */
export type Executor = Kysely<DB>;

const RETRYABLE_PG = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

/**
 * Runs `fn` inside a transaction and returns its result.
 * SQLite: `BEGIN IMMEDIATE` takes the write lock up front, so a second process (CLI, another
 * server) waits on busy_timeout instead of failing mid-transaction.
 * PostgreSQL: serialization failures and deadlocks are retried (up to 5 times), as DESIGN.md asks
 * for distributed PostgreSQL-compatible engines.
 * @throws whatever `fn` throws, after rolling back.
 */
export async function inTransaction<T>(database: Database, fn: (trx: Executor) => Promise<T>): Promise<T> {
  if (database.engine === 'sqlite') {
    return database.db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        const result = await fn(conn);
        await sql`commit`.execute(conn);
        return result;
      } catch (err) {
        try {
          await sql`rollback`.execute(conn);
        } catch {
          /* SQLite already rolled back (e.g. after SQLITE_FULL) */
        }
        throw err;
      }
    });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await database.db.transaction().execute(fn);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code && RETRYABLE_PG.has(code) && attempt < 5) continue;
      throw err;
    }
  }
}

/** True when `err` is a unique-constraint violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
