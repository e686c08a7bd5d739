/**
 * The SQLite read threads (src/db/reader.ts, src/db/read-worker.mjs) behind Database.offThread:
 * they answer like the server's own connection, see what it committed, refuse writes, report
 * SQLite's errors with their code and keep working, and a slow query on one thread does not hold
 * up the queries sent after it (the threads share one queue); a thread that stops loses only the
 * query it was running.
 */
import { sql, type CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabaseUrl } from '../helpers/db.ts';
import { openDatabase, type Database } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createSqliteReader, type SqliteReader } from '../../src/db/reader.ts';
import { STOP_THE_THREAD } from '../helpers/stop-the-thread.mjs';

describe('SQLite read threads', () => {
  let database: Database;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    const created = await createDatabaseUrl('sqlite');
    remove = created.remove;
    database = await openDatabase(created.url, { sqliteReadThreads: 2 });
    await migrateToLatest(database);
  });
  afterAll(async () => {
    await database.close();
    await remove();
  });

  const offThread = <R>(query: ReturnType<typeof sql<R>>) => database.offThread!(query.compile(database.db));

  it('answers a query like the server connection, and sees what it committed', async () => {
    await database.db
      .insertInto('users')
      .values(
        ['ada', 'grace'].map((username, i) => ({
          username,
          username_key: username,
          email: '',
          password_hash: null,
          registered_at: 100 + i,
        })),
      )
      .execute();
    const query = sql<{
      username: string;
      registered_at: number;
    }>`select username, registered_at from users where registered_at >= ${100} order by username`;
    const here = (await query.execute(database.db)).rows;
    expect(here).toEqual([
      { username: 'ada', registered_at: 100 },
      { username: 'grace', registered_at: 101 },
    ]);
    expect(await offThread(query)).toEqual(here);
  });

  it('refuses writes, reports SQLite errors with their code, and answers the next query', async () => {
    await expect(offThread(sql`update users set about = 'x'`)).rejects.toThrow();
    await expect(offThread(sql`select * from no_such_table`)).rejects.toMatchObject({
      code: 'SQLITE_ERROR',
      message: expect.stringContaining('no_such_table'),
    });
    expect(await offThread(sql<{ n: number }>`select ${41} + 1 as n`)).toEqual([{ n: 42 }]);
  });

  it('a quick query sent after a slow one is answered first (it runs on the other thread)', async () => {
    const order: string[] = [];
    const slow = offThread(
      sql`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${3_000_000}) select count(*) as n from c`,
    ).then(() => order.push('slow'));
    const quick = offThread(sql`select 1 as n`).then(() => order.push('quick'));
    await Promise.all([slow, quick]);
    expect(order).toEqual(['quick', 'slow']);
  });

  it("runs a follow-up query right after the first only when the first one's row count calls for it", async () => {
    const numbers = (n: number) =>
      sql<{
        x: number;
      }>`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n}) select x from c`;
    const total = sql<{ n: number }>`select 7 as n`.compile(database.db);
    const then = (n: number, ifEmpty = false) =>
      database.offThreadThen!(numbers(n).compile(database.db), { query: total, minRows: 3, ifEmpty });
    expect(await then(3)).toEqual({ rows: [{ x: 1 }, { x: 2 }, { x: 3 }], followUpRows: [{ n: 7 }] });
    expect(await then(2)).toEqual({ rows: [{ x: 1 }, { x: 2 }] });
    const none = sql<{ x: number }>`select 1 as x where 0`.compile(database.db);
    expect(await database.offThreadThen!(none, { query: total, minRows: 3, ifEmpty: true })).toEqual({
      rows: [],
      followUpRows: [{ n: 7 }],
    });
    expect(await database.offThreadThen!(none, { query: total, minRows: 3, ifEmpty: false })).toEqual({ rows: [] });
    await expect(
      database.offThreadThen!(numbers(3).compile(database.db), {
        query: sql`select * from no_such_table`.compile(database.db),
        minRows: 1,
        ifEmpty: false,
      }),
    ).rejects.toMatchObject({ code: 'SQLITE_ERROR' });
  });

  it('queries posted while both threads are busy go to the first one free: none waits behind the slow one', async () => {
    const order: string[] = [];
    const count = (n: number) =>
      sql`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n}) select count(*) as n from c`;
    const slow = offThread(count(4_000_000)).then(() => order.push('slow'));
    const medium = offThread(count(200_000)).then(() => order.push('medium'));
    // Both threads now have a query; each of these is taken by whichever thread is free first —
    // the one that ran the medium query — never queued behind the slow one.
    const quick = Array.from({ length: 6 }, (_, i) =>
      offThread(sql<{ n: number }>`select ${i} as n`).then((rows) => order.push(`quick${rows[0]!.n}`)),
    );
    await Promise.all([slow, medium, ...quick]);
    expect(order.at(-1)).toBe('slow');
    expect(order.filter((x) => x.startsWith('quick'))).toHaveLength(6);
  });
});

