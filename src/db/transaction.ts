/**
 * Runs work in one database transaction: everything a write does (rows, counters, ledger, activity,
 * outbox) commits together or not at all. Repositories record what a transaction changed
 * (`recordChange`); once it has committed, the transaction helper announces those changes to the
 * listeners of its database (`onCommit`) — the search module's caches — before its caller is
 * answered. A transaction that rolls back announces nothing. docs/adr/0019-data-layer-events.md.
 */
import type { Kysely } from 'kysely';
import type { Database } from './connect.ts';
import type { DB } from './schema.ts';
import { sqliteDirect, type SqliteStatement } from './direct.ts';

export type { Database };

/** A Kysely handle bound to an open transaction (or the plain database for reads). */
export type Executor = Kysely<DB>;

/**
 * What a transaction wrote that derived reads depend on (the search module's caches):
 * - `things`: rows of these things (new ones included) were inserted or updated; `matching`: the
 *   write can change what a search matches (fields, tags, owner, visibility, a new or deleted
 *   thing), false when only their tip counters moved;
 * - `tip`: a tip on this thing was written (the tip sorts of search depend on tips);
 * - `mail`: a message was queued in the mail outbox (the mail dispatcher sends it at once).
 */
export type Change =
  { kind: 'things'; ids: readonly number[]; matching: boolean } | { kind: 'tip'; thingId: number } | { kind: 'mail' };

/** Called after a commit with what the committed transactions changed (never empty); must not throw. */
export type CommitListener = (changes: readonly Change[]) => void;

/** An open transaction: its database and what it changed so far. */
interface Scope {
  database: Database;
  changes: Change[];
  /** SQLite's group commit: the connection's compiled statements, run directly while the batch holds it */
  statement?: (sqlText: string) => SqliteStatement;
}

/**
 * The open transactions, by the executor handed to their work: a transaction of its own on
 * PostgreSQL; on SQLite the connection's, which runs one transaction's work at a time (GroupCommitter).
 */
const scopes = new WeakMap<Executor, Scope>();
/** Databases by their own handle, once a transaction ran on them or a listener subscribed. */
const roots = new WeakMap<Executor, Database>();
const listeners = new WeakMap<Database, Set<CommitListener>>();

/**
 * Records that `ex` changed something (see Change), after the statement that made the change:
 * repositories call it. In a transaction of inTransaction the change is announced once the
 * transaction has committed, and dropped if it rolls back; on a database's own handle (a statement
 * outside any transaction, committed when it returned) it is announced at once.
 * @throws Error when `ex` is a transaction not opened by inTransaction (its commit is not seen here).
 */
export function recordChange(ex: Executor, change: Change): void {
  const scope = scopes.get(ex);
  if (scope) {
    scope.changes.push(change);
    return;
  }
  if (ex.isTransaction) throw new Error(`a ${change.kind} change must be written inside inTransaction`);
  const database = roots.get(ex);
  if (database) announce(database, [change]);
}

/**
 * Calls `listener` after every commit on `database` that changed something, with the changes,
 * before the committed transactions' callers are answered: what a caller was told is written is
 * already known to the listener.
 * @returns a function that removes the listener.
 */
export function onCommit(database: Database, listener: CommitListener): () => void {
  roots.set(database.db, database);
  let set = listeners.get(database);
  if (!set) {
    set = new Set();
    listeners.set(database, set);
  }
  set.add(listener);
  return () => set.delete(listener);
}

function announce(database: Database, changes: readonly Change[]): void {
  if (changes.length === 0) return;
  for (const listener of listeners.get(database) ?? []) {
    try {
      listener(changes);
    } catch (err) {
      // A listener's bug must not fail a transaction that has committed.
      process.emitWarning(err instanceof Error ? err : new Error(String(err)), 'CommitListenerError');
    }
  }
}

/**
 * The database handle `ex` derives from: the database's own handle for the executor of a
 * transaction opened by inTransaction, `ex` itself otherwise. Queries built on either compile to
 * the same SQL (db/precompiled.ts keys its cache by it).
 */
export function rootExecutor(ex: Executor): Executor {
  return scopes.get(ex)?.database.db ?? ex;
}

/**
 * For the executor of a transaction in SQLite's group commit: the connection's compiled statement
 * for an SQL text, to be run at once, synchronously, on the connection the transaction holds
 * (db/precompiled.ts runs its queries so, without Kysely's per-query steps). Undefined for any
 * other executor (PostgreSQL, a database's own handle, a transaction not opened by inTransaction).
 */
