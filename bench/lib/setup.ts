/**
 * Prepares a bench database in-process (no CLI process per user): migrates it, imports the npm
 * catalogue once (later runs reuse it when the things are already there), registers and funds the
 * bench users, and issues each a fresh `tip`-scoped token (the previous bench tokens are revoked).
 */
import { readFileSync, rmSync } from 'node:fs';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase, sqlitePath, type Database } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { importThings } from '../../src/cli/import-things.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { periodOf } from '../../src/domain/periods.ts';
import type { Services } from '../../src/domain/services.ts';
import { fundUser, registerUser } from '../../src/domain/users.ts';
import { hasMeans } from '../../src/domain/money/means.ts';
import { hashSecret, newSecret } from '../../src/auth/secrets.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';

export const CATALOGUE_OWNER = 'npm';
export const BENCH_USER_PREFIX = 'bench-u';

export interface BenchData {
  database: Database;
  /** ids of the catalogue's visible things, ascending */
  thingIds: number[];
  /** bench users, index i is `bench-u<i>` */
  userIds: number[];
  /** tokens[i] is a live `tip` token of userIds[i] */
  tokens: string[];
  /** words of the catalogue's package names, spread over the whole catalogue: the search scenario's long tail */
  queryWords: string[];
}

const log = (msg: string) => console.log(`  setup: ${msg}`);

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** For `postgres://…?schema=s`: creates schema `s` when missing (the URL's database must exist). */
async function ensurePgSchema(url: string): Promise<void> {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  if (!schema) return;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`unsupported schema name "${schema}"`);
  parsed.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: parsed.toString() });
  await client.connect();
  try {
    await client.query(`create schema if not exists ${schema}`);
  } finally {
    await client.end();
  }
}

/**
 * Removes a bench database: the SQLite file (and its -wal/-shm), or the PostgreSQL schema named by
 * `?schema=` (refused without one: the bench never drops a database's default schema).
 */
export async function resetDatabase(url: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const path = sqlitePath(url);
    if (path === ':memory:') return;
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    log(`removed ${path}`);
    return;
  }
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  if (!schema) throw new Error('BENCH_RESET with PostgreSQL needs ?schema=<name> in BENCH_DATABASE_URL');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema) || schema === 'public')
    throw new Error(`refusing to drop schema "${schema}"`);
  parsed.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: parsed.toString() });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
  log(`dropped schema ${schema}`);
}

/** How many words of the catalogue's package names the search scenario's long tail draws from. */
const TAIL_WORDS = 5000;

/**
 * Data rows of the catalogue (header excluded) and up to TAIL_WORDS distinct words (3+ letters) of
 * its package names, taken evenly over the whole file: the long tail of searches people type.
 */
function readCatalogue(path: string): { rows: number; words: string[] } {
  const text = readFileSync(path, 'utf8');
  let rows = 0;
  const all = new Set<string>();
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (rows === 0 && line.startsWith('name\t')) continue;
    if (line.trim() === '') continue;
    rows++;
    const name = line.slice(0, line.indexOf('\t')).replace(/^@[^/]+\//, '');
    for (const w of name.split(/[-_.]+/)) if (/^[a-z]{3,}$/.test(w)) all.add(w);
  }
  const vocabulary = [...all];
  const step = Math.max(1, vocabulary.length / TAIL_WORDS);
  const words: string[] = [];
  for (let i = 0; i < vocabulary.length && words.length < TAIL_WORDS; i += step) words.push(vocabulary[Math.floor(i)]!);
  return { rows, words };
}

/**
 * Opens and prepares the bench database at `url`.
 * @param catalogue path of npm-packages.tsv
 * @param userCount number of funded bench users with tokens
 * @returns the open database (the caller closes it) and the data the scenarios need.
 */
