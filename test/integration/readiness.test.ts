/**
 * Readiness and the warm-up (src/warmup.ts, docs/operations.md "Health and readiness"): GET /readyz
 * answers 503 while the server warms itself up and 200 after, GET /healthz 200 throughout; the
 * warm-up's requests write nothing, are charged to no client's rate limit (memory and Redis) and
 * are not in the request metrics, and a client cannot pass for them. `tipjar serve` warms up for
 * WARMUP_SECONDS before it reports ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, json, type TestApp } from '../helpers/app.ts';
import { createDatabaseUrl, ENGINES } from '../helpers/db.ts';
import { buildThing, buildUser } from '../helpers/factories.ts';
import { STORES, storeEnv } from '../helpers/stores.ts';
import { popularWords, warmUp } from '../../src/warmup.ts';
import { openDatabase, type Database } from '../../src/db/connect.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';

const TOKEN = 'metrics-token-0123456789abcdef0123456789abcdef';
const BIN = fileURLToPath(new URL('../../bin/tipjar.js', import.meta.url));

/**
 * Rows of every table of the test database (its own schema on PostgreSQL), by table name. On
 * PostgreSQL the tables are listed from its own schema only: Kysely's introspection reads every
 * schema and fails when another test file drops its schema meanwhile.
 */
async function rowCounts(database: Database): Promise<Record<string, number>> {
  const tables =
    database.engine === 'sqlite'
      ? await database.db.introspection.getTables()
      : (
          await sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = ${database.schema} and table_type = 'BASE TABLE'`.execute(database.db)
        ).rows;
  const counts: Record<string, number> = {};
  for (const t of tables) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(t.name)}`.execute(
      database.db,
    );
    counts[t.name] = Number(rows[0]!.n);
  }
  return counts;
}

describe('popularWords', () => {
  it('ranks the words of titles and tags by the things holding them, leaving out those in more than half', () => {
    const things = [
      { title: 'react-router', tags: ['npm', 'react', 'router'] },
      { title: 'react-dom', tags: ['npm', 'react', 'dom'] },
      { title: 'yaml parser', tags: ['npm', 'yaml', 'parser'] },
      { title: 'json parser', tags: ['npm', 'json', 'parser'] },
      { title: 'Parser 2000', tags: ['npm', 'parser', 'x'] },
      { title: 'lodash', tags: ['npm'] },
    ];
    // npm: 6 of 6 (left out); parser: 3; react: 2; once-only words and short or numeric ones never.
    expect(popularWords(things, 10)).toEqual(['parser', 'react']);
    expect(popularWords(things, 1)).toEqual(['parser']);
    expect(popularWords([], 5)).toEqual([]);
  });
});

describe.each(ENGINES.flatMap((engine) => STORES.map((store) => [engine, store] as const)))(
  'the warm-up on %s, rate limits in %s',
  (engine, store) => {
    let t: TestApp;
    const counters = storeEnv(store);
    beforeAll(async () => {
      t = await buildTestApp(engine, { env: { METRICS_TOKEN: TOKEN, ...counters.env } });
      const owner = await buildUser(t.services);
      for (const [title, tags] of [
        ['yaml parser', 'yaml,parser'],
        ['json parser', 'json,parser'],
        ['csv parser', 'csv,parser'],
        ['react router', 'react,router'],
        ['react table', 'react,table'],
        ['date format', 'date'],
      ] as const)
        await buildThing(t.services, owner, { title, tags });
    });
    afterAll(async () => {
      await t.close();
      await counters.cleanUp();
    });

    it('GET /readyz answers 503 until the warm-up ends, then 200; GET /healthz 200 throughout', async () => {
      const ready = await t.app.inject({ url: '/readyz' });
      expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'ok' }]);

      const warming = warmUp(t.app, { seconds: 2, apiPrefix: API });
      for (let i = 0; i < 3; i++) {
        const during = await t.app.inject({ url: '/readyz' });
        expect(during.statusCode).toBe(503);
        expect(json(during)).toEqual({ status: 'warming up' });
        const health = await t.app.inject({ url: '/healthz' });
        expect([health.statusCode, health.json()]).toEqual([200, { status: 'ok' }]);
        await new Promise((r) => setTimeout(r, 50));
      }
      const report = await warming;
      expect(report.ms).toBeGreaterThanOrEqual(2000);
      expect(report.serverErrors).toBe(0);
      expect(report.things).toBe(6);
      expect(report.words).toEqual(['parser', 'react']);
      // each word with each of the 6 sorts, each asked twice
      expect([report.popularSearches, report.popularFilled]).toEqual([12, 12]);
      expect(report.requests).toBeGreaterThan(100);

      const after = await t.app.inject({ url: '/readyz' });
      expect([after.statusCode, after.json()]).toEqual([200, { status: 'ok' }]);
    });

    it('requests answered on the event loop go on while the popular searches are still being computed', async () => {
      // Every search for words is held for longer than the warm-up lasts.
      const inject = t.app.inject.bind(t.app);
      const held: Promise<unknown>[] = [];
      const sent: string[] = [];
      t.app.inject = ((options: { url: string }) => {
        sent.push(options.url);
        if (!options.url.includes('query=')) return inject(options as never);
        const answer = new Promise((resolve) => setTimeout(resolve, 700)).then(() => inject(options as never));
        held.push(answer);
        return answer;
      }) as typeof t.app.inject;
      try {
        const report = await warmUp(t.app, { seconds: 0.5, apiPrefix: API });
        expect(report.popularFilled).toBe(0);
        const byId = sent.filter((url) => /\/things\/\d+(,\d+)*(\/tip)?$/.test(url));
        expect(byId.length).toBeGreaterThan(100);
      } finally {
        t.app.inject = inject;
        await Promise.all(held);
      }
    });

    it('leaves no trace: no row written, nothing charged to the rate limit, no request in the metrics', async () => {
      const rowsBefore = await rowCounts(t.db.database);
      expect(rowsBefore.things).toBe(6);
      // The warm-up's requests come from inject's address, 127.0.0.1: the window of that client.
      const window = async () => json(await t.app.inject({ url: `${API}/rate_limit` }));
      const windowBefore = await window();

      const report = await warmUp(t.app, { seconds: 0.5, apiPrefix: API });
      expect(report.requests).toBeGreaterThan(100);

      expect(await rowCounts(t.db.database)).toEqual(rowsBefore);
      const windowAfter = await window();
      expect(windowAfter.current_hits).toBe(windowBefore.current_hits);
      const metrics = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(metrics.statusCode).toBe(200);
      const routes = [
        ...metrics.body.matchAll(/^tipjar_http_request_duration_seconds_count\{[^}]*route="([^"]+)"/gm),
      ].map((m) => m[1]);
      for (const route of ['/rest/v2/things/search', '/rest/v2/things/:id', '/rest/v2/things/:id/tip'])
        expect(routes).not.toContain(route);
    });

    it('a client sending the warm-up header is counted and measured like any other', async () => {
      const headers = { 'x-tipjar-warmup': randomBytes(32).toString('hex') };
      const before = json(await t.app.inject({ url: `${API}/rate_limit` })).current_hits;
      const res = await t.app.inject({ url: `${API}/things/search?query=parser`, headers });
      expect(res.statusCode).toBe(200);
      expect(Number(res.headers['x-ratelimit-current'])).toBe(before + 1);
      const metrics = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(metrics.body).toMatch(
        /^tipjar_http_request_duration_seconds_count\{method="GET",route="\/rest\/v2\/things\/search",status="200"\} 1$/m,
      );
    });
  },
);

