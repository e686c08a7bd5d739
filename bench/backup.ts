/**
 * `node --import tsx bench/backup.ts` — how long a SQLite backup of the bench catalogue (≈ 197k
 * things) takes while the real server serves, by each way SQLite offers, and what it costs the
 * server (docs/adr/0028-backups.md):
 *   - `tipjar backup`   the command as the operator runs it (a process of its own): the online
 *                       backup API with every page in one step, i.e. one read transaction, then
 *                       the copy's checks and an fsync;
 *   - `backup-one-step` the same copy in this process, then an fsync (the copy without the command);
 *   - `backup-steps`    the online backup API in better-sqlite3's default steps of 100 pages, with
 *                       the event loop between steps: a write by another connection between two
 *                       steps restarts the copy;
 *   - `vacuum-into`     `VACUUM INTO`, one statement in one read transaction, rebuilding every
 *                       table and index into the new file, then an fsync.
 * Each runs once on the idle server, then once under a tip load (autocannon, POST
 * /rest/v2/things/:id/tip, BENCH_CONNECTIONS connections, every request a new tip); the load also
 * runs once alone for its baseline. Every copy is checked: `PRAGMA quick_check`, every thing's tip
 * counter equals its tip rows, and the ledger check (src/domain/money/ledger.ts) finds no breach.
 *
 * Environment: BENCH_SQLITE_PATH (default bench/results/bench.db, shared with `npm run bench`: the
 * catalogue is imported once), BENCH_CATALOGUE, BENCH_USERS (default 1000), BENCH_CONNECTIONS
 * (default 50), BENCH_BACKUP_LOAD_SECONDS (the load's length, default 25), BENCH_BACKUP_LIMIT_SECONDS
 * (a copy still running after this is abandoned and reported so, default 120). Results go to
 * bench/results/backup.json. Everything stays on 127.0.0.1; the server is stopped at the end.
 */
import { execFile } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../src/db/connect.ts';
import { checkLedger } from '../src/domain/money/ledger.ts';
import { systemClock } from '../src/domain/clock.ts';
import { unboundedHashing } from '../src/auth/passwords.ts';
import { runLoad, type LoadFigures, type RequestsFactory } from './lib/load.ts';
import { guardChildren, startScriptNodeFlags, startServer, stopServer, type Server } from './lib/processes.ts';
import { firstUntippedIndex, prepareBenchDatabase, type BenchData } from './lib/setup.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = join(ROOT, 'bench', 'results');
const DB_PATH = process.env.BENCH_SQLITE_PATH || join(RESULTS, 'bench.db');
const CATALOGUE = process.env.BENCH_CATALOGUE || join(ROOT, '..', 'shared', 'data', 'npm-packages.tsv');
const USERS = Number(process.env.BENCH_USERS || 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
const LOAD_SECONDS = Number(process.env.BENCH_BACKUP_LOAD_SECONDS || 25);
const LIMIT_SECONDS = Number(process.env.BENCH_BACKUP_LIMIT_SECONDS || 120);
const COPIES = join(RESULTS, 'backup-copies');
const API = '/rest/v2';
/** things per tip window (prime, so with 1000 users every request is a new pair) */
const WINDOW = 1009;
const run = promisify(execFile);

type Method = 'tipjar backup' | 'backup-one-step' | 'vacuum-into' | 'backup-steps';
const METHODS: Method[] = ['tipjar backup', 'backup-one-step', 'vacuum-into', 'backup-steps'];

interface Copy {
  method: Method;
  underLoad: boolean;
  /** the copy's wall time, ms; undefined when abandoned after LIMIT_SECONDS */
  ms?: number;
  bytes?: number;
  /** backup-steps: how often the copy started over (remaining pages went up) */
  restarts?: number;
  check?: { quickCheck: string; counterMismatches: number; ledgerBreaches: number; tips: number };
}

/**
 * Copies the bench database by `method` into `file`, in a process of its own (as an operator's
 * backup runs; in this process it would stop the load generator's event loop meanwhile).
 */
async function copy(method: Method, file: string): Promise<{ ms?: number; restarts?: number }> {
  rmSync(file, { force: true });
  const started = performance.now();
  if (method === 'tipjar backup') {
    await run(process.execPath, [join(ROOT, 'bin', 'tipjar.js'), 'backup', file], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: `sqlite:${DB_PATH}` },
      timeout: LIMIT_SECONDS * 1000,
    });
    return { ms: performance.now() - started };
  }
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--copy', method, file],
    {
      cwd: ROOT,
      timeout: (LIMIT_SECONDS + 30) * 1000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { ms?: number; restarts?: number };
}

