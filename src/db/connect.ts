/**
 * Opens the database named by DATABASE_URL: `sqlite:<path>` (embedded, better-sqlite3) or
 * `postgres://…` (a `pg` Pool). A `schema` query parameter on a PostgreSQL URL selects the schema
 * (search_path), which the tests use to isolate files from each other.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { createSqliteReader, type FollowUp } from './reader.ts';
import { createCheckpointer, type Checkpointer } from './checkpointer.ts';
import { registerPgDirect, registerSqliteDirect } from './direct.ts';
import { RAW_ROWS } from './raw-rows.ts';
import { preparedName } from './prepared.ts';
import type { DB } from './schema.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  engine: Engine;
  /** PostgreSQL schema chosen with `?schema=` (undefined: the server's default search_path) */
  schema?: string;
  /**
   * SQLite only: a number that changes whenever another connection — another process, such as
   * `tipjar import things` beside the server — has committed to the database since the last call
   * (`PRAGMA data_version`). Writes made through this Database do not change it (their commits
   * are announced by db/transaction.ts onCommit).
   */
  externalChanges?(): number;
  /**
   * SQLite file databases only: runs a read-only query on a worker thread with its own connection
   * (db/reader.ts), seeing the database as last committed, and resolves to its rows. For long
   * reads (search), so they do not stop the event loop. Undefined on PostgreSQL (queries there
   * never block the event loop) and on `sqlite::memory:`.
   */
  offThread?<R>(query: CompiledQuery<R>): Promise<R[]>;
  /**
   * Like `offThread`, and runs `followUp.query` right after it on the same thread when the first
   * query's row count calls for it (db/reader.ts FollowUp): one wait in the threads' queue, not two.
   */
  offThreadThen?<R, F>(query: CompiledQuery<R>, followUp: FollowUp<F>): Promise<{ rows: R[]; followUpRows?: F[] }>;
  /**
   * SQLite file databases only: the thread that checkpoints the write-ahead log beside the event
   * loop (db/checkpointer.ts). The group commit (db/transaction.ts) tells it of each COMMIT.
   */
  checkpointer?: Checkpointer;
  /**
   * Opens every connection requests will use and has each run one read of the tables requests use
   * most, so that under the first load no request waits for a connection to be opened or for its
   * first look at those tables: on PostgreSQL every connection of the pool (CONNECTION_WARMUP_SQL:
   * catalog caches, the text search dictionary), on a SQLite file every read thread
   * (SQLITE_THREAD_WARMUP_SQL: the thread started, its connection opened). Resolves to the
   * connections that ran it; never rejects (a connection that fails is left to be opened again
   * when needed). Call it after the migrations.
   */
  warmConnections?(): Promise<number>;
  close(): Promise<void>;
}

/**
 * What warmConnections runs on each PostgreSQL connection: a full-text match on thing_search
 * (its GIN index and the `english` configuration), a thing with its owner, a thing's tip_hours
 * and an access token, each by key (nothing is found; only the planning and the look-ups count).
 */
const CONNECTION_WARMUP_SQL = `select
  (select count(*) from (select 1 from thing_search where search_vector @@ plainto_tsquery('english', 'warmup') limit 1) as s)
  + (select count(*) from things left join users on users.id = things.owner_user_id where things.id = 0)
  + (select count(*) from tip_hours where thing_id = 0)
  + (select count(*) from access_tokens where token_hash = '') as n`;

/** What warmConnections runs on each SQLite read thread (its reads: the full-text index, a thing, tip_hours). */
const SQLITE_THREAD_WARMUP_SQL = `select
  (select count(*) from things_fts where things_fts match 'warmup')
  + (select count(*) from things left join users on users.id = things.owner_user_id where things.id = 0)
  + (select count(*) from tip_hours where thing_id = 0) as n`;

export interface OpenOptions {
  sqliteSynchronous?: 'NORMAL' | 'FULL';
  /** SQLite page cache of the server's connection, MiB (read threads keep SQLite's default 2 MiB: their reads are the full-text index, which the OS caches); default 2 MiB */
  sqliteCacheMb?: number;
  /** SQLite file databases: most read threads for `offThread` (default 1 here, for tests and commands; the server passes SQLITE_READ_THREADS, default 2) */
  sqliteReadThreads?: number;
  poolSize?: number;
  /**
   * SQLite: milliseconds between runs of `PRAGMA optimize` (planner statistics refresh) while the
   * database is open; 0 turns the periodic run off (it still runs once at open). Default one hour.
   */
  sqliteOptimizeIntervalMs?: number;
}

