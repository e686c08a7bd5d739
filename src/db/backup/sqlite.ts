/**
 * Backup and restore of a SQLite database (docs/adr/0028-backups.md).
 *
 * Backup: SQLite's online backup API (better-sqlite3 `backup()`) from a read-only connection,
 * copying every page in one step, i.e. in one read transaction: the copy is the database as last
 * committed when the step began, whatever the server commits meanwhile (WAL mode: the server's
 * writes do not wait for it). The copy is a plain database file (rollback journal, no -wal file).
 *
 * Restore: the backup is copied next to the database, checked (a Tipjar database, migrations this
 * version knows, `PRAGMA integrity_check`, `PRAGMA foreign_key_check`), migrated to this version,
 * and only then moved under the database's name in one rename. The database it replaces must hold
 * no data (else `force`: it is kept aside, renamed) and no process may have it open.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../connect.ts';
import { migrateToLatest, MIGRATION_NAMES, MIGRATION_TABLE } from '../migrate.ts';
import { BOOKKEEPING_TABLES, TIPJAR_TABLES } from './tables.ts';
import {
  BackupError,
  checkDestination,
  createTempFile,
  PRIVATE_FILE_MODE,
  publish,
  removeQuietly,
  stamp,
  syncFile,
} from './files.ts';
import type { BackupReport, RestoreReport, RowCounts } from './types.ts';

/** Pages per backup step: all of them, so the copy is made in one read transaction. */
const ALL_PAGES = 0x7fffffff;
/** Most problems of `integrity_check` quoted in a refusal. */
const QUOTED_PROBLEMS = 5;

const sidecars = (path: string) => [`${path}-wal`, `${path}-shm`, `${path}-journal`];

function openReadOnly(path: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 10000');
  return db;
}

/** Ordinary tables of the main database (not SQLite's own, not FTS5's virtual and shadow tables). */
function ordinaryTables(db: BetterSqlite3.Database): string[] {
  const rows = db.prepare(`pragma main.table_list`).all() as { name: string; type: string }[];
  return rows.filter((r) => r.type === 'table' && !r.name.startsWith('sqlite_')).map((r) => r.name);
}

/** The Tipjar tables `db` lacks (empty for a Tipjar database). */
function missingTipjarTables(db: BetterSqlite3.Database): string[] {
  const tables = new Set(ordinaryTables(db));
  return TIPJAR_TABLES.filter((t) => !tables.has(t));
}

function migrationsOf(db: BetterSqlite3.Database): string[] {
  return (db.prepare(`select name from ${MIGRATION_TABLE} order by name`).pluck().all() as string[]).slice();
}

function countsOf(db: BetterSqlite3.Database): RowCounts {
  const count = (table: string) => db.prepare(`select count(*) from "${table}"`).pluck().get() as number;
  return { users: count('users'), things: count('things'), tips: count('tips') };
}

/** Whether any ordinary table other than the bookkeeping (BOOKKEEPING_TABLES) has a row. */
function holdsData(db: BetterSqlite3.Database): boolean {
  return ordinaryTables(db)
    .filter((t) => !BOOKKEEPING_TABLES.includes(t))
    .some((t) => db.prepare(`select 1 from "${t.replace(/"/g, '""')}" limit 1`).get() !== undefined);
}

/**
 * What is at a restore's target path: nothing (no file, an empty file, a database without tables),
 * a Tipjar database without data (e.g. migrated by a start, nobody signed up), or data (rows, or a
 * database or file that is not Tipjar's).
 */
function targetState(path: string): { state: 'absent' | 'unused' | 'data'; why?: string } {
  if (!existsSync(path) || statSync(path).size === 0) return { state: 'absent' };
  let db: BetterSqlite3.Database | undefined;
  try {
    db = openReadOnly(path);
    const tables = ordinaryTables(db);
    if (tables.length === 0) return { state: 'absent' };
    if (missingTipjarTables(db).length) return { state: 'data', why: 'it is a database that is not Tipjar’s' };
    if (holdsData(db)) {
      const c = countsOf(db);
      return { state: 'data', why: `it holds data (${c.users} users, ${c.things} things, ${c.tips} tips)` };
    }
    return { state: 'unused' };
  } catch (err) {
    return { state: 'data', why: `it is not a SQLite database we can read (${(err as Error).message})` };
  } finally {
    db?.close();
  }
}