/** The copy itself (`--copy <method> <file>`): run in the child process copy() starts. */
async function copyHere(method: Method, file: string): Promise<{ ms?: number; restarts?: number }> {
  const started = performance.now();
  const source = new BetterSqlite3(DB_PATH, { readonly: true, fileMustExist: true });
  source.pragma('busy_timeout = 10000');
  try {
    if (method === 'vacuum-into') {
      source.prepare('vacuum into ?').run(file);
      fsync(file);
      return { ms: performance.now() - started };
    }
    if (method === 'backup-one-step') {
      await source.backup(file, { progress: () => 0x7fffffff });
      fsync(file);
      return { ms: performance.now() - started };
    }
    let restarts = 0;
    let lastRemaining = Infinity;
    let abandoned = false;
    await source
      .backup(file, {
        progress: ({ remainingPages }) => {
          if (remainingPages > lastRemaining) restarts++;
          lastRemaining = remainingPages;
          if (performance.now() - started > LIMIT_SECONDS * 1000) {
            abandoned = true;
            throw new Error('abandoned');
          }
          return 100; // better-sqlite3's default step
        },
      })
      .catch((err: Error) => {
        if (!abandoned) throw err;
      });
    return abandoned ? { restarts } : { ms: performance.now() - started, restarts };
  } finally {
    source.close();
  }
}

function fsync(file: string): void {
  const fd = openSync(file, 'r+');
  fsyncSync(fd);
  closeSync(fd);
}

/** Checks a copy: quick_check, tip counters against tip rows, the ledger. */
async function check(file: string): Promise<NonNullable<Copy['check']>> {
  const raw = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  let quickCheck: string;
  let counterMismatches: number;
  let tips: number;
  try {
    quickCheck = (raw.prepare('pragma quick_check').pluck().all() as string[]).join('; ');
    counterMismatches = raw
      .prepare(`select count(*) from things t where t.tips <> (select count(*) from tips x where x.thing_id = t.id)`)
      .pluck()
      .get() as number;
    tips = raw.prepare('select count(*) from tips').pluck().get() as number;
  } finally {
    raw.close();
  }
  const database = await openDatabase(`sqlite:${file}`, { sqliteOptimizeIntervalMs: 0 });
  try {
    const breaches = await checkLedger({
      database,
      clock: systemClock,
      siteUrl: 'http://127.0.0.1',
      passwordHashing: unboundedHashing,
    });
    return { quickCheck, counterMismatches, ledgerBreaches: breaches.length, tips };
  } finally {
    await database.close();
  }
}

function tipRequests(data: BenchData, offset: number, sent: { n: number }): RequestsFactory {
  return () => [
    {
      method: 'POST',
      setupRequest: (req) => {
        const n = sent.n++;
        req.path = `${API}/things/${data.thingIds[offset + (n % WINDOW)]}/tip`;
        req.headers = { ...req.headers, authorization: `Bearer ${data.tokens[n % data.tokens.length]}` };
        return req;
      },
    },
  ];
}

