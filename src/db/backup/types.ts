/** What `tipjar backup` and `tipjar restore` report (src/db/backup/index.ts). */
import type { Engine } from '../connect.ts';

/** Rows of the main tables, for the operator to compare a backup with its restore. */
export interface RowCounts {
  users: number;
  things: number;
  tips: number;
}

export interface BackupReport {
  engine: Engine;
  /** absolute path of the backup written */
  file: string;
  /** its size, bytes */
  bytes: number;
  /** time of the copy itself (SQLite: the backup step; PostgreSQL: pg_dump), milliseconds */
  ms: number;
  /** the migrations applied to the database backed up, in order */
  migrations: string[];
  /** SQLite: rows in the backup; PostgreSQL: not counted (the dump's snapshot is pg_dump's own) */
  counts?: RowCounts;
  /** PostgreSQL: the schema backed up */
  schema?: string;
}

export interface RestoreReport {
  engine: Engine;
  /** the backup restored */
  file: string;
  /** SQLite: the database file; PostgreSQL: `database, schema "name"` */
  target: string;
  /** the migrations the backup had */
  backupMigrations: string[];
  /** the migrations applied after the restore, to bring it to this version */
  applied: string[];
  /** rows restored */
  counts: RowCounts;
  /** with `force` over data: where the previous database (file or schema) was kept */
  keptAside?: string;
}