export function directStatements(ex: Executor): ((sqlText: string) => SqliteStatement) | undefined {
  return scopes.get(ex)?.statement;
}

/** Runs `fn` with a new scope for its executor; returns its result and changes. */
async function inScope<T>(
  database: Database,
  ex: Executor,
  fn: (trx: Executor) => Promise<T>,
  statement?: (sqlText: string) => SqliteStatement,
): Promise<{ result: T; changes: Change[] }> {
  const scope: Scope = statement ? { database, changes: [], statement } : { database, changes: [] };
  scopes.set(ex, scope);
  try {
    return { result: await fn(ex), changes: scope.changes };
  } finally {
    scopes.delete(ex);
  }
}

const RETRYABLE_PG = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

/** Whether `err` is a PostgreSQL serialization failure or deadlock: what inTransaction and inStatement retry. */
export function isRetryableConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_PG.has(code);
}

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
  roots.set(database.db, database);
  if (database.engine === 'sqlite') {
    let committer = committers.get(database);
    if (!committer) {
      committer = new GroupCommitter(database);
      committers.set(database, committer);
    }
    return committer.run(fn);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const { result, changes } = await database.db.transaction().execute((trx) => inScope(database, trx, fn));
      announce(database, changes);
      return result;
    } catch (err) {
      if (isRetryableConflict(err) && attempt < 5) continue;
      throw err;
    }
  }
}

/**
 * PostgreSQL: runs `fn`, one self-contained statement on the database's own handle (its own
 * implicit transaction: committed, with the server's durability, when it returns), retrying it on
 * serialization failures and deadlocks as inTransaction retries a transaction. Changes it records
 * on the database's handle are announced at once (recordChange). `fn` must be safe to run again
 * after such a failure (the failed statement wrote nothing).
 * @throws whatever the statement throws otherwise.
 */
export async function inStatement<T>(database: Database, fn: (db: Executor) => Promise<T>): Promise<T> {
  roots.set(database.db, database);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(database.db);
    } catch (err) {
      if (database.engine === 'postgres' && isRetryableConflict(err) && attempt < 5) continue;
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
 * Group commit on SQLite's single connection. Transactions queue and run together: `BEGIN
 * IMMEDIATE`, each in its own savepoint (a failure rolls back only that savepoint and rejects only its caller),
 * one `COMMIT`, then every caller is answered. Effects are those of running the transactions one
 * after another in queue order. If SQLite aborts the whole transaction (e.g. disk full), the
 * transactions that had succeeded in it are queued again; if COMMIT fails, all of them fail.
 * The transactions' work runs one after another on the connection, so the changes recorded while one
 * runs are its own: after COMMIT those of the transactions that succeeded are announced, then their
 * callers are answered.
 * A batch starts in the event loop's check phase (`setImmediate`) after the first transaction is
 * requested, so it carries every transaction requested in the same turn of the loop — e.g. one per
 * request read from the sockets in one poll phase — and those requested while it runs form the next
 * batch. (Started at once, the first transaction would run and commit alone in the microtasks of
 * its own request, before the loop reads the next one: one COMMIT per transaction.)
 */
class GroupCommitter {
  private pending: Job[] = [];
  private draining = false;

  constructor(private readonly database: Database) {}

  run<T>(fn: (trx: Executor) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
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
    const direct = sqliteDirect(this.database.db)!;
    const statement = (sqlText: string) => direct.statement(sqlText);
    // The batch's own statements run directly on the connection it holds (db/direct.ts).
    const exec = (sqlText: string) => void statement(sqlText).run();
    await this.database.db.connection().execute(async (conn) => {
      exec('begin immediate');
      const succeeded: { job: Job; result: unknown; changes: Change[] }[] = [];
      for (let i = 0; i < batch.length; i++) {
        const job = batch[i]!;
        exec('savepoint tipjar_tx');
        try {
          const { result, changes } = await inScope(this.database, conn, job.fn, statement);
          exec('release tipjar_tx');
          succeeded.push({ job, result, changes });
        } catch (err) {
          try {
            exec('rollback to tipjar_tx');
            exec('release tipjar_tx');
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
        exec('commit');
      } catch (err) {
        try {
          exec('rollback');
        } catch {
          /* already rolled back */
        }
        for (const s of succeeded) s.job.reject(err);
        return;
      }
      this.database.checkpointer?.committed();
      announce(
        this.database,
        succeeded.flatMap((s) => s.changes),
      );
      for (const s of succeeded) s.job.resolve(s.result);
    });
  }
}

/** True when `err` is a unique-constraint violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
