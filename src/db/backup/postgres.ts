/**
 * Backup and restore of Tipjar's PostgreSQL schema with PostgreSQL's own programs
 * (docs/adr/0028-backups.md; which programs: pg-tools.ts).
 *
 * Backup: `pg_dump --format=custom --schema=<schema>` (the `?schema=` of DATABASE_URL, else the
 * connection's current schema, normally `public`), with the database's extensions, which a
 * schema's dump leaves out. pg_dump reads one snapshot: the archive is the schema as committed
 * when it began. Meanwhile Tipjar's migration lock is held, so no instance migrates during the dump
 * (its ALTER TABLE would wait for pg_dump's locks and hold up every query behind it).
 *
 * Restore: the archive's schema must be the one DATABASE_URL points at (pg_dump's archives name
 * their schema). Under the migration lock, `pg_restore --no-owner --no-privileges` writes the
 * archive's SQL into `psql`, in one transaction that first makes the schema ready: created when
 * missing; emptied when it holds Tipjar's tables without data; renamed aside with `force` when it
 * holds data. Any error rolls the whole transaction back. Then the migrations of this version run
 * and the tables are analysed (pg_restore does not restore planner statistics).
 */
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type Database } from '../connect.ts';
import { MIGRATION_NAMES, MIGRATION_TABLE, migrateLocked, withMigrationLock } from '../migrate.ts';
import type { DB } from '../schema.ts';
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
import { checkPgBin, connectionOf, findPgProgram, quoteIdent, runProgram, serverMajorOf } from './pg-tools.ts';
import type { BackupReport, RestoreReport, RowCounts } from './types.ts';

/** Lines of the programs' error output quoted in a failure. */
const QUOTED_LINES = 12;

export interface PostgresOptions {
  force: boolean;
  /** the PG_BIN setting: the folder of pg_dump, pg_restore and psql */
  pgBin?: string;
  /** called when another process holds the migration lock and this one waits */
  onWait?: (message: string) => void;
}

interface Server {
  major: string;
  database: string;
  /** the schema DATABASE_URL points at */
  schema: string;
}

async function serverOf(database: Database): Promise<Server> {
  let row: { v: number; d: string; s: string | null };
  try {
    row = (
      await sql<{ v: number; d: string; s: string | null }>`
        select current_setting('server_version_num')::int as v, current_database() as d, current_schema() as s`.execute(
        database.db,
      )
    ).rows[0]!;
  } catch (err) {
    throw new BackupError(`cannot reach the database of DATABASE_URL: ${(err as Error).message}`);
  }
  const schema = database.schema ?? row.s;
  if (!schema)
    throw new BackupError(
      'DATABASE_URL names no schema and the connection has no current schema (search_path): add ?schema=<name>',
    );
  return { major: serverMajorOf(row.v), database: row.d, schema };
}

const describe = (s: Server) => `schema "${s.schema}" of database ${s.database}`;

/** The last lines of a program's error output, for a message. */
function quote(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  return (lines.length > QUOTED_LINES ? ['…', ...lines.slice(-QUOTED_LINES)] : lines).join('\n  ');
}

/** What a custom-format archive holds, from `pg_restore --list` and its migration table. */
interface Archive {
  /** the schema holding the Tipjar tables */
  schema: string;
  migrations: string[];
  /** the table of contents, one entry a line, as `--use-list` reads it */
  toc: string[];
  /** `Archive created at …` */
  createdAt?: string;
}

/**
 * Reads an archive's table of contents and migrations.
 * @throws BackupError when pg_restore cannot read it or it holds no Tipjar schema
 */
async function readArchive(pgRestore: string, file: string): Promise<Archive> {
  const list = await runProgram(pgRestore, ['--list', file]);
  if (list.code !== 0)
    throw new BackupError(
      `${file} is not an archive ${pgRestore} can read:\n  ${quote(list.stderr)}\nnothing restored`,
    );
  const toc = list.stdout.split('\n');
  const tables = new Map<string, Set<string>>();
  for (const line of toc) {
    const m = /^\d+; \d+ \d+ TABLE (?!DATA )(\S+) (\S+) /.exec(line);
    if (m) tables.set(m[1]!, (tables.get(m[1]!) ?? new Set()).add(m[2]!));
  }
  const schema = [...tables].find(([, names]) => TIPJAR_TABLES.every((t) => names.has(t)))?.[0];
  if (schema === undefined)
    throw new BackupError(
      `${file} is not a Tipjar backup (no schema of it has the ${TIPJAR_TABLES.join(', ')} tables): nothing restored`,
    );
  const data = await runProgram(pgRestore, [
    '--data-only',
    `--schema=${schema}`,
    `--table=${MIGRATION_TABLE}`,
    '--file=-',
    file,
  ]);
  if (data.code !== 0)
    throw new BackupError(
      `${file}: pg_restore cannot read its migration table:\n  ${quote(data.stderr)}\nnothing restored`,
    );
  const migrations: string[] = [];
  let inCopy = false;
  for (const line of data.stdout.split('\n')) {
    if (/^COPY .* FROM stdin;$/.test(line)) inCopy = true;
    else if (line === '\\.') inCopy = false;
    else if (inCopy && line) migrations.push(line.split('\t')[0]!);
  }
  const createdAt = /^; Archive created at (.+)$/m.exec(list.stdout)?.[1];
  return { schema, migrations: migrations.sort(), toc, ...(createdAt ? { createdAt } : {}) };
}

