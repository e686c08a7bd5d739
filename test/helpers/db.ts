/**
 * Test databases: SQLite always (a fresh file per call), PostgreSQL when TEST_DATABASE_URL is set
 * (a fresh schema per call, dropped afterwards). Never a mock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database, type Engine } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { pgDirect, registerPgDirect } from '../../src/db/direct.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';
import { systemClock, type Clock } from '../../src/domain/clock.ts';
import type { PasswordHashing, Services } from '../../src/domain/services.ts';

/** The engines to run integration suites on. */
export const ENGINES: Engine[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  engine: Engine;
  /** a DATABASE_URL another process (the real server) can open */
  url: string;
  database: Database;
  /** closes the connection and removes the file / drops the schema */
  drop(): Promise<void>;
}

/** Creates an empty database (URL only, not opened or migrated) and a function removing it. */
export async function createDatabaseUrl(engine: Engine): Promise<{ url: string; remove(): Promise<void> }> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'tipjar-test-'));
    return { url: `sqlite:${join(dir, 'test.db')}`, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = `${base}${base.includes('?') ? '&' : '?'}schema=${schema}`;
  return {
    url,
    remove: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

/** A migrated, open test database. */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const { url, remove } = await createDatabaseUrl(engine);
  const database = await openDatabase(url);
  await migrateToLatest(database);
  return {
    engine,
    url,
    database,
    drop: async () => {
      await database.close();
      await remove();
    },
  };
}

/**
 * Services on a fresh migrated test database, for calling domain services directly (no HTTP):
 * the given clock (default the system clock) and password hashing (default unbounded scrypt).
 */
export async function createTestServices(
  engine: Engine,
  opts: { clock?: Clock; passwordHashing?: PasswordHashing } = {},
): Promise<{ s: Services; db: TestDatabase; drop(): Promise<void> }> {
  const db = await createTestDatabase(engine);
  const s: Services = {
    database: db.database,
    clock: opts.clock ?? systemClock,
    siteUrl: 'http://tipjar.test',
    passwordHashing: opts.passwordHashing ?? unboundedHashing,
  };
  return { s, db, drop: () => db.drop() };
}

/**
 * Records the SQL text of every query sent to the pool behind `database`'s own handle (PostgreSQL:
 * db/direct.ts pgDirect, the path of precompiled queries outside a transaction) into the returned
 * array, which the caller may empty between checks; on SQLite nothing is recorded.
 */
export function recordPoolQueries(database: Database): string[] {
  const sent: string[] = [];
  const direct = pgDirect(database.db);
  if (direct)
    registerPgDirect(database.db, {
      query: (text, parameters) => {
        sent.push(text);
        return direct.query(text, parameters);
      },
    });
  return sent;
}
