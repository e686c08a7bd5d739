/**
 * Runs work in one database transaction: everything a write does (rows, counters, ledger, activity,
 * outbox) commits together or not at all.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './connect.ts';
import type { DB } from './schema.ts';
import { beginChanges, settleChanges } from './changes.ts';

/** A Kysely handle bound to an open transaction (or the plain database for reads). */
export type Executor = Kysely<DB>;

const RETRYABLE_PG = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

/**
 * Runs `fn` inside a transaction and returns its result.
 * SQLite: transactions are group-committed (see GroupCommitter): `fn` runs inside a savepoint of a
 * shared `BEGIN IMMEDIATE` transaction, and its promise settles only after that transaction has
 * committed, so an acknowledged write is as durable as before while one commit (the costly WAL
 * write) serves every transaction that queued meanwhile.
 * PostgreSQL: serialization failures and deadlocks are retried (up to 5 times), as DESIGN.md asks
 * for distributed PostgreSQL-compatible engines.
 * `fn` must only use `trx` for the database (the plain handle waits for the same connection) and may
 * be run again after a failure that was not its own, so it must not have effects outside the database.
 * @throws whatever `fn` throws, after its writes were rolled back.
 */
export async function inTransaction<T>(database: Database, fn: (trx: Executor) => Promise<T>): Promise<T> {
  const start = beginChanges();
  try {
    return await runTransaction(database, fn);
  } finally {
    // Caches of derived reads learn that what this transaction wrote is now settled (db/changes.ts).
    settleChanges(start);
  }
}

async function runTransaction<T>(database: Database, fn: (trx: Executor) => Promise<T>): Promise<T> {
  if (database.engine === 'sqlite') {
    let committer = committers.get(database);
    if (!committer) {
      committer = new GroupCommitter(database.db);
      committers.set(database, committer);
    }
    return committer.run(fn);
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

interface Job {
  fn: (trx: Executor) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Most transactions one SQLite commit may carry. */
const MAX_BATCH = 200;

const committers = new WeakMap<Database, GroupCommitter>();

/**
 * Group commit on SQLite's single connection. A transaction requested while none runs starts at
 * once, alone; those requested while one runs queue and then run together: `BEGIN IMMEDIATE`, each
 * in its own savepoint (a failure rolls back only that savepoint and rejects only its caller),
 * one `COMMIT`, then every caller is answered. Effects are those of running the transactions one
 * after another in queue order. If SQLite aborts the whole transaction (e.g. disk full), the
 * transactions that had succeeded in it are queued again; if COMMIT fails, all of them fail.
 */
class GroupCommitter {
  private pending: Job[] = [];
  private draining = false;

  constructor(private readonly db: Kysely<DB>) {}

  run<T>(fn: (trx: Executor) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        try {
          await this.runBatch(batch);
        } catch (err) {
          // BEGIN or the connection failed: nothing of this batch was written.
          for (const job of batch) job.reject(err);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private async runBatch(batch: Job[]): Promise<void> {
    await this.db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      const succeeded: { job: Job; result: unknown }[] = [];
      for (let i = 0; i < batch.length; i++) {
        const job = batch[i]!;
        await sql`savepoint tipjar_tx`.execute(conn);
        try {
          const result = await job.fn(conn);
          await sql`release tipjar_tx`.execute(conn);
          succeeded.push({ job, result });
        } catch (err) {
          try {
            await sql`rollback to tipjar_tx`.execute(conn);
            await sql`release tipjar_tx`.execute(conn);
          } catch {
            // SQLite rolled the whole transaction back: run the others again in a new one.
            job.reject(err);
            this.pending.unshift(...succeeded.map((s) => s.job), ...batch.slice(i + 1));
            return;
          }
          job.reject(err);
        }
      }
      try {
        await sql`commit`.execute(conn);
      } catch (err) {
        try {
          await sql`rollback`.execute(conn);
        } catch {
          /* already rolled back */
        }
        for (const s of succeeded) s.job.reject(err);
        return;
      }
      for (const s of succeeded) s.job.resolve(s.result);
    });
  }
}

/** True when `err` is a unique-constraint violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