/**
 * Backs up the SQLite database at `dbPath` into `file` while other processes (the server) read
 * and write it.
 * @returns what was written (size, time, migrations, row counts)
 * @throws BackupError when there is no database at `dbPath`, it is not a Tipjar database, or `file`
 *   may not be written (exists without `force`, no such folder, the database itself); nothing is
 *   written then, and no temporary file is left on any failure
 */
export async function backupSqlite(dbPath: string, file: string, options: { force: boolean }): Promise<BackupReport> {
  if (dbPath === ':memory:')
    throw new BackupError('DATABASE_URL is an in-memory database: there is nothing to back up');
  if (!existsSync(dbPath)) throw new BackupError(`no database at ${dbPath} (DATABASE_URL)`);
  const target = checkDestination(file, { replace: options.force, protect: [dbPath, ...sidecars(dbPath)] });
  const source = openReadOnly(dbPath);
  try {
    const missing = missingTipjarTables(source);
    if (missing.length)
      throw new BackupError(
        `${dbPath} is not a Tipjar database (it has no ${missing.join(', ')} table): nothing written`,
      );
    const temp = createTempFile(target);
    try {
      const started = performance.now();
      await source.backup(temp, { progress: () => ALL_PAGES });
      const ms = performance.now() - started;
      const copy = new BetterSqlite3(temp);
      let migrations: string[];
      let counts: RowCounts;
      try {
        // A file of its own: the copy keeps the source's WAL flag in its header otherwise.
        copy.pragma('journal_mode = DELETE');
        migrations = migrationsOf(copy);
        counts = countsOf(copy);
      } finally {
        copy.close();
      }
      chmodSync(temp, PRIVATE_FILE_MODE);
      syncFile(temp);
      publish(temp, target, { replace: options.force });
      return { engine: 'sqlite', file: target, bytes: statSync(target).size, ms, migrations, counts };
    } finally {
      removeQuietly(temp, ...sidecars(temp));
    }
  } finally {
    source.close();
  }
}

/**
 * Checks a SQLite backup: a Tipjar database whose migrations this version knows.
 * @returns its migrations
 * @throws BackupError saying what is wrong
 */
