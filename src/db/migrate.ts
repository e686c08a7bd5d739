/**
 * Schema migrations (Kysely's Migrator), run by `tipjar migrate` and on every start.
 * Migrations are code in src/db/migrations, applied in name order, each once, on both engines.
 *
 * Several processes may start on one database at once (instances behind a load balancer, the CLI
 * beside a server): each migration still runs exactly once. A process that finds migrations
 * pending takes the migration lock, looks again under it, applies what is still pending in one
 * transaction and releases the lock; the others wait for the lock and then find nothing to do.
 * - PostgreSQL: a session-level advisory lock, `pg_advisory_lock(MIGRATION_LOCK_CLASS, key of the
 *   schema)` (migrationLockKey), held on one connection for the whole run; a process that dies
 *   while holding it releases it with its connection. `tipjar backup` and `tipjar restore` take
 *   the same lock (withMigrationLock).
 * - SQLite: the database's write lock, `BEGIN IMMEDIATE` around the whole run (bookkeeping tables
 *   included), waited for as long as it takes.
 * A process that finds the lock taken says so (`onWait`) and waits.
 * A process that finds nothing pending takes no lock (one read of the migration table).
 */
import { createHash } from 'node:crypto';
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Database, Engine } from './connect.ts';
import { makeInitial } from './migrations/0001_initial.ts';
import { makeSearch } from './migrations/0002_search.ts';
import { makeMoney } from './migrations/0004_money.ts';
import { makeTipHours } from './migrations/0005_tip_hours.ts';
import { makeSearchIndexDirect } from './migrations/0006_search_index_direct.ts';
import { makeClientRedirectUris } from './migrations/0007_client_redirect_uris.ts';
import { makePeriodBudgets } from './migrations/0008_period_budgets.ts';
import { makeAccounts } from './migrations/0009_accounts.ts';
import { makeAddressLookup } from './migrations/0010_address_lookup.ts';
import { makeSearchRanked } from './migrations/0011_search_ranked.ts';
import { makeSearchChanges } from './migrations/0012_search_changes.ts';
import { makeSearchWordCounts } from './migrations/0013_search_word_counts.ts';
import { makeSearchSnapshots } from './migrations/0014_search_snapshots.ts';
import { makeTipsAtOnce } from './migrations/0015_tips_at_once.ts';
import { makeSearchTable } from './migrations/0016_search_table.ts';
import { makeTipsAtOnceIndexPlans } from './migrations/0017_tips_at_once_index_plans.ts';
import { makeSearchWordStatistics } from './migrations/0018_search_word_statistics.ts';
import { makeSearchVectorInSearchTableOnly } from './migrations/0019_search_vector_in_search_table_only.ts';
import type { DB } from './schema.ts';

/** Every migration, by name; applied in name order. */
const MIGRATIONS: Record<string, (engine: Engine) => Migration> = {
  '0001_initial': makeInitial,
  '0002_search': makeSearch,
  '0004_money': makeMoney,
  '0005_tip_hours': makeTipHours,
  '0006_search_index_direct': makeSearchIndexDirect,
  '0007_client_redirect_uris': makeClientRedirectUris,
  '0008_period_budgets': makePeriodBudgets,
  '0009_accounts': makeAccounts,
  '0010_address_lookup': () => makeAddressLookup(),
  '0011_search_ranked': makeSearchRanked,
  '0012_search_changes': makeSearchChanges,
  '0013_search_word_counts': makeSearchWordCounts,
  '0014_search_snapshots': makeSearchSnapshots,
  '0015_tips_at_once': makeTipsAtOnce,
  '0016_search_table': makeSearchTable,
  '0017_tips_at_once_index_plans': makeTipsAtOnceIndexPlans,
  '0018_search_word_statistics': makeSearchWordStatistics,
  '0019_search_vector_in_search_table_only': makeSearchVectorInSearchTableOnly,
};

/** The names of every migration this version of Tipjar knows, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort();

/** Kysely's table of applied migrations (one row per migration: `name`, `timestamp`). */
export const MIGRATION_TABLE = 'kysely_migration';

/**
 * First key of the PostgreSQL advisory lock around migrations (`'tipj'` as a 32-bit integer); the
 * second is migrationLockKey's hash of the schema, so deployments in different schemas of one
 * database do not wait for each other.
 */
export const MIGRATION_LOCK_CLASS = 0x7469706a;

