/**
 * Backup commands of `tipjar`: `backup <file>` and `restore <file>` (src/db/backup, docs/operations.md
 * "Backups and restores"). Registered on the program by cli/main.ts; each action imports what it
 * runs when it runs. Neither migrates the database first as the other commands do: a backup
 * changes nothing, and a restore migrates what it restored.
 */
import type { Command } from 'commander';
import type { Config } from '../config/index.ts';
import { DomainError } from '../domain/errors.ts';

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const onWait = (message: string) => process.stderr.write(`tipjar: ${message}\n`);

/**
 * Runs `fn`, turning a refusal of the backup module, and a failure of the file system (no
 * permission, a full disk), into a DomainError: printed as `error: …`, exit 1.
 */
async function refusalsAsErrors<T>(fn: () => Promise<T>): Promise<T> {
  const { BackupError } = await import('../db/backup/index.ts');
  try {
    return await fn();
  } catch (err) {
    if (err instanceof BackupError) throw new DomainError('invalid_parameters', err.message);
    if (err instanceof Error && 'syscall' in err) throw new DomainError('invalid_parameters', err.message);
    throw err;
  }
}

export function registerBackupCommands(program: Command, config: () => Config): void {
  program
    .command('backup <file>')
    .description(
      'write a consistent backup of the database while it serves (SQLite: online backup; PostgreSQL: pg_dump -Fc), mode 0600',
    )
    .option('--force', 'replace <file> if it exists')
    .action(async (file: string, opts: { force?: boolean }) => {
      const cfg = config();
      const { backupDatabase } = await import('../db/backup/index.ts');
      const r = await refusalsAsErrors(() =>
        backupDatabase(cfg.databaseUrl, file, { force: opts.force === true, pgBin: cfg.pgBin, onWait }),
      );
      const what = r.counts
        ? `${r.counts.users} users, ${r.counts.things} things, ${r.counts.tips} tips`
        : `schema "${r.schema}"`;
      console.log(
        `backed up ${what} (${r.migrations.length} migrations, the last ${r.migrations.at(-1) ?? 'none'}) to ${r.file}: ${megabytes(r.bytes)} in ${seconds(r.ms)}`,
      );
    });

  program
    .command('restore <file>')
    .description(
      'restore a backup into an empty database (stop the servers first), then apply this version’s migrations',
    )
    .option('--force', 'restore over a database that holds data, keeping it aside (renamed)')
    .action(async (file: string, opts: { force?: boolean }) => {
      const cfg = config();
      const { restoreDatabase } = await import('../db/backup/index.ts');
      const r = await refusalsAsErrors(() =>
        restoreDatabase(cfg.databaseUrl, file, { force: opts.force === true, pgBin: cfg.pgBin, onWait }),
      );
      if (r.keptAside) console.log(`the previous database is kept as ${r.keptAside}`);
      console.log(
        `restored ${file} into ${r.target}: ${r.counts.users} users, ${r.counts.things} things, ${r.counts.tips} tips; ` +
          `${r.backupMigrations.length} migrations in the backup${r.applied.length ? `, applied now: ${r.applied.join(', ')}` : ', none to apply'}`,
      );
      console.log('check it with `tipjar ledger check`');
    });
}