/**
 * Backs up the schema of `url` into `file` with pg_dump, while the servers read and write it.
 * @returns what was written (size, pg_dump's time, the migrations in the archive, the schema)
 * @throws BackupError when the schema holds no Tipjar database, pg_dump/pg_restore is missing or of
 *   another major version than the server, pg_dump fails, or `file` may not be written (exists
 *   without `force`, no such folder); nothing is written then, and no temporary file is left
 */
export async function backupPostgres(url: string, file: string, options: PostgresOptions): Promise<BackupReport> {
  const target = checkDestination(file, { replace: options.force });
  const pgBin = checkPgBin(options.pgBin);
  const database = await openDatabase(url, { poolSize: 2 });
  try {
    const server = await serverOf(database);
    const missing = await missingTipjarTables(database.db, server.schema);
    if (missing.length)
      throw new BackupError(
        `${describe(server)} is not a Tipjar database (it has no ${missing.join(', ')} table): nothing written`,
      );
    const pgDump = await findPgProgram('pg_dump', server.major, pgBin);
    const pgRestore = await findPgProgram('pg_restore', server.major, pgBin);
    const extensions = (
      await sql<{
        name: string;
      }>`select extname as name from pg_extension where extname <> 'plpgsql' order by 1`.execute(database.db)
    ).rows.map((r) => r.name);
    const { dbname, env } = connectionOf(url);
    const temp = createTempFile(target);
    try {
      const started = performance.now();
      const dump = await withMigrationLock(database, { onWait: options.onWait }, () =>
        runProgram(
          pgDump,
          [
            '--format=custom',
            `--file=${temp}`,
            `--schema=${quoteIdent(server.schema)}`,
            ...extensions.map((e) => `--extension=${quoteIdent(e)}`),
            '--no-password',
            `--dbname=${dbname}`,
          ],
          { env },
        ),
      );
      const ms = performance.now() - started;
      if (dump.code !== 0)
        throw new BackupError(`pg_dump failed (exit ${dump.code}):\n  ${quote(dump.stderr)}\nnothing written`);
      const archive = await readArchive(pgRestore, temp);
      chmodSync(temp, PRIVATE_FILE_MODE);
      syncFile(temp);
      publish(temp, target, { replace: options.force });
      return {
        engine: 'postgres',
        file: target,
        bytes: statSync(target).size,
        ms,
        migrations: archive.migrations,
        schema: server.schema,
      };
    } finally {
      removeQuietly(temp);
    }
  } finally {
    await database.close();
  }
}

async function missingTipjarTables(db: Kysely<DB>, schema: string): Promise<string[]> {
  const rows = await sql<{ name: string }>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'p')`.execute(db);
  const present = new Set(rows.rows.map((r) => r.name));
  return TIPJAR_TABLES.filter((t) => !present.has(t));
}

/**
 * The state of the schema a restore writes into: missing; without objects; Tipjar's tables without
 * data (e.g. created by a start, nobody signed up); or data (rows in a table other than the
 * bookkeeping, BOOKKEEPING_TABLES, or objects that are not Tipjar's).
 */
async function schemaState(
  db: Kysely<DB>,
  schema: string,
): Promise<{ state: 'absent' | 'empty' | 'unused' | 'data'; why?: string }> {
  const ns = (
    await sql<{ oid: number }>`select oid::int as oid from pg_namespace where nspname = ${schema}`.execute(db)
  ).rows[0];
  if (!ns) return { state: 'absent' };
  const relations = (
    await sql<{ name: string; kind: string }>`
      select relname as name, relkind::text as kind from pg_class
      where relnamespace = ${ns.oid} and relkind in ('r', 'p', 'v', 'm', 'f', 'S')`.execute(db)
  ).rows;
  const routines = Number(
    (await sql<{ n: number }>`select count(*)::int as n from pg_proc where pronamespace = ${ns.oid}`.execute(db))
      .rows[0]?.n ?? 0,
  );
  if (relations.length === 0 && routines === 0) return { state: 'empty' };
  const tables = relations.filter((r) => r.kind === 'r' || r.kind === 'p').map((r) => r.name);
  if (!tables.includes(MIGRATION_TABLE))
    return {
      state: 'data',
      why: `it holds objects that are not Tipjar's (${relations.length} relations, ${routines} functions)`,
    };
  for (const table of tables.filter((t) => !BOOKKEEPING_TABLES.includes(t))) {
    const row = await sql<{ one: number }>`select 1 as one from ${sql.table(`${schema}.${table}`)} limit 1`.execute(db);
    if (row.rows.length) {
      const counts = await countRows(db, schema).catch(() => undefined);
      return {
        state: 'data',
        why: counts
          ? `it holds data (${counts.users} users, ${counts.things} things, ${counts.tips} tips)`
          : `it holds data (table ${table})`,
      };
    }
  }
  return { state: 'unused' };
}