/** Thrown when the database has migrations this version does not know: a newer Tipjar migrated it. */
export class NewerSchemaError extends Error {
  constructor(readonly unknown: readonly string[]) {
    super(
      `the database was migrated by a newer version of Tipjar (migrations unknown to this version: ${unknown.join(', ')}); ` +
        'run that version or a later one (migrations only go forward)',
    );
    this.name = 'NewerSchemaError';
  }
}

export interface MigrateOptions {
  /**
   * Called once when another process holds the migration lock and this one waits for it (a
   * sentence for the operator, e.g. written to stderr). Default: nothing.
   */
  onWait?: (message: string) => void;
}

/**
 * The PostgreSQL advisory lock key of the migrations in `schema`: `[MIGRATION_LOCK_CLASS, h]`
 * where `h` is the first 4 bytes of SHA-256 of the schema's name as a signed 32-bit integer; for
 * `pg_advisory_lock(int, int)` (`pg_locks`: `classid`, `objid`).
 */
export function migrationLockKey(schema: string): [number, number] {
  return [MIGRATION_LOCK_CLASS, createHash('sha256').update(schema).digest().readInt32BE(0)];
}

/**
 * The names of the migrations applied to the database, in name order (empty when it has no
 * migration table yet: a new database, or a new PostgreSQL schema).
 */
export async function appliedMigrations(database: Database): Promise<string[]> {
  return readApplied(database.db, database.engine);
}

async function readApplied(db: Kysely<DB>, engine: Database['engine']): Promise<string[]> {
  const exists =
    engine === 'postgres'
      ? (await sql<{ t: string | null }>`select to_regclass(${MIGRATION_TABLE})::text as t`.execute(db)).rows[0]?.t
      : (
          await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`.execute(db)
        ).rows[0];
  if (!exists) return [];
  const rows = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

/**
 * The migrations of this version not yet applied to the database, in order.
 * @throws NewerSchemaError when the database has migrations this version does not know.
 */
export async function pendingMigrations(database: Database): Promise<string[]> {
  const applied = await appliedMigrations(database);
  const unknown = applied.filter((name) => !MIGRATION_NAMES.includes(name));
  if (unknown.length) throw new NewerSchemaError(unknown);
  return MIGRATION_NAMES.filter((name) => !applied.includes(name));
}

/**
 * Brings the schema up to date, once across processes (see the module's comment): returns at once
 * when nothing is pending, else takes the migration lock (waiting for another process's run) and
 * applies what is still pending in one transaction.
 * @returns the names of the migrations applied now by this process (empty when already current).
 * @throws NewerSchemaError when a newer Tipjar migrated the database; Error naming the migration
 * that failed (nothing of that run is applied).
 */
export async function migrateToLatest(database: Database, options: MigrateOptions = {}): Promise<string[]> {
  if ((await pendingMigrations(database)).length === 0) return [];
  return withMigrationLock(database, options, (db) => migrate(database, db, (m) => m.migrateToLatest()));
}

/**
 * Applies the migrations up to and including `name` (e.g. `0006_search_index_direct`), for tests of
 * a later migration on data written in an earlier schema; under the migration lock.
 * @returns the names of the migrations applied now. @throws Error naming the migration that failed.
 */
export function migrateTo(database: Database, name: string): Promise<string[]> {
  return withMigrationLock(database, {}, (db) => migrate(database, db, (m) => m.migrateTo(name)));
}

/** PostgreSQL: the schema Tipjar's tables are in: `?schema=`, else the connection's current schema. */
async function postgresSchema(database: Database, db: Kysely<DB>): Promise<string> {
  return (
    database.schema ??
    (await sql<{ s: string | null }>`select current_schema() as s`.execute(db)).rows[0]?.s ??
    'public'
  );
}

/**
 * Runs `fn` holding the migration lock of `database`, on the one connection that holds it (see the
 * module's comment): no process migrates meanwhile (`tipjar backup` and `restore` on PostgreSQL use
 * it so that no migration runs during pg_dump, or between a restore and its migrations). On SQLite
 * `fn` runs inside the `BEGIN IMMEDIATE` transaction, committed when it resolves and rolled back
 * when it throws.
 * @returns what `fn` returns. @throws what `fn` throws; the lock is released either way.
 */
export async function withMigrationLock<T>(
  database: Database,
  options: MigrateOptions,
  fn: (db: Kysely<DB>) => Promise<T>,
): Promise<T> {
  return database.db.connection().execute(async (db) => {
    if (database.engine === 'postgres') {
      const [classId, objId] = migrationLockKey(await postgresSchema(database, db));
      const tryLock = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${classId}, ${objId}) as ok`.execute(db);
      if (!tryLock.rows[0]?.ok) {
        options.onWait?.(
          `waiting for another process's schema migrations (PostgreSQL advisory lock ${classId}, ${objId})`,
        );
        await sql`select pg_advisory_lock(${classId}, ${objId})`.execute(db);
      }
      let result: T;
      try {
        result = await fn(db);
      } catch (err) {
        // The error of `fn` is the one to tell, also when the unlock fails with the same broken
        // connection (whose end releases the lock).
        await sql`select pg_advisory_unlock(${classId}, ${objId})`.execute(db).catch(() => undefined);
        throw err;
      }
      await sql`select pg_advisory_unlock(${classId}, ${objId})`.execute(db);
      return result;
    }
    await beginImmediate(db, options);
    try {
      const result = await fn(db);
      await sql`commit`.execute(db);
      return result;
    } catch (err) {
      await sql`rollback`.execute(db).catch(() => undefined);
      throw err;
    }
  });
}

