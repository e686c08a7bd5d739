/**
 * `tipjar backup` and `tipjar restore` for real (docs/operations.md "Backups and restores"): the
 * real server (`tipjar serve`) takes tips from many users while the test funds users through the
 * ledger (on SQLite with a long read holding the log's checkpoints back, so the rows the load
 * commits are in the write-ahead log only), and `tipjar backup` runs in the middle of it; the backup is restored into a fresh
 * database, `tipjar ledger check` passes on it, every tip the server acknowledged before the
 * backup began is there, nothing is there that was not acknowledged, the counters equal the rows,
 * and a server started on the restored database writes new rows. Then the refusals: each gives a
 * clear message and exit code 1 and changes nothing.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import { createDatabaseUrl, ENGINES } from '../helpers/db.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { exited, runTipjar, startTipjar, waitForExit } from '../helpers/processes.ts';
import { openDatabase, sqlitePath, type Database, type Engine } from '../../src/db/connect.ts';
import { MIGRATION_TABLE, migrateToLatest } from '../../src/db/migrate.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { fundUser } from '../../src/domain/users.ts';
import type { Services } from '../../src/domain/services.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';

const TIPPERS = 60;
const THINGS = 8;
const WORKERS = 12;
/** The backup starts once this many tips were acknowledged. */
const BACKUP_AFTER = 80;

/** Runs `tipjar …` with `env` over this process's environment (LOG_LEVEL warn). */
const cli = (env: Record<string, string | undefined>, ...args: string[]) =>
  runTipjar(args, { ...process.env, LOG_LEVEL: 'warn', ...env }, 120_000);

const services = (database: Database): Services => ({
  database,
  clock: systemClock,
  siteUrl: 'http://tipjar.test',
  passwordHashing: unboundedHashing,
});

const schemaOf = (url: string) => new URL(url).searchParams.get('schema');

/** The files of a folder other than `keep`: a backup must leave no temporary file behind. */
const strayFiles = (dir: string, keep: string[]) => readdirSync(dir).filter((f) => !keep.includes(f));