/** Rows ANALYZE samples per index when `PRAGMA optimize` refreshes statistics (bounds its cost on big tables). */
const SQLITE_ANALYSIS_LIMIT = 1000;

/**
 * Refreshes SQLite's planner statistics (sqlite_stat1) where they went stale. Statistics taken
 * while a table was tiny (e.g. `users` when the catalogue was imported before anyone signed up)
 * make the planner scan that table on every join instead of using its primary key: every thing
 * read then scanned all users. `PRAGMA optimize` re-analyses only tables whose size changed
 * about tenfold since their last analysis; 0x10002 makes it look at every table, not only
 * those this connection has queried.
 */
function optimizeSqlite(raw: BetterSqlite3.Database): void {
  raw.pragma(`analysis_limit = ${SQLITE_ANALYSIS_LIMIT}`);
  raw.pragma('optimize = 0x10002');
}

/**
 * After a bulk load of things: fresh planner statistics, which PostgreSQL would otherwise wait for
 * autovacuum to take and SQLite's planner reads from sqlite_stat1 after `ANALYZE`. On PostgreSQL
 * the tables a load of things writes (things, thing_search, thing_tags, activities) are also vacuumed
 * (`VACUUM (ANALYZE)`), which marks their pages all-visible, so the counts and newest-first pages
 * of searches read the covering indexes alone (index-only scans) instead of every row.
 */
export async function refreshPlannerStatistics(database: Database): Promise<void> {
  if (database.engine === 'postgres')
    await sql`vacuum (analyze) things, thing_search, thing_tags, activities`.execute(database.db);
  else await sql`analyze`.execute(database.db);
}

/**
 * Whether the database answers a trivial statement (`select 1`): resolves when it does.
 * @throws the driver's error when it does not (connection refused, pool closed, file unreadable).
 */
export async function pingDatabase(database: Database): Promise<void> {
  await sql`select 1`.execute(database.db);
}

/** PostgreSQL int8 (ids, counts, Unix seconds) as JS numbers: every value we store fits in 2^53. */
const pgTypes = (types: typeof pg.types) => ({
  getTypeParser(oid: number, format?: string) {
    if (oid === 20) return (v: string) => Number(v);
    return (types.getTypeParser as (o: number, f?: string) => unknown)(oid, format);
  },
});

/**
 * A `pg` Client class that runs the statements of db/prepared.ts by name (prepared once per
 * connection), the others as given. Kysely calls `query(text, values)`.
 */
function namingClient(Base: typeof pg.Client): typeof pg.Client {
  return class NamingClient extends Base {
    override query(config: any, values?: any, callback?: any): any {
      if (typeof config === 'string' && Array.isArray(values)) {
        const name = preparedName(config);
        if (name !== undefined) return super.query({ name, text: config, values }, callback);
      }
      return super.query(config, values, callback);
    }
  } as typeof pg.Client;
}

/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely prepares each query anew.
 * Caching compiled statements by SQL text is worth ~+50 % on point reads (DESIGN.md). Kysely never
 * iterates a statement concurrently (no streaming here), so sharing a statement object is safe.
 */
function cachingSqlite(raw: BetterSqlite3.Database, max = 1000) {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sqlText: string) {
      let stmt = cache.get(sqlText);
      if (!stmt) {
        stmt = raw.prepare(sqlText);
        if (sqlText.startsWith(RAW_ROWS)) stmt.raw(true);
        if (cache.size >= max) cache.delete(cache.keys().next().value as string);
        cache.set(sqlText, stmt);
      }
      return stmt;
    },
    close() {
      cache.clear();
      raw.close();
    },
  };
}

/** Parses `sqlite:<path>`; `sqlite::memory:` is an in-memory database. */
export function sqlitePath(url: string): string {
  const p = url.slice('sqlite:'.length);
  if (p.startsWith('//')) return p.slice(2);
  return p;
}