function checkSqliteBackup(file: string): string[] {
  let db: BetterSqlite3.Database;
  try {
    db = openReadOnly(file);
  } catch (err) {
    throw new BackupError(`${file} cannot be read as a SQLite database (${(err as Error).message}): nothing restored`);
  }
  try {
    const missing = missingTipjarTables(db);
    if (missing.length)
      throw new BackupError(`${file} is not a Tipjar backup (it has no ${missing.join(', ')} table): nothing restored`);
    const migrations = migrationsOf(db);
    const unknown = migrations.filter((m) => !MIGRATION_NAMES.includes(m));
    if (unknown.length)
      throw new BackupError(
        `${file} was made by a newer version of Tipjar (migrations unknown to this version: ${unknown.join(', ')}): restore it with that version or a later one; nothing restored`,
      );
    return migrations;
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`${file} cannot be read as a SQLite database (${(err as Error).message}): nothing restored`);
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check` and `foreign_key_check` of a database file. @throws BackupError quoting the problems */
function checkIntegrity(path: string, file: string): void {
  const db = new BetterSqlite3(path, { fileMustExist: true });
  try {
    const problems = db.prepare('pragma integrity_check').pluck().all() as string[];
    if (problems.length !== 1 || problems[0] !== 'ok')
      throw new BackupError(
        `${file} is damaged (integrity_check: ${problems.slice(0, QUOTED_PROBLEMS).join('; ')}${problems.length > QUOTED_PROBLEMS ? '; …' : ''}): nothing restored`,
      );
    const orphans = db.prepare('pragma foreign_key_check').all() as { table: string; parent: string }[];
    if (orphans.length)
      throw new BackupError(
        `${file} is inconsistent (${orphans.length} rows refer to missing rows, e.g. in ${orphans[0]!.table} to ${orphans[0]!.parent}): nothing restored`,
      );
  } finally {
    db.close();
  }
}

/**
 * Refuses when another connection has the database at `path` open (a server, a command): SQLite
 * lets a database leave WAL mode only when no other connection has it open. Leaves the file in
 * rollback-journal mode (a server sets WAL again when it opens it). A file that is not a SQLite
 * database passes (nothing can have it open as one).
 * @throws BackupError when it is in use
 */
function checkNotInUse(path: string): void {
  const db = new BetterSqlite3(path, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    let mode: unknown;
    try {
      mode = db.pragma('journal_mode = DELETE', { simple: true });
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      // Not a database SQLite can open (a file replaced with --force): nobody uses it as one.
      if (!code.startsWith('SQLITE_BUSY') && !code.startsWith('SQLITE_LOCKED')) return;
      mode = 'busy';
    }
    if (mode !== 'delete')
      throw new BackupError(
        `${path} is in use by another process (a running server or command): stop every process using it, then restore; nothing restored`,
      );
  } finally {
    db.close();
  }
}

/**
 * Restores the SQLite backup `file` as the database at `dbPath` (see the module's comment).
 * @returns what was restored (migrations of the backup, those applied now, row counts, where a
 *   replaced database was kept)
 * @throws BackupError when `file` is not a readable Tipjar backup of a version this one can
 *   migrate, is damaged, or the target holds data (without `force`) or is in use; the target is
 *   left as it was then
 */
export async function restoreSqlite(dbPath: string, file: string, options: { force: boolean }): Promise<RestoreReport> {
  if (dbPath === ':memory:') throw new BackupError('DATABASE_URL is an in-memory database: restore into a file');
  const backupMigrations = checkSqliteBackup(file);
  const before = targetState(dbPath);
  if (before.state === 'data' && !options.force)
    throw new BackupError(
      `not restored: ${dbPath} (DATABASE_URL) is not empty: ${before.why}. Restore into a new DATABASE_URL, or pass --force to keep the present database aside (renamed) and restore in its place`,
    );
  if (before.state !== 'absent') checkNotInUse(dbPath);
  mkdirSync(dirname(dbPath), { recursive: true });
  const temp = createTempFile(dbPath);
  try {
    const backup = openReadOnly(file);
    try {
      await backup.backup(temp, { progress: () => ALL_PAGES });
    } finally {
      backup.close();
    }
    checkIntegrity(temp, file);
    const database = await openDatabase(`sqlite:${temp}`, { sqliteOptimizeIntervalMs: 0 });
    let applied: string[];
    let counts: RowCounts;
    try {
      applied = await migrateToLatest(database);
    } finally {
      await database.close();
    }
    const copy = new BetterSqlite3(temp, { fileMustExist: true });
    try {
      // One file to move: the log checkpointed into it and removed.
      copy.pragma('journal_mode = DELETE');
      counts = countsOf(copy);
    } finally {
      copy.close();
    }
    chmodSync(temp, PRIVATE_FILE_MODE);
    syncFile(temp);

    let keptAside: string | undefined;
    if (existsSync(dbPath)) {
      const now = targetState(dbPath);
      if (now.state === 'data' && !options.force)
        throw new BackupError(`not restored: ${dbPath} received data meanwhile (${now.why}); nothing restored`);
      if (statSync(dbPath).size > 0) checkNotInUse(dbPath);
      if (now.state === 'data') {
        keptAside = `${dbPath}.before-restore-${stamp()}`;
        for (let n = 2; existsSync(keptAside); n++) keptAside = `${dbPath}.before-restore-${stamp()}-${n}`;
        renameSync(dbPath, keptAside);
      } else {
        removeQuietly(dbPath);
      }
      removeQuietly(...sidecars(dbPath));
    }
    publish(temp, dbPath, { replace: true });
    return {
      engine: 'sqlite',
      file,
      target: dbPath,
      backupMigrations,
      applied,
      counts,
      ...(keptAside ? { keptAside } : {}),
    };
  } finally {
    removeQuietly(temp, ...sidecars(temp));
  }
}
