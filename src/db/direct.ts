/**
 * Direct access to a SQLite server connection's compiled statements (better-sqlite3), for the
 * paths where Kysely's per-query steps (connection hand-over through its mutex, result wrapping,
 * promise hops) cost more than the query: the group commit's own statements and the precompiled
 * queries (db/precompiled.ts). Registered by db/connect.ts for each SQLite database's Kysely handle.
 *
 * A statement may run directly only where Kysely would run it on the same connection with the
 * same effect: inside the group commit's batch, which holds the connection for its whole run, or a
 * read-only statement while no transaction is open on the connection (it then sees the database as
 * last committed, as a read queued behind Kysely's mutex would).
 */

/** The part of a better-sqlite3 statement the direct paths use. */
export interface SqliteStatement {
  /** true when the statement returns rows */
  readonly reader: boolean;
  /** true when the statement does not write */
  readonly readonly: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters?: readonly unknown[]): unknown;
}

export interface SqliteDirect {
  /** The connection's compiled statement for `sqlText` (the cache Kysely's queries use too). */
  statement(sqlText: string): SqliteStatement;
  /** Whether a transaction is open on the connection (better-sqlite3 `inTransaction`). */
  inTransaction(): boolean;
}

const handles = new WeakMap<object, SqliteDirect>();

/** Registers the direct access to the connection behind the Kysely handle `db` (db/connect.ts). */
export function registerSqliteDirect(db: object, direct: SqliteDirect): void {
  handles.set(db, direct);
}

/** The direct access to the SQLite connection behind the Kysely handle `db`; undefined for any other handle. */
export function sqliteDirect(db: object): SqliteDirect | undefined {
  return handles.get(db);
}

/**
 * PostgreSQL: a query on the pool behind a database's own Kysely handle, outside any transaction
 * (a connection is taken from the pool for the query and given back, as Kysely would do, without
 * its connection wrapper and result conversion). Statements named by db/prepared.ts run prepared.
 */
export interface PgDirect {
  query(sqlText: string, parameters: readonly unknown[]): Promise<unknown[]>;
}

const pgHandles = new WeakMap<object, PgDirect>();

/** Registers the pool behind the Kysely handle `db` (db/connect.ts). */
export function registerPgDirect(db: object, direct: PgDirect): void {
  pgHandles.set(db, direct);
}

/** The direct access to the pool behind the PostgreSQL handle `db`; undefined for any other handle (a transaction's included). */
export function pgDirect(db: object): PgDirect | undefined {
  return pgHandles.get(db);
}
