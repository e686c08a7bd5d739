/**
 * `tipjar backup` and `tipjar restore` (docs/operations.md "Backups and restores",
 * docs/adr/0028-backups.md): the engine of DATABASE_URL chooses how (sqlite.ts, postgres.ts).
 * A backup file is a SQLite database or a pg_dump custom-format archive, written with mode 0600
 * and never left half-written under its name; a restore goes into an empty database (or, with
 * `force`, keeps the one with data aside) and ends with this version's migrations.
 */
import { existsSync, statSync } from 'node:fs';
import { sqlitePath } from '../connect.ts';
import { BackupError, backupKind } from './files.ts';
import type { BackupReport, RestoreReport } from './types.ts';

export { BackupError } from './files.ts';
export type { BackupReport, RestoreReport, RowCounts } from './types.ts';

export interface BackupOptions {
  /** replace an existing backup file (backup); restore over a database with data, keeping it aside (restore) */
  force: boolean;
  /** the PG_BIN setting: the folder of pg_dump, pg_restore and psql (PostgreSQL only) */
  pgBin?: string;
  /** called when another process holds the migration lock and this one waits (PostgreSQL: a sentence for stderr) */
  onWait?: (message: string) => void;
}

/**
 * Backs up the database of `url` (DATABASE_URL) into `file` while servers use it.
 * @returns what was written
 * @throws BackupError (a message for the operator) when it cannot or may not; nothing is written then
 */
export async function backupDatabase(url: string, file: string, options: BackupOptions): Promise<BackupReport> {
  if (url.startsWith('sqlite:')) {
    const { backupSqlite } = await import('./sqlite.ts');
    return backupSqlite(sqlitePath(url), file, options);
  }
  const { backupPostgres } = await import('./postgres.ts');
  return backupPostgres(url, file, options);
}

/**
 * Restores the backup `file` into the database of `url` (DATABASE_URL), then migrates it to this
 * version. Stop every process using the database first.
 * @returns what was restored
 * @throws BackupError (a message for the operator) when it cannot or may not; the database is
 *   left as it was then
 */
export async function restoreDatabase(url: string, file: string, options: BackupOptions): Promise<RestoreReport> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new BackupError(`no such file: ${file}`);
  const engine = url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
  const kind = backupKind(file);
  if (kind === 'unknown')
    throw new BackupError(
      `${file} is not a Tipjar backup (neither a SQLite database nor a pg_dump custom-format archive): nothing restored`,
    );
  if (kind !== engine)
    throw new BackupError(
      `${file} is a ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} backup and DATABASE_URL is ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: a backup is restored on the engine it was made on; nothing restored`,
    );
  if (engine === 'sqlite') {
    const { restoreSqlite } = await import('./sqlite.ts');
    return restoreSqlite(sqlitePath(url), file, options);
  }
  const { restorePostgres } = await import('./postgres.ts');
  return restorePostgres(url, file, options);
}