describe('SQLite read threads: a thread that stops', () => {
  let dir: string;
  const readers: SqliteReader[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tipjar-reader-'));
    new BetterSqlite3(join(dir, 'r.db')).close();
  });
  afterAll(async () => {
    for (const r of readers) await r.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A reader whose threads stop when they take STOP_THE_THREAD (test/helpers/read-worker-that-stops.mjs). */
  const reader = (threads: number) => {
    const r = createSqliteReader(join(dir, 'r.db'), {
      threads,
      script: new URL('../helpers/read-worker-that-stops.mjs', import.meta.url),
    });
    readers.push(r);
    return r;
  };
  const query = <R>(text: string): CompiledQuery<R> =>
    ({ sql: text, parameters: [], query: undefined as never }) as unknown as CompiledQuery<R>;
  const count = (n: number) =>
    query<{ n: number }>(
      `with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n}) select count(*) as n from c`,
    );

  it('fails only the query it was running: the other thread answers its own', async () => {
    const r = reader(2);
    const slow = r.all(count(2_000_000)); // the first thread takes it
    const stop = r.all(query(STOP_THE_THREAD)); // the second thread, started for it, takes it and stops
    await expect(stop).rejects.toThrow(/stopped/);
    expect(await slow).toEqual([{ n: 2_000_000 }]);
    expect(await r.all(query<{ n: number }>('select 7 as n'))).toEqual([{ n: 7 }]);
  });

  it('a thread that cannot start fails the pending queries instead of being started again and again', async () => {
    const r = createSqliteReader(join(dir, 'missing.db'), { threads: 2 });
    readers.push(r);
    await expect(r.all(query('select 1 as n'))).rejects.toThrow(/stopped/);
    await expect(r.all(query('select 2 as n'))).rejects.toThrow(/stopped/);
  });

  it('warm starts every thread and has each run the query itself, resolving to the threads that ran it', async () => {
    const r = reader(3);
    expect(await r.warm(query('select 1 as n'))).toBe(3);
    expect(await r.all(query<{ n: number }>('select 7 as n'))).toEqual([{ n: 7 }]);
  });

  it('warm never rejects: threads that stop on its query, or cannot start, are not counted, and the next query is answered', async () => {
    const r = reader(2);
    expect(await r.warm(query(STOP_THE_THREAD))).toBe(0);
    expect(await r.all(query<{ n: number }>('select 7 as n'))).toEqual([{ n: 7 }]);
    const missing = createSqliteReader(join(dir, 'missing.db'), { threads: 2 });
    readers.push(missing);
    expect(await missing.warm(query('select 1 as n'))).toBe(0);
  });

  it('queries it had not taken yet are run by a new thread when it was the only one', async () => {
    const r = reader(1);
    const first = r.all(count(500_000));
    const stop = r.all(query(STOP_THE_THREAD));
    const after = [r.all(query<{ n: number }>('select 1 as n')), r.all(query<{ n: number }>('select 2 as n'))];
    await expect(stop).rejects.toThrow(/stopped/);
    expect(await first).toEqual([{ n: 500_000 }]);
    expect(await Promise.all(after)).toEqual([[{ n: 1 }], [{ n: 2 }]]);
  });
});