/**
 * Opens (and for SQLite creates) the database. Does not migrate: see migrate.ts.
 * @throws Error when the URL is neither sqlite: nor postgres(ql)://, or the database cannot be opened.
 */
export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  if (url.startsWith('sqlite:')) {
    const path = sqlitePath(url);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const raw = new BetterSqlite3(path);
    const synchronous = options.sqliteSynchronous ?? 'NORMAL';
    const wal = raw.pragma('journal_mode = WAL', { simple: true }) === 'wal';
    raw.pragma(`synchronous = ${synchronous}`);
    raw.pragma('foreign_keys = ON');
    // Temporary files in memory: above all the statement journal of the group commit's savepoints
    // (db/transaction.ts), which otherwise spills to a temporary file after 64 KiB and costs system
    // calls on every page a transaction changes. The log and the database file are unaffected.
    raw.pragma('temp_store = MEMORY');
    raw.pragma('busy_timeout = 10000');
    if (options.sqliteCacheMb) raw.pragma(`cache_size = ${-Math.round(options.sqliteCacheMb * 1024)}`);
    optimizeSqlite(raw);
    const interval = options.sqliteOptimizeIntervalMs ?? 3_600_000;
    const timer = interval > 0 ? setInterval(() => optimizeSqlite(raw), interval).unref() : undefined;
    const statements = cachingSqlite(raw);
    const db = new Kysely<DB>({
      dialect: new SqliteDialect({ database: statements as unknown as BetterSqlite3.Database }),
    });
    registerSqliteDirect(db, {
      statement: (sqlText) => statements.prepare(sqlText),
      inTransaction: () => raw.inTransaction,
    });
    const dataVersion = raw.prepare('pragma data_version').pluck();
    const reader = path === ':memory:' ? undefined : createSqliteReader(path, { threads: options.sqliteReadThreads });
    const checkpointer = path !== ':memory:' && wal ? createCheckpointer(raw, path, { synchronous }) : undefined;
    return {
      db,
      engine: 'sqlite',
      externalChanges: () => dataVersion.get() as number,
      ...(checkpointer ? { checkpointer } : {}),
      ...(reader
        ? {
            warmConnections: () => reader.warm(CompiledQuery.raw(SQLITE_THREAD_WARMUP_SQL)),
            offThread: <R>(query: CompiledQuery<R>) => reader.all(query),
            offThreadThen: <R, F>(query: CompiledQuery<R>, followUp: FollowUp<F>) => reader.allThen(query, followUp),
          }
        : {}),
      close: async () => {
        clearInterval(timer);
        await checkpointer?.close();
        await reader?.close();
        await db.destroy();
      },
    };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema');
    parsed.searchParams.delete('schema');
    // Server settings of every connection, after any the URL's `options` names: JIT compilation
    // off (Tipjar's statements are short; at a million things the planner's estimates cross
    // jit_above_cost and compiling took longer than running: docs/adr/0037), the schema's path.
    const settings = [parsed.searchParams.get('options'), '-c jit=off', schema ? `-c search_path=${schema}` : null];
    parsed.searchParams.delete('options');
    // Loaded only here, so a server on SQLite never loads the PostgreSQL driver.
    const { default: pgModule } = await import('pg');
    const pool = new pgModule.Pool({
      connectionString: parsed.toString(),
      max: options.poolSize ?? 10,
      types: pgTypes(pgModule.types),
      Client: namingClient(pgModule.Client),
      options: settings.filter((o) => o).join(' '),
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    registerPgDirect(db, {
      query: async (text, parameters) => (await pool.query(text, parameters as unknown[])).rows,
    });
    const warmConnections = async () => {
      const clients = await Promise.all(
        Array.from({ length: options.poolSize ?? 10 }, () => pool.connect().catch(() => undefined)),
      );
      const ran = await Promise.all(
        clients.map(async (client) => {
          if (!client) return false;
          try {
            await client.query(CONNECTION_WARMUP_SQL);
            client.release();
            return true;
          } catch (err) {
            client.release(err as Error);
            return false;
          }
        }),
      );
      return ran.filter(Boolean).length;
    };
    return { db, engine: 'postgres', schema: schema ?? undefined, warmConnections, close: () => db.destroy() };
  }
  throw new Error(`DATABASE_URL must be sqlite:<path> or postgres://…, got "${url}"`);
}