/**
 * SQLite: `BEGIN IMMEDIATE`. The first attempt does not wait, so that a process finding the write
 * lock taken says so at once (`onWait`); then it waits with the connection's busy timeout, again
 * and again, until it has the lock.
 */
async function beginImmediate(db: Kysely<DB>, options: MigrateOptions): Promise<void> {
  const busy = (err: unknown) => (err as { code?: string }).code === 'SQLITE_BUSY';
  const timeout = (await sql<{ timeout: number }>`pragma busy_timeout`.execute(db)).rows[0]?.timeout ?? 0;
  await sql.raw('pragma busy_timeout = 0').execute(db);
  try {
    await sql`begin immediate`.execute(db);
    return;
  } catch (err) {
    if (!busy(err)) throw err;
  } finally {
    await sql.raw(`pragma busy_timeout = ${Math.trunc(timeout)}`).execute(db);
  }
  options.onWait?.("waiting for the database's write lock (another process is migrating or writing)");
  for (;;) {
    try {
      await sql`begin immediate`.execute(db);
      return;
    } catch (err) {
      if (!busy(err)) throw err;
      if (timeout === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Brings the schema up to date on `db`, a connection holding the migration lock (the one
 * withMigrationLock hands to its function).
 * @returns the names of the migrations applied now. @throws as migrateToLatest
 */
export function migrateLocked(database: Database, db: Kysely<DB>): Promise<string[]> {
  return migrate(database, db, (m) => m.migrateToLatest());
}

async function migrate(
  database: Database,
  db: Kysely<DB>,
  run: (m: Migrator) => Promise<MigrationResultSet>,
): Promise<string[]> {
  const all = Object.fromEntries(Object.entries(MIGRATIONS).map(([name, make]) => [name, make(database.engine)]));
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => all } satisfies MigrationProvider,
    // Kysely looks for its own tables by name across schemas; pin them to ours (without ?schema=,
    // the connection's current schema: another schema of the database may hold a Tipjar too).
    ...(database.engine === 'postgres' ? { migrationTableSchema: await postgresSchema(database, db) } : {}),
    // SQLite: the whole run is already one transaction (BEGIN IMMEDIATE, withMigrationLock).
    ...(database.engine === 'sqlite' ? { disableTransactions: true } : {}),
  });
  const known = await readApplied(db, database.engine);
  const unknown = known.filter((name) => !MIGRATION_NAMES.includes(name));
  if (unknown.length) throw new NewerSchemaError(unknown);
  let { error, results } = await run(migrator);
  // Kysely's bookkeeping introspects every schema's tables (pg_get_serial_sequence per column); a
  // schema dropped meanwhile by another process (parallel test files) fails it with 42P01/3F000
  // before any migration ran. That is not our schema's problem: try again.
  for (let attempt = 1; error && attempt < 5; attempt++) {
    const code = (error as { code?: string }).code;
    const inMigration = results?.some((r) => r.status === 'Error');
    if (inMigration || (code !== '42P01' && code !== '3F000')) break;
    ({ error, results } = await run(migrator));
  }
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