describe.each(ENGINES)('tipjar serve on %s', (engine) => {
  let database: { url: string; remove(): Promise<void> };
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    database = await createDatabaseUrl(engine);
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await database.remove();
  });

  /** Starts `tipjar serve` on a free port; resolves with its URL once it logs that it listens. */
  async function serve(warmupSeconds: string): Promise<{ url: string; child: ChildProcess; output: () => string }> {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SCHEDULER: 'off',
        WEBHOOKS: 'off',
        WARMUP_SECONDS: warmupSeconds,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = /Tipjar listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearInterval(timer);
          resolve(m[1]!);
        } else if (child.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`tipjar serve exited: ${out}`));
        }
      }, 10);
    });
    return { url, child, output: () => out };
  }

  const stop = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });

  it('with WARMUP_SECONDS=2, answers /healthz at once, /readyz 503 until it has warmed up, then 200', async () => {
    const started = Date.now();
    const { url, child, output } = await serve('2');
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    const early = await fetch(`${url}/readyz`);
    expect(early.status).toBe(503);
    expect(await early.json()).toEqual({ status: 'warming up' });
    let status = 503;
    while (status === 503 && Date.now() - started < 30_000) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await fetch(`${url}/readyz`)).status;
    }
    expect(status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    // The connections are opened beside the warm-up: PostgreSQL's pool (DATABASE_POOL_SIZE, 10 by
    // default), SQLite's read threads (SQLITE_READ_THREADS, 2 by default).
    const connections = `; ${engine === 'postgres' ? 10 : 2} database connections opened`;
    expect(output()).toMatch(
      new RegExp(
        `^Warmed up in \\d+ ms \\(\\d+ requests; 0 search results kept from the last run; 0 of 0 popular searches cached, words: none${connections}\\); ready$`,
        'm',
      ),
    );
    await stop(child);
  });

  it('with WARMUP_SECONDS=0, is ready as soon as it listens', async () => {
    const { url, child, output } = await serve('0');
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(output()).not.toContain('Warmed up');
    await stop(child);
  });

  it('keeps its popular search results when it stops (SIGTERM), and the next start takes them (docs/adr/0033)', async () => {
    const first = await serve('0');
    const other = await openDatabase(database.url);
    const word = `kept${randomBytes(4).toString('hex')}`;
    try {
      const s = {
        database: other,
        clock: systemClock,
        siteUrl: 'http://tipjar.test',
        passwordHashing: unboundedHashing,
      };
      await buildThing(s, await buildUser(s), { title: `${word} thing` });
    } finally {
      await other.close();
    }
    const ask = async (url: string) => {
      const res = await fetch(`${url}${API}/things/search?query=${word}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { things: { id: number }[] }).things.map((t) => t.id);
    };
    const ids = await ask(first.url);
    expect(ids).toHaveLength(1);
    expect(await ask(first.url)).toEqual(ids);
    await stop(first.child);

    const second = await serve('0.1');
    while (!/Warmed up/.test(second.output())) await new Promise((r) => setTimeout(r, 20));
    expect(second.output()).toMatch(/\(\d+ requests; 1 search results kept from the last run; /);
    expect(await ask(second.url)).toEqual(ids);
    await stop(second.child);
  });
});