describe.each(ENGINES)('tipjar backup and restore on %s', (engine: Engine) => {
  const children = new Set<ChildProcess>();
  const cleanups: (() => Promise<void>)[] = [];
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tipjar-backup-test-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  });

  afterAll(async () => {
    for (const child of children) {
      if (!exited(child)) child.kill('SIGKILL');
      await waitForExit(child);
    }
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  /** A new empty database (URL only). */
  async function freshDatabase(): Promise<string> {
    const { url, remove } = await createDatabaseUrl(engine);
    cleanups.push(remove);
    return url;
  }

  /**
   * An empty database to restore into. PostgreSQL: a new database whose `?schema=` is the one the
   * backup was taken from (an archive names its schema), not yet created.
   */
  async function restoreTarget(sourceUrl: string): Promise<string> {
    if (engine === 'sqlite') return freshDatabase();
    const base = process.env.TEST_DATABASE_URL!;
    const name = `tipjar_restore_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    cleanups.push(async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    });
    const url = new URL(base);
    url.pathname = `/${name}`;
    url.searchParams.set('schema', schemaOf(sourceUrl)!);
    return url.toString();
  }

  /** Opens a database, runs `fn`, closes it. */
  async function withDatabase<T>(url: string, fn: (db: Database) => Promise<T>): Promise<T> {
    const database = await openDatabase(url);
    try {
      return await fn(database);
    } finally {
      await database.close();
    }
  }

  const tipRows = (db: Database) => db.db.selectFrom('tips').select(['tipper_id', 'thing_id']).execute();

  it(
    'backs up while the server takes tips; the restore has every tip acknowledged before the backup began, consistently',
    { timeout: 300_000 },
    async () => {
      // --- a source database with tippers and things ---
      const sourceUrl = await freshDatabase();
      const source = await openDatabase(sourceUrl);
      cleanups.push(() => source.close());
      await migrateToLatest(source);
      const s = services(source);
      const owner = await buildUser(s);
      const thingIds: number[] = [];
      for (let i = 0; i < THINGS; i++) thingIds.push(await buildThing(s, owner));
      const tippers: TestUser[] = [];
      for (let i = 0; i < TIPPERS; i++) tippers.push(await buildUser(s, { scopes: 'tip' }));

      const env = {
        DATABASE_URL: sourceUrl,
        PUBLIC_URL: 'http://tipjar.test',
        WARMUP_SECONDS: '0',
        SCHEDULER: 'off',
        WEBHOOKS: 'off',
        MAIL: 'off',
      };
      const server = await startTipjar(
        { ...(process.env as Record<string, string>), ...env, LOG_LEVEL: 'warn' },
        children,
      );
      const base = /listening on (http:\/\/[^\s]+) /.exec(server.output())![1]!;

      // --- the load: every (tipper, thing) pair once, interleaved; funding through the ledger beside it ---
      const pairs = thingIds.flatMap((thingId, i) =>
        tippers.map((t, j) => ({ tipper: t, thingId, order: ((j * THINGS + i) * 7919) % 100_003 })),
      );
      pairs.sort((a, b) => a.order - b.order);
      const key = (tipperId: number, thingId: number) => `${tipperId}:${thingId}`;
      const ackedAt = new Map<string, number>();
      const statuses: number[] = [];
      let stop = false;
      let next = 0;
      let backupStarted: (() => void) | undefined;
      const reachedBackupPoint = new Promise<void>((resolve) => (backupStarted = resolve));
      const worker = async () => {
        while (!stop && next < pairs.length) {
          const p = pairs[next++]!;
          const res = await fetch(`${base}/rest/v2/things/${p.thingId}/tip`, {
            method: 'POST',
            headers: { authorization: `Bearer ${p.tipper.token}` },
          });
          await res.arrayBuffer();
          statuses.push(res.status);
          if (res.status === 200) {
            ackedAt.set(key(p.tipper.user.id, p.thingId), performance.now());
            if (ackedAt.size >= BACKUP_AFTER) backupStarted?.();
          }
        }
      };
      const fundedAt: number[] = [];
      const funder = async () => {
        for (let i = 0; !stop; i++) {
          await fundUser(s, { username: tippers[i % TIPPERS]!.user.username, cents: 1 });
          fundedAt.push(performance.now());
        }
      };
      // SQLite: a long read elsewhere (a report, another backup) holds the log's checkpoints back, so
      // what the load commits stays in the write-ahead log: a copy that misses the log misses it.
      const pin = engine === 'sqlite' ? new BetterSqlite3(sqlitePath(sourceUrl), { readonly: true }) : undefined;
      pin?.exec('begin');
      pin?.prepare('select count(*) from tips').get();
      const load = Promise.all([...Array.from({ length: WORKERS }, worker), funder()]);

      // --- the backup, in the middle of the load ---
      await reachedBackupPoint;
      const file = join(dir, `load-${engine}.backup`);
      const startedAt = performance.now();
      const ackedBefore = new Set(ackedAt.keys());
      const backup = await cli(env, 'backup', file);
      const endedAt = performance.now();
      stop = true;
      await load;
      pin?.exec('commit');
      pin?.close();

      expect(backup.code, backup.stderr).toBe(0);
      expect(backup.stdout).toMatch(/^backed up .* to .*: [\d.]+ MB in [\d.]+ s$/m);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(strayFiles(dir, [`load-${engine}.backup`])).toEqual([]);
      // the server acknowledged tips, and the ledger took fundings, while the backup ran
      const ackedDuring = [...ackedAt.values()].filter((t) => t > startedAt && t < endedAt).length;
      const fundedDuring = fundedAt.filter((t) => t > startedAt && t < endedAt).length;
      console.log(
        `[backup ${engine}] ${ackedBefore.size} tips acknowledged before the backup, ${ackedDuring} during it ` +
          `(${((endedAt - startedAt) / 1000).toFixed(1)} s), ${ackedAt.size} in all; ${fundedDuring} fundings during it`,
      );
      expect(ackedDuring).toBeGreaterThan(0);
      expect(fundedDuring).toBeGreaterThan(0);
      // every request of the load was a new pair: all acknowledged
      expect(statuses.filter((st) => st !== 200)).toEqual([]);
      server.child.kill('SIGTERM');
      await waitForExit(server.child);

      // --- restore into a fresh database ---
      const targetUrl = await restoreTarget(sourceUrl);
      const targetEnv = { ...env, DATABASE_URL: targetUrl };
      const restored = await cli(targetEnv, 'restore', file);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toMatch(/^restored .* \d+ users, \d+ things, \d+ tips; \d+ migrations in the backup/m);

      const ledger = await cli(targetEnv, 'ledger', 'check');
      expect(ledger.code, ledger.stdout + ledger.stderr).toBe(0);
      expect(ledger.stdout).toContain('ledger check: OK');

      const { rows, counters, likes, fundings } = await withDatabase(targetUrl, async (db) => ({
        rows: await tipRows(db),
        counters: await db.db
          .selectFrom('things')
          .leftJoin('tips', 'tips.thing_id', 'things.id')
          .select([
            'things.id',
            'things.tips',
            'things.tips_user_count',
            sql<number>`count(tips.id)`.as('n'),
            sql<number>`count(distinct tips.tipper_id)`.as('d'),
          ])
          .groupBy(['things.id', 'things.tips', 'things.tips_user_count'])
          .execute(),
        likes: Number(
          (
            await db.db
              .selectFrom('activities')
              .select(sql<number>`count(*)`.as('n'))
              .where('verb', '=', 'like')
              .executeTakeFirstOrThrow()
          ).n,
        ),
        fundings: Number(
          (
            await db.db
              .selectFrom('ledger_transactions')
              .select(sql<number>`count(*)`.as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
      }));
      const restoredTips = new Set(rows.map((r) => key(r.tipper_id, r.thing_id)));
      // every tip acknowledged before the backup began is there …
      const lost = [...ackedBefore].filter((k) => !restoredTips.has(k));
      expect(lost, 'acknowledged tips missing from the restore').toEqual([]);
      // … and nothing that was never acknowledged, none twice
      expect(restoredTips.size).toBe(rows.length);
      expect([...restoredTips].filter((k) => !ackedAt.has(k))).toEqual([]);
      expect(rows.length).toBeLessThanOrEqual(ackedAt.size);
      // a consistent copy: counters equal the rows, one activity per tip, the ledger's fundings there
      expect(counters).toHaveLength(THINGS);
      for (const c of counters)
        expect({ id: c.id, tips: c.tips, users: c.tips_user_count }).toEqual({
          id: c.id,
          tips: Number(c.n),
          users: Number(c.d),
        });
      expect(likes).toBe(rows.length);
      expect(fundings).toBeGreaterThanOrEqual(TIPPERS + 1);

      // --- a server on the restored database writes new rows (sequences restored too) ---
      const again = await startTipjar(
        { ...(process.env as Record<string, string>), ...targetEnv, LOG_LEVEL: 'warn' },
        children,
      );
      const againBase = /listening on (http:\/\/[^\s]+) /.exec(again.output())![1]!;
      const created = await fetch(`${againBase}/rest/v2/things`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `https://example.org/after-restore-${engine}`, title: 'After the restore' }),
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const newId = ((await created.json()) as { id: number }).id;
      expect(thingIds).not.toContain(newId);
      const untipped = pairs.find((p) => !restoredTips.has(key(p.tipper.user.id, p.thingId)));
      if (untipped) {
        const tip = await fetch(`${againBase}/rest/v2/things/${untipped.thingId}/tip`, {
          method: 'POST',
          headers: { authorization: `Bearer ${untipped.tipper.token}` },
        });
        expect(tip.status).toBe(200);
      }
      again.child.kill('SIGTERM');
      await waitForExit(again.child);
    },
  );

  it(
    'refuses with a clear message and changes nothing: an existing file, a non-empty target, not a Tipjar database, a newer backup',
    { timeout: 300_000 },
    async () => {
      const sourceUrl = await freshDatabase();
      const env = { DATABASE_URL: sourceUrl, PUBLIC_URL: 'http://tipjar.test' };
      expect((await cli(env, 'users', 'create', 'keeper')).code).toBe(0);
      expect((await cli(env, 'users', 'fund', 'keeper', '--cents', '700')).code).toBe(0);
      const sub = mkdtempSync(join(dir, 'refusals-'));

      // an existing file is not replaced …
      const file = join(sub, 'tipjar.backup');
      writeFileSync(file, 'precious');
      const over = await cli(env, 'backup', file);
      expect(over.code).toBe(1);
      expect(over.stderr).toContain(
        `error: ${file} exists already: choose another name, or pass --force to replace it`,
      );
      expect(readFileSync(file, 'utf8')).toBe('precious');
      expect(strayFiles(sub, ['tipjar.backup'])).toEqual([]);
      // … unless asked
      const forced = await cli(env, 'backup', file, '--force');
      expect(forced.code, forced.stderr).toBe(0);
      expect(readFileSync(file).subarray(0, 5).toString('latin1')).toBe(engine === 'sqlite' ? 'SQLit' : 'PGDMP');
      expect(statSync(file).mode & 0o777).toBe(0o600);

      // a non-empty target: the source itself
      const countUsers = () =>
        withDatabase(sourceUrl, async (db) =>
          Number(
            (
              await db.db
                .selectFrom('users')
                .select(sql<number>`count(*)`.as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        );
      const usersBefore = await countUsers();
      const nonEmpty = await cli(env, 'restore', file);
      expect(nonEmpty.code).toBe(1);
      expect(nonEmpty.stderr).toMatch(
        /error: not restored: .* is not empty: it holds data \(1 users, 0 things, 0 tips\)\. /,
      );
      expect(nonEmpty.stderr).toContain('pass --force');
      expect(await countUsers()).toBe(usersBefore);

      // not a backup at all, into a fresh target
      const target = await restoreTarget(sourceUrl);
      const targetEnv = { ...env, DATABASE_URL: target };
      const text = join(sub, 'notes.txt');
      writeFileSync(text, 'these are not the rows you are looking for\n');
      const notBackup = await cli(targetEnv, 'restore', text);
      expect(notBackup.code).toBe(1);
      expect(notBackup.stderr).toContain(
        `error: ${text} is not a Tipjar backup (neither a SQLite database nor a pg_dump custom-format archive): nothing restored`,
      );
      // a database of something else
      const foreign = await foreignBackup(sub);
      const notTipjar = await cli(targetEnv, 'restore', foreign);
      expect(notTipjar.code).toBe(1);
      expect(notTipjar.stderr).toMatch(/is not a Tipjar backup \(.*kysely_migration.*\): nothing restored/);
      // a backup of the other engine
      const otherEngine = engine === 'sqlite' ? await pgArchiveIfAny(sub) : await sqliteBackup(sub);
      if (otherEngine) {
        const mismatch = await cli(targetEnv, 'restore', otherEngine);
        expect(mismatch.code).toBe(1);
        expect(mismatch.stderr).toMatch(
          /is a (SQLite|PostgreSQL) backup and DATABASE_URL is (PostgreSQL|SQLite): a backup is restored on the engine it was made on/,
        );
      }
      // a backup made by a newer Tipjar
      const newer = await newerBackup(sub, sourceUrl, file);
      const tooNew = await cli(targetEnv, 'restore', newer);
      expect(tooNew.code).toBe(1);
      expect(tooNew.stderr).toContain(
        'was made by a newer version of Tipjar (migrations unknown to this version: 9999_from_the_future)',
      );
      await expectUntouched(target);

      // backing up a database that is not Tipjar's writes nothing
      const empty = await freshDatabase();
      if (engine === 'sqlite') {
        const raw = new BetterSqlite3(sqlitePath(empty));
        raw.exec('create table notes (body text)');
        raw.close();
      }
      const wrongSource = await cli({ ...env, DATABASE_URL: empty }, 'backup', join(sub, 'nothing.backup'));
      expect(wrongSource.code).toBe(1);
      expect(wrongSource.stderr).toMatch(
        /is not a Tipjar database \(it has no kysely_migration, users, things, tips table\): nothing written/,
      );
      expect(readdirSync(sub)).not.toContain('nothing.backup');
      expect(readdirSync(sub).filter((f) => f.endsWith('.tmp'))).toEqual([]);

      // the target is still usable as a fresh one: the refused restores left it alone; migrated
      // (Tipjar's tables, no data, as a first start leaves it) it is still empty enough
      expect((await cli(targetEnv, 'migrate')).code).toBe(0);
      const ok = await cli(targetEnv, 'restore', file);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain('1 users, 0 things, 0 tips');
    },
  );

  /** A backup-like file of a database that is not Tipjar's, on this engine. */
  async function foreignBackup(sub: string): Promise<string> {
    if (engine === 'sqlite') {
      const path = join(sub, 'foreign.db');
      const raw = new BetterSqlite3(path);
      raw.exec("create table notes (body text); insert into notes values ('hello')");
      raw.close();
      return path;
    }
    const { url } = await freshSchemaWith('create table notes (body text)');
    const path = join(sub, 'foreign.dump');
    await pgDump(url, path);
    return path;
  }

  /** A SQLite backup (for the engine-mismatch refusal on PostgreSQL). */
  async function sqliteBackup(sub: string): Promise<string> {
    const { url, remove } = await createDatabaseUrl('sqlite');
    cleanups.push(remove);
    expect((await cli({ DATABASE_URL: url }, 'migrate')).code).toBe(0);
    const path = join(sub, 'sqlite.backup');
    expect((await cli({ DATABASE_URL: url }, 'backup', path)).code).toBe(0);
    return path;
  }

  /** A pg_dump archive (for the engine-mismatch refusal on SQLite), when PostgreSQL is at hand. */
  async function pgArchiveIfAny(sub: string): Promise<string | undefined> {
    if (!process.env.TEST_DATABASE_URL) return undefined;
    const { url } = await freshSchemaWith('create table notes (body text)');
    const path = join(sub, 'pg.dump');
    await pgDump(url, path);
    return path;
  }

  async function freshSchemaWith(ddl: string): Promise<{ url: string }> {
    const { url, remove } = await createDatabaseUrl('postgres');
    cleanups.push(remove);
    const schema = schemaOf(url)!;
    const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await c.connect();
    await c.query(`set search_path = ${schema}`);
    await c.query(ddl);
    await c.end();
    return { url };
  }

  async function pgDump(url: string, path: string): Promise<void> {
    const u = new URL(url);
    const schema = u.searchParams.get('schema')!;
    u.searchParams.delete('schema');
    await promisify(execFile)('pg_dump', [
      '--format=custom',
      `--file=${path}`,
      `--schema=${schema}`,
      `--dbname=${u.toString()}`,
    ]);
  }

  /**
   * A backup whose migration table names a migration this version does not know: SQLite, a copy of
   * `file` changed; PostgreSQL, the backup of a copy of the source whose table says so.
   */
  async function newerBackup(sub: string, sourceUrl: string, file: string): Promise<string> {
    const path = join(sub, 'newer.backup');
    if (engine === 'sqlite') {
      writeFileSync(path, readFileSync(file));
      chmodSync(path, 0o600);
      const raw = new BetterSqlite3(path);
      raw.prepare(`insert into ${MIGRATION_TABLE} (name, timestamp) values ('9999_from_the_future', 'now')`).run();
      raw.close();
      return path;
    }
    const url = await freshDatabase();
    expect((await cli({ DATABASE_URL: url }, 'users', 'create', 'future')).code).toBe(0);
    const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await c.connect();
    await c.query(
      `insert into ${schemaOf(url)}.${MIGRATION_TABLE} (name, timestamp) values ('9999_from_the_future', 'now')`,
    );
    await c.end();
    void sourceUrl;
    expect((await cli({ DATABASE_URL: url }, 'backup', path)).code).toBe(0);
    // the archive names that schema; restored into a target of the source's schema it would be
    // refused for the schema too, so the newer-version check must come first
    return path;
  }

  /** The restore target is as fresh as before: no file / no schema. */
  async function expectUntouched(target: string): Promise<void> {
    if (engine === 'sqlite') {
      const path = sqlitePath(target);
      const there = readdirSync(join(path, '..'));
      expect(there.filter((f) => f.startsWith('test.db'))).toEqual([]);
      expect(there.filter((f) => f.endsWith('.tmp'))).toEqual([]);
      return;
    }
    const u = new URL(target);
    const schema = u.searchParams.get('schema')!;
    u.searchParams.delete('schema');
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    const r = await c.query('select 1 from pg_namespace where nspname = $1', [schema]);
    await c.end();
    expect(r.rows).toEqual([]);
  }

  it.runIf(engine === 'postgres')(
    'refuses a backup when pg_dump is missing or of another major version than the server, writing nothing',
    { timeout: 120_000 },
    async () => {
      const url = await freshDatabase();
      const env = { DATABASE_URL: url };
      expect((await cli(env, 'migrate')).code).toBe(0);
      const sub = mkdtempSync(join(dir, 'tools-'));
      const empty = mkdtempSync(join(dir, 'no-tools-'));
      const file = join(sub, 'x.backup');

      const missing = await cli({ ...env, PG_BIN: empty }, 'backup', file);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(
        new RegExp(
          `error: pg_dump not found in PG_BIN \\(${empty}\\): install PostgreSQL \\d+'s client programs \\(Debian: apt-get install postgresql-client-\\d+\\) or set PG_BIN`,
        ),
      );
      expect(readdirSync(sub)).toEqual([]);

      // programs of another major version (they only answer --version here)
      const old = mkdtempSync(join(dir, 'old-tools-'));
      for (const program of ['pg_dump', 'pg_restore', 'psql']) {
        writeFileSync(join(old, program), `#!/bin/sh\necho "${program} (PostgreSQL) 9.6.24"\n`, { mode: 0o755 });
      }
      const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await c.connect();
      const serverMajor = String(
        Math.floor(Number((await c.query('show server_version_num')).rows[0].server_version_num) / 10_000),
      );
      await c.end();
      const mismatch = await cli({ ...env, PG_BIN: old }, 'backup', file);
      expect(mismatch.code).toBe(1);
      expect(mismatch.stderr).toContain(
        `error: ${join(old, 'pg_dump')} is PostgreSQL 9.6, the server is PostgreSQL ${serverMajor}: pg_dump must have the server's major version`,
      );
      expect(readdirSync(sub)).toEqual([]);
    },
  );

  it.runIf(engine === 'sqlite')(
    'refuses to restore over a database a running server has open, even a fresh one',
    { timeout: 120_000 },
    async () => {
      const sourceUrl = await freshDatabase();
      expect((await cli({ DATABASE_URL: sourceUrl }, 'users', 'create', 'someone')).code).toBe(0);
      const file = join(dir, 'in-use.backup');
      expect((await cli({ DATABASE_URL: sourceUrl }, 'backup', file)).code).toBe(0);

      const target = await freshDatabase();
      const env = { DATABASE_URL: target, PUBLIC_URL: 'http://tipjar.test', WARMUP_SECONDS: '0' };
      const server = await startTipjar(
        { ...(process.env as Record<string, string>), ...env, LOG_LEVEL: 'warn' },
        children,
      );
      const base = /listening on (http:\/\/[^\s]+) /.exec(server.output())![1]!;
      const refused = await cli(env, 'restore', file);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'is in use by another process (a running server or command): stop every process using it',
      );
      // the server still serves its database
      const health = await fetch(`${base}/readyz`);
      expect(health.status).toBe(200);
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
      // once it stopped, the same restore goes through
      const ok = await cli(env, 'restore', file);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain('1 users, 0 things, 0 tips');
    },
  );
});