async function countRows(db: Kysely<DB>, schema: string): Promise<RowCounts> {
  const count = async (table: string) =>
    Number(
      (await sql<{ n: number }>`select count(*)::bigint as n from ${sql.table(`${schema}.${table}`)}`.execute(db))
        .rows[0]?.n ?? 0,
    );
  return { users: await count('users'), things: await count('things'), tips: await count('tips') };
}

/**
 * SQL run in the restore's transaction before the archive's: makes the schema ready for it.
 * `aside`: the name the schema is renamed to when it holds data (with `force`).
 */
function preparation(schema: string, state: 'absent' | 'empty' | 'unused' | 'data', aside: string): string {
  const q = quoteIdent(schema);
  const literal = `'${schema.replace(/'/g, "''")}'`;
  switch (state) {
    case 'absent':
      return `create schema ${q};\n`;
    case 'empty':
      return '';
    case 'unused':
      // Tipjar's tables without data: dropped with their sequences, then its functions.
      return `do $restore$
declare r record;
begin
  for r in select c.oid::regclass::text as name, c.relkind from pg_class c
           where c.relnamespace = ${literal}::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f') loop
    execute case r.relkind when 'v' then 'drop view if exists ' when 'm' then 'drop materialized view if exists '
      when 'f' then 'drop foreign table if exists ' else 'drop table if exists ' end || r.name || ' cascade';
  end loop;
  for r in select c.oid::regclass::text as name from pg_class c
           where c.relnamespace = ${literal}::regnamespace and c.relkind = 'S' loop
    execute 'drop sequence if exists ' || r.name || ' cascade';
  end loop;
  for r in select p.oid::regprocedure::text as name from pg_proc p where p.pronamespace = ${literal}::regnamespace loop
    execute 'drop routine if exists ' || r.name || ' cascade';
  end loop;
end
$restore$;\n`;
    case 'data':
      return `alter schema ${q} rename to ${quoteIdent(aside)};\ncreate schema ${q};\n`;
  }
}

/**
 * Streams `pg_restore --file=-` into `psql` between `prefix` and `commit;` (`rollback;` when
 * pg_restore fails). psql stops at the first error (ON_ERROR_STOP), which ends its transaction
 * without committing.
 * @returns whether both succeeded, and their error output
 */