export async function prepareBenchDatabase(
  url: string,
  catalogue: string,
  userCount: number,
  opts: { reset?: boolean } = {},
): Promise<BenchData> {
  if (opts.reset) await resetDatabase(url);
  if (url.startsWith('postgres')) await ensurePgSchema(url);
  let database = await openDatabase(url);
  try {
    await migrateToLatest(database);
  } catch (err) {
    // The schema's migrations changed under a database built by an earlier run (migrations are
    // still being added during development). A bench SQLite file is ours: rebuild it.
    await database.close();
    if (!url.startsWith('sqlite:')) {
      throw new Error(
        `${(err as Error).message}\nThe bench schema is out of date: rerun with BENCH_RESET=1 to drop and rebuild it (this drops the schema named in ?schema=).`,
      );
    }
    log(`migrations do not apply to the existing bench database (${(err as Error).message}); rebuilding it`);
    await resetDatabase(url);
    database = await openDatabase(url);
    await migrateToLatest(database);
  }
  try {
    const db = database.db;
    const s: Services = {
      database,
      clock: systemClock,
      siteUrl: 'http://127.0.0.1',
      passwordHashing: unboundedHashing,
    };

    // The catalogue and its owner.
    let owner = await db
      .selectFrom('users')
      .select('id')
      .where('username_key', '=', CATALOGUE_OWNER)
      .executeTakeFirst();
    if (!owner) owner = { id: (await registerUser(s, { username: CATALOGUE_OWNER })).id };
    const countThings = async () =>
      Number(
        (
          await db
            .selectFrom('things')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('owner_user_id', '=', owner.id)
            .where('deleted_at', 'is', null)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const { rows, words } = readCatalogue(catalogue);
    let things = await countThings();
    // A few rows may be rejected or be duplicates; 98 % means "imported before".
    if (things >= rows * 0.98) {
      log(`catalogue already imported (${things} things for ${rows} rows), reusing it`);
    } else {
      log(
        `importing ${catalogue} (${rows} rows, ${things} things present; an interrupted import resumes: rows already there are skipped) …`,
      );
      const started = Date.now();
      let lastPrint = 0;
      const report = await importThings(database, systemClock, catalogue, owner.id, {
        onProgress: (n) => {
          if (n - lastPrint >= 25_000 || n === rows) {
            lastPrint = n;
            const s = (Date.now() - started) / 1000;
            const eta = n > 0 ? ((rows - n) * s) / n : 0;
            log(
              `  ${n} of ${rows} rows (${((100 * n) / rows).toFixed(0)} %, ${Math.round(n / s)} rows/s, ≈ ${Math.ceil(eta)} s left)`,
            );
          }
        },
      });
      if (report.upkeepFailure !== undefined)
        throw new Error(
          `the upkeep after the import failed (${report.upkeepFailure}); run the bench again with BENCH_RESET=1`,
        );
      things = await countThings();
      log(
        `imported: ${report.inserted} added, ${report.skipped} skipped, ${report.rejected.length} rejected, ` +
          `${things} things (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
    }

    // Bench users: registered and funded once, reused afterwards.
    const names = Array.from({ length: userCount }, (_, i) => `${BENCH_USER_PREFIX}${String(i).padStart(4, '0')}`);
    const existing = new Map(
      (
        await db
          .selectFrom('users')
          .select(['id', 'username_key', 'balance_cents', 'budget_cents'])
          .where('username_key', 'like', `${BENCH_USER_PREFIX}%`)
          .execute()
      ).map((u) => [u.username_key, u]),
    );
    const toCreate = names.filter((n) => !existing.has(n));
    const toFund = names.filter((n) => {
      const u = existing.get(n);
      return !u || !hasMeans({ balanceCents: u.balance_cents, budgetCents: u.budget_cents, periodBudgetCents: null });
    });
    if (toCreate.length || toFund.length) {
      const started = Date.now();
      await pool(toCreate, 8, async (username) => {
        await registerUser(s, { username });
      });
      await pool(toFund, 8, async (username) => {
        await fundUser(s, { username, cents: 100_000, budgetCents: 1_000, reference: `bench:${username}` });
      });
      log(
        `users: ${toCreate.length} registered, ${toFund.length} funded (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
    } else {
      log(`users: ${userCount} bench users present and funded`);
    }
    const userRows = await db
      .selectFrom('users')
      .select(['id', 'username_key'])
      .where('username_key', 'in', names)
      .execute();
    const idByName = new Map(userRows.map((u) => [u.username_key, u.id]));
    const userIds = names.map((n) => idByName.get(n)!);

    // Fresh tokens each run (tokens are stored hashed, so earlier ones cannot be read back).
    const now = systemClock.now();
    const tokens = userIds.map(() => newSecret());
    await inTransaction(database, async (trx) => {
      await trx
        .updateTable('access_tokens')
        .set({ revoked_at: now })
        .where('revoked_at', 'is', null)
        .where('user_id', 'in', (eb) =>
          eb.selectFrom('users').select('id').where('username_key', 'like', `${BENCH_USER_PREFIX}%`),
        )
        .execute();
      for (let i = 0; i < userIds.length; i += 500) {
        await trx
          .insertInto('access_tokens')
          .values(
            userIds.slice(i, i + 500).map((userId, j) => ({
              token_hash: hashSecret(tokens[i + j]!),
              user_id: userId,
              client_id: null,
              code_id: null,
              scope: 'tip',
              created_at: now,
              revoked_at: null,
            })),
          )
          .execute();
      }
    });
    log(`tokens: ${tokens.length} tip-scoped tokens issued`);
    await vacuumWithoutAutovacuum(database);

    const thingIds = (
      await db
        .selectFrom('things')
        .select('id')
        .where('owner_user_id', '=', owner.id)
        .where('deleted_at', 'is', null)
        .where('hidden', '=', 0)
        .orderBy('id')
        .execute()
    ).map((r) => r.id);
    if (thingIds.length === 0) throw new Error('the bench database holds no things: is the catalogue empty?');
    return { database, thingIds, userIds, tokens, queryWords: words.length ? words : ['react'] };
  } catch (err) {
    await database.close();
    throw err;
  }
}

/**
 * PostgreSQL whose `autovacuum` is off (this machine's shared server): the bench tables are
 * vacuumed and analysed here, as autovacuum would have done between runs, so that the dead rows
 * every earlier run's tips left (tip_hours, tips, activities, things) are not read by this run's
 * searches. Nothing on SQLite or with autovacuum on (logged either way on PostgreSQL).
 */
async function vacuumWithoutAutovacuum(database: Database): Promise<void> {
  if (database.engine !== 'postgres') return;
  const { rows } = await sql<{ setting: string }>`select setting from pg_settings where name = 'autovacuum'`.execute(
    database.db,
  );
  if (rows[0]?.setting !== 'off') return;
  const started = Date.now();
  await sql`vacuum (analyze) things, thing_search, thing_tags, tips, tip_hours, activities, period_budgets, access_tokens, search_word_counts`.execute(
    database.db,
  );
  log(`autovacuum is off on this server: vacuumed the bench tables as it would have (${Date.now() - started} ms)`);
}

/**
 * The first index into `thingIds` no bench tip of the current period touches yet: the tip scenario
 * starts there so each (user, thing) pair it sends is new and the tips succeed (one tip per thing,
 * user and period).
 */
export async function firstUntippedIndex(data: BenchData): Promise<number> {
  const period = periodOf(systemClock.now());
  const r = await data.database.db
    .selectFrom('tips')
    .select((eb) => eb.fn.max('thing_id').as('m'))
    .where('period', '=', period)
    .executeTakeFirst();
  const max = r?.m == null ? 0 : Number(r.m);
  // thingIds is ascending: binary search for the first id > max.
  let lo = 0;
  let hi = data.thingIds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (data.thingIds[mid]! <= max) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Counts rows of a table (for the durability report). */
export async function countRows(database: Database, table: 'tips' | 'things'): Promise<number> {
  const r = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(database.db);
  return Number(r.rows[0]?.n ?? 0);
}