async function main(): Promise<void> {
  guardChildren();
  mkdirSync(COPIES, { recursive: true });
  console.log(`preparing ${DB_PATH} (catalogue, ${USERS} users)…`);
  const data = await prepareBenchDatabase(`sqlite:${DB_PATH}`, CATALOGUE, USERS);
  let server: Server | undefined;
  const copies: Copy[] = [];
  const loads: { during: Method | 'nothing'; figures: LoadFigures; walPeakBytes: number }[] = [];
  try {
    server = await startServer({
      name: 'tipjar-backup-bench',
      args: [...startScriptNodeFlags(ROOT), 'bin/tipjar.js', 'serve'],
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: `sqlite:${DB_PATH}`,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_ANONYMOUS: '1000000000',
        RATE_LIMIT_AUTHENTICATED: '1000000000',
      },
      logDir: join(RESULTS, 'logs'),
      readyTimeoutMs: 120_000,
      readyPath: '/readyz',
    });
    const dbBytes = statSync(DB_PATH).size;
    console.log(`server ready in ${server.readyMs} ms; database ${(dbBytes / 1048576).toFixed(0)} MB`);

    for (const method of METHODS) {
      const file = join(COPIES, `${method.replace(/\W+/g, '-')}-idle.db`);
      const r = await copy(method, file);
      const c: Copy = { method, underLoad: false, ...r };
      if (r.ms !== undefined) c.bytes = statSync(file).size;
      copies.push(c);
      console.log(
        `idle       ${method.padEnd(14)} ${r.ms === undefined ? 'abandoned' : `${(r.ms / 1000).toFixed(1)} s`}${c.bytes ? `, ${(c.bytes / 1048576).toFixed(0)} MB` : ''}`,
      );
    }

    for (const during of ['nothing', ...METHODS] as const) {
      const offset = await firstUntippedIndex(data);
      if (offset + WINDOW > data.thingIds.length) throw new Error('the untipped things of this month are used up');
      const sent = { n: 0 };
      const load = runLoad({
        targets: [server.url],
        connections: CONNECTIONS,
        durationS: LOAD_SECONDS,
        requests: tipRequests(data, offset, sent),
        pids: [server.pid],
      });
      let walPeak = 0;
      const walSampler = setInterval(() => {
        try {
          walPeak = Math.max(walPeak, statSync(`${DB_PATH}-wal`).size);
        } catch {
          /* no log at this moment */
        }
      }, 100);
      let c: Copy | undefined;
      if (during !== 'nothing') {
        await new Promise((r) => setTimeout(r, 3000));
        const file = join(COPIES, `${during.replace(/\W+/g, '-')}-load.db`);
        const r = await copy(during, file);
        c = { method: during, underLoad: true, ...r };
        if (r.ms !== undefined) c.bytes = statSync(file).size;
        copies.push(c);
      }
      const figures = await load;
      clearInterval(walSampler);
      loads.push({ during, figures, walPeakBytes: walPeak });
      console.log(
        `under load ${during.padEnd(14)} ${c ? (c.ms === undefined ? `abandoned after ${LIMIT_SECONDS} s` : `${(c.ms / 1000).toFixed(1)} s`) : '      '}` +
          `${c?.restarts !== undefined ? ` (${c.restarts} restarts)` : ''}; tips ${figures.okPerSec}/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, max ${figures.maxMs} ms, non-2xx ${figures.non2xx}; log peak ${(walPeak / 1048576).toFixed(0)} MB`,
      );
    }
  } finally {
    if (server) await stopServer(server);
    await data.database.close();
  }
  for (const c of copies) {
    if (c.ms === undefined) continue;
    const file = join(COPIES, `${c.method.replace(/\W+/g, '-')}-${c.underLoad ? 'load' : 'idle'}.db`);
    c.check = await check(file);
    console.log(
      `check ${c.method} (${c.underLoad ? 'under load' : 'idle'}): quick_check ${c.check.quickCheck}, ${c.check.counterMismatches} counter mismatches, ${c.check.ledgerBreaches} ledger breaches, ${c.check.tips} tips`,
    );
  }
  writeFileSync(
    join(RESULTS, 'backup.json'),
    `${JSON.stringify({ at: new Date().toISOString(), copies, loads }, null, 2)}\n`,
  );
  rmSync(COPIES, { recursive: true, force: true });
}

if (process.argv[2] === '--copy') {
  console.log(JSON.stringify(await copyHere(process.argv[3] as Method, process.argv[4]!)));
} else {
  await main();
}