function restoreThroughPsql(
  pgRestore: { path: string; args: string[] },
  psql: { path: string; args: string[] },
  env: NodeJS.ProcessEnv,
  prefix: string,
): Promise<{ ok: boolean; stderr: string }> {
  return new Promise((resolve, reject) => {
    const sink = spawn(psql.path, psql.args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
    const source = spawn(pgRestore.path, pgRestore.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const collect = (d: Buffer) => {
      if (stderr.length < 65_536) stderr += d.toString('utf8');
    };
    source.stderr.on('data', collect);
    sink.stderr.on('data', collect);
    sink.stdin.on('error', () => {
      // psql stopped at an error and closed its input: its exit code tells.
    });
    source.once('error', (e) => reject(new BackupError(`could not run ${pgRestore.path}: ${e.message}`)));
    sink.once('error', (e) => reject(new BackupError(`could not run ${psql.path}: ${e.message}`)));
    sink.stdin.write(prefix);
    source.stdout.pipe(sink.stdin, { end: false });
    let sourceCode: number | null | undefined;
    let sourceEnded = false;
    const finishInput = () => {
      if (sourceCode === undefined || !sourceEnded) return;
      sink.stdin.end(sourceCode === 0 ? 'commit;\n' : 'rollback;\n');
    };
    source.stdout.once('end', () => {
      sourceEnded = true;
      finishInput();
    });
    source.once('close', (code) => {
      sourceCode = code;
      sourceEnded = true;
      finishInput();
    });
    sink.once('close', (code) => {
      if (source.exitCode === null && source.signalCode === null) source.kill();
      const done = () => resolve({ ok: code === 0 && sourceCode === 0, stderr: stderr.trim() });
      if (sourceCode !== undefined) done();
      else source.once('close', done);
    });
  });
}

/**
 * Restores the archive `file` into the schema of `url` (see the module's comment).
 * @returns what was restored (migrations of the archive, those applied now, row counts, where a
 *   schema with data was kept)
 * @throws BackupError when the archive is not a Tipjar backup this version can migrate, names
 *   another schema than DATABASE_URL's, the schema holds data (without `force`), a program is
 *   missing or of another major version, or the restore fails (rolled back: nothing changed)
 */
export async function restorePostgres(url: string, file: string, options: PostgresOptions): Promise<RestoreReport> {
  const pgBin = checkPgBin(options.pgBin);
  const database = await openDatabase(url, { poolSize: 2 });
  try {
    const server = await serverOf(database);
    const pgRestore = await findPgProgram('pg_restore', server.major, pgBin);
    const psql = await findPgProgram('psql', server.major, pgBin);
    const archive = await readArchive(pgRestore, file);
    const unknown = archive.migrations.filter((m) => !MIGRATION_NAMES.includes(m));
    if (unknown.length)
      throw new BackupError(
        `${file} was made by a newer version of Tipjar (migrations unknown to this version: ${unknown.join(', ')}): restore it with that version or a later one; nothing restored`,
      );
    if (archive.schema !== server.schema)
      throw new BackupError(
        `${file} holds schema "${archive.schema}", and DATABASE_URL points at ${describe(server)}: an archive is restored into the schema it was taken from; ` +
          `set DATABASE_URL to ${archive.schema === 'public' ? 'a database without ?schema=' : `?schema=${archive.schema}`} (in a new database, or one where that schema is empty); nothing restored`,
      );
    const { dbname, env } = connectionOf(url);
    return await withMigrationLock(database, { onWait: options.onWait }, async (db) => {
      const before = await schemaState(db, server.schema);
      if (before.state === 'data' && !options.force)
        throw new BackupError(
          `not restored: ${describe(server)} is not empty: ${before.why}. Restore into a new database or schema, or pass --force to keep the present schema aside (renamed) and restore in its place`,
        );
      const aside = `${server.schema.slice(0, 40)}_before_restore_${stamp().toLowerCase()}`;
      // The archive makes no schema of its own (this restore does) and changes no schema's or
      // extension's comment (owned by others).
      const toc = archive.toc.map((line) =>
        /^\d+; \d+ \d+ (SCHEMA - |COMMENT - SCHEMA |COMMENT - EXTENSION )/.test(line) ? `;${line}` : line,
      );
      const list = join(tmpdir(), `tipjar-restore-${process.pid}-${Date.now()}.list`);
      writeFileSync(list, `${toc.join('\n')}\n`, { mode: PRIVATE_FILE_MODE });
      let result: { ok: boolean; stderr: string };
      try {
        result = await restoreThroughPsql(
          {
            path: pgRestore,
            args: ['--file=-', '--no-owner', '--no-privileges', `--use-list=${list}`, file],
          },
          {
            path: psql,
            args: ['--no-psqlrc', '--quiet', '--no-password', '--set=ON_ERROR_STOP=1', `--dbname=${dbname}`],
          },
          env,
          `set client_min_messages = warning;\nbegin;\nset local lock_timeout = '30s';\n${preparation(server.schema, before.state, aside)}`,
        );
      } finally {
        removeQuietly(list);
      }
      if (!result.ok)
        throw new BackupError(
          `restore failed; its transaction was rolled back, nothing changed:\n  ${quote(result.stderr)}`,
        );
      const applied = await migrateLocked(database, db);
      const tables = (
        await sql<{
          name: string;
        }>`select tablename as name from pg_tables where schemaname = ${server.schema}`.execute(db)
      ).rows;
      for (const t of tables) await sql`analyze ${sql.table(`${server.schema}.${t.name}`)}`.execute(db);
      return {
        engine: 'postgres' as const,
        file,
        target: describe(server),
        backupMigrations: archive.migrations,
        applied,
        counts: await countRows(db, server.schema),
        ...(before.state === 'data' ? { keptAside: `schema "${aside}"` } : {}),
      };
    });
  } finally {
    await database.close();
  }
}
