/**
 * Migrations run once across processes (src/db/migrate.ts; docs/operations.md "Zero-downtime
 * deploys"): several `tipjar migrate` processes started on one fresh database all wait for the
 * migration lock (PostgreSQL: the advisory lock; SQLite: the write lock), here held by the test
 * until every one of them says it waits, then race for it. Each migration must be applied exactly
 * once, every process must succeed, and the schema must be the one a single process makes. A
 * database a newer Tipjar migrated is refused with a message naming the unknown migration.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { createDatabaseUrl, ENGINES } from '../helpers/db.ts';
import { BIN, ROOT, exited, until, waitForExit } from '../helpers/processes.ts';
import { MIGRATION_NAMES, MIGRATION_TABLE, migrationLockKey } from '../../src/db/migrate.ts';
import { sqlitePath, type Engine } from '../../src/db/connect.ts';

const run = promisify(execFile);
const MIGRATORS = 4;

/** The schema of a database as comparable text: tables, columns, indexes, triggers (no schema names). */
async function schemaOf(engine: Engine, url: string): Promise<string[]> {
  if (engine === 'sqlite') {
    const db = new BetterSqlite3(sqlitePath(url), { readonly: true });
    try {
      return (
        db
          .prepare(
            `select type || ' ' || name || ': ' || coalesce(sql, '') as s from sqlite_master order by type, name`,
          )
          .pluck()
          .all() as string[]
      ).slice();
    } finally {
      db.close();
    }
  }
  const schema = new URL(url).searchParams.get('schema')!;
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    const columns = await client.query<{ s: string }>(
      `select table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as s
       from information_schema.columns where table_schema = $1 order by table_name, ordinal_position`,
      [schema],
    );
    const indexes = await client.query<{ s: string }>(
      `select replace(indexdef, $1 || '.', '') as s from pg_indexes where schemaname = $1 order by indexname`,
      [schema],
    );
    const triggers = await client.query<{ s: string }>(
      `select event_object_table || ' ' || trigger_name || ' ' || event_manipulation as s
       from information_schema.triggers where trigger_schema = $1 order by 1`,
      [schema],
    );
    return [...columns.rows, ...indexes.rows, ...triggers.rows].map((r) => r.s.replaceAll(`${schema}.`, ''));
  } finally {
    await client.end();
  }
}

async function appliedNames(engine: Engine, url: string): Promise<string[]> {
  if (engine === 'sqlite') {
    const db = new BetterSqlite3(sqlitePath(url), { readonly: true });
    try {
      return (db.prepare(`select name from ${MIGRATION_TABLE} order by name`).pluck().all() as string[]).slice();
    } finally {
      db.close();
    }
  }
  const schema = new URL(url).searchParams.get('schema')!;
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return (
      await client.query<{ name: string }>(`select name from ${schema}.${MIGRATION_TABLE} order by name`)
    ).rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

/** Holds the migration lock of the database at `url` until `release` is called. */
async function holdMigrationLock(engine: Engine, url: string): Promise<{ release(): Promise<void> }> {
  if (engine === 'sqlite') {
    const db = new BetterSqlite3(sqlitePath(url));
    db.pragma('journal_mode = WAL');
    db.exec('begin immediate');
    return {
      release: async () => {
        db.exec('rollback');
        db.close();
      },
    };
  }
  const schema = new URL(url).searchParams.get('schema')!;
  const [classId, objId] = migrationLockKey(schema);
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  await client.query('select pg_advisory_lock($1, $2)', [classId, objId]);
  return {
    release: async () => {
      await client.query('select pg_advisory_unlock($1, $2)', [classId, objId]);
      await client.end();
    },
  };
}

describe.each(ENGINES)('migrations once across processes on %s', (engine) => {
  const children = new Set<ChildProcess>();
  const removals: (() => Promise<void>)[] = [];

  afterAll(async () => {
    for (const child of children) {
      if (!exited(child)) child.kill('SIGKILL');
      await waitForExit(child);
    }
    for (const remove of removals) await remove();
  });

  async function freshUrl(): Promise<string> {
    const { url, remove } = await createDatabaseUrl(engine);
    removals.push(remove);
    return url;
  }

  it(
    `applies each migration exactly once when ${MIGRATORS} processes migrate a fresh database at once`,
    { timeout: 120_000 },
    async () => {
      const url = await freshUrl();
      const lock = await holdMigrationLock(engine, url);
      const outputs: { out: string; code: number | null }[] = [];
      const migrators = Array.from({ length: MIGRATORS }, (_, i) => {
        const child = spawn(process.execPath, [BIN, 'migrate'], {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: url },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.add(child);
        const o = (outputs[i] = { out: '', code: null as number | null });
        child.stdout!.on('data', (d: Buffer) => (o.out += d.toString()));
        child.stderr!.on('data', (d: Buffer) => (o.out += d.toString()));
        child.once('exit', (code) => (o.code = code));
        return child;
      });
      const waiting =
        engine === 'sqlite'
          ? "waiting for the database's write lock"
          : "waiting for another process's schema migrations";
      // Every process has found migrations pending and waits for the lock the test holds.
      await until(
        `all ${MIGRATORS} migrators to wait for the lock:\n${outputs.map((o) => o.out).join('\n')}`,
        () => {
          const dead = outputs.find((o) => o.code !== null);
          if (dead) throw new Error(`a migrator exited before the lock was released:\n${dead.out}`);
          return outputs.every((o) => o.out.includes(waiting));
        },
        60_000,
      );
      await lock.release();
      await Promise.all(migrators.map(waitForExit));

      expect(
        outputs.map((o) => o.code),
        outputs.map((o) => o.out).join('\n---\n'),
      ).toEqual(Array(MIGRATORS).fill(0));
      const appliers = outputs.filter((o) => /^applied: /m.test(o.out));
      expect(appliers).toHaveLength(1);
      expect(appliers[0]!.out).toContain(`applied: ${MIGRATION_NAMES.join(', ')}`);
      expect(outputs.filter((o) => o.out.includes('database is up to date'))).toHaveLength(MIGRATORS - 1);
      // one row per migration, each once
      expect(await appliedNames(engine, url)).toEqual([...MIGRATION_NAMES]);

      // the same schema as one process alone makes
      const reference = await freshUrl();
      await run(process.execPath, [BIN, 'migrate'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: reference } });
      const raced = await schemaOf(engine, url);
      expect(raced.length).toBeGreaterThan(20);
      expect(raced).toEqual(await schemaOf(engine, reference));
    },
  );

  it(
    'refuses a database a newer Tipjar migrated, naming the migration it does not know',
    { timeout: 60_000 },
    async () => {
      const url = await freshUrl();
      await run(process.execPath, [BIN, 'migrate'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url } });
      if (engine === 'sqlite') {
        const db = new BetterSqlite3(sqlitePath(url));
        db.prepare(`insert into ${MIGRATION_TABLE} (name, timestamp) values ('9999_from_the_future', 'now')`).run();
        db.close();
      } else {
        const schema = new URL(url).searchParams.get('schema')!;
        const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await client.connect();
        await client.query(
          `insert into ${schema}.${MIGRATION_TABLE} (name, timestamp) values ('9999_from_the_future', 'now')`,
        );
        await client.end();
      }
      const r = await run(process.execPath, [BIN, 'migrate'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: url },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => err,
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('the database was migrated by a newer version of Tipjar');
      expect(r.stderr).toContain('9999_from_the_future');
    },
  );
});
