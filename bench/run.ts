/**
 * `npm run bench` — Tipjar's performance budgets (DESIGN.md "Performance budgets"), as a report.
 *
 * What it does, in order:
 *  1. Baseline: starts bench/hello.ts (a Fastify hello-world) as a child process on 127.0.0.1 and
 *     loads it with autocannon, each request built by a setupRequest hook as the scenarios' are
 *     (docs/adr/0046); every scenario's req/s is printed as a ratio to it.
 *  2. Prepares the bench database in-process (bench/lib/setup.ts): migrations, the npm catalogue
 *     imported once (reused when the things are already there), BENCH_USERS funded users
 *     (`bench-u0000`, …), and a fresh `tip`-scoped token per user.
 *  3. Starts the real server as `npm start` does (`node <the start script's node flags>
 *     bin/tipjar.js serve`, LOG_LEVEL=warn, HOST=127.0.0.1, a free port) on that database, waits
 *     until GET /readyz answers 200 (the server's own warm-up, WARMUP_SECONDS, has ended; the time
 *     from the spawn is reported against the start budget; how many search results it took from
 *     the snapshot its previous run kept is printed, docs/adr/0033) and runs the scenarios:
 *       - search      GET /rest/v2/things/search: popular searches and a long tail of catalogue
 *                     words (see the search scenario below); first, so its warm-up load is the
 *                     server's first seconds after ready.
 *       - things/:id  GET /rest/v2/things/:id, anonymous, ids uniformly random over the catalogue.
 *       - tips        POST /rest/v2/things/:id/tip, Bearer tokens of all bench users. Request n
 *                     tips thing `offset + n mod W` as user `n mod U` (gcd(W, U) = 1), so every
 *                     pair is new (one tip per thing, user and period) and consecutive requests
 *                     touch different users *and* different things (no hot row). `offset` is the
 *                     first thing no bench tip of this month touched, so reruns stay valid
 *                     (each run uses W ≈ 600 things of ≈ 197k). A warm-up of 100 requests per
 *                     connection precedes a run of ≈ BENCH_DURATION seconds (its request count
 *                     is fixed from the warm-up rate, so no request is in flight when it ends).
 *                     Afterwards the durability check reads the database: every acknowledged
 *                     (2xx) tip is a row, rows == 2xx count, and things.tips equals the tip rows
 *                     per thing and in total.
 *     The server's peak RSS (max of VmRSS polled every 200 ms and VmHWM) covers all scenarios.
 *  4. With BENCH_DATABASE_URL (postgres://…) set, the same scenarios run against PostgreSQL with
 *     one server process, the instance PostgreSQL's budgets are set for (docs/adr/0045); with
 *     BENCH_PG_PROCESSES=N, N processes: one autocannon instance per process in parallel, the
 *     connections split between them, req/s summed, and a baseline of N hello-world processes.
 *     Before PostgreSQL's scenarios the baseline is measured again. The CPU of the PostgreSQL
 *     backends serving the servers (their connections carry an application name of the run's
 *     own) is measured too, per response, beside the servers'.
 *     On SQLite, right before and right after GET things/:id, the hello-world is measured again the
 *     same way: that scenario's judged ratio is to the mean of these two (the machine's speed can
 *     change in the minutes since the first), and its ratio to the first is printed beside it.
 *  5. Prints req/s, p50/p99 (ms, 2xx responses, 1 ms resolution), non-2xx, ratio to the baseline
 *     and PASS/FAIL per budget, and writes everything to bench/results/latest.json (and a copy,
 *     run-<start time>.json, so earlier runs stay around). The exit code
 *     is 0 even when a budget fails (this is a report); it is 1 only when the bench itself broke.
 *
 * Budgets: things/:id ratio ≥ 0.5 and p99 ≤ 10 ms; tips ≥ 5000 2xx/s with every acknowledged tip
 * durable; search p99 ≤ 50 ms, in the first seconds after ready too; peak RSS of each server
 * process ≤ 300 MB; each server ready (GET /readyz 200) ≤ 1.5 s after its spawn; `tipjar --help` ≤ 0.5 s (median of 5 runs, before the
 * baseline). A scenario with non-2xx responses or socket errors fails too (their req/s would not
 * be the endpoint's). PostgreSQL instead: CPU per GET things/:id (servers and backends together)
 * ≤ 1.5× SQLite's server CPU per response at the same scale (this run's, else the last saved SQLite
 * run's: bench/results/sqlite-<scale>.json); tips ≥ 2,000/s durable; search p99 ≤ 100 ms at 197k,
 * ≤ 150 ms at 1M. SQLite above 197k: CPU per response, p99 and req/s of each scenario, start →
 * ready and peak RSS each within 1.3× of the last saved 197k SQLite run. A saved SQLite run keeps,
 * for each scenario it did not measure (BENCH_SCENARIOS), the figures of the last run that did;
 * each comparison names the run its reference comes from.
 *
 * Environment:
 *   BENCH_DURATION      seconds per measured scenario (default 10)
 *   BENCH_CONNECTIONS   concurrent connections in total (default 50)
 *   BENCH_WARMUP        seconds of load before each measured GET run and the baseline (default 10).
 *                       The search scenario runs first on the newly started server, so its warm-up
 *                       is the first seconds after GET /readyz answered 200: its p99 is judged
 *                       against the same 50 ms (DESIGN.md: "from the first second a server reports
 *                       ready"). For the other GET scenarios and the baseline it is printed and
 *                       kept in the report, not judged.
 *   BENCH_SCALE         197k (default: the catalogue as it is) or 1m: a catalogue of 1,000,000 things
 *                       derived from it deterministically (bench/lib/catalogue.ts; written once to
 *                       bench/results/npm-1m.tsv), imported into bench/results/bench-1m.db and
 *                       into the PostgreSQL schema of BENCH_DATABASE_URL with `_1m` appended; an
 *                       import that was stopped resumes (rows already there are skipped)
 *   BENCH_PG_PROCESSES  server processes on PostgreSQL (default 1: PostgreSQL's budgets are for one
 *                       instance; several instances are measured by `npm run bench:cluster`)
 *   BENCH_USERS         bench users with tokens (default 1000)
 *   BENCH_CATALOGUE     catalogue TSV (default <project>/../shared/data/npm-packages.tsv)
 *   BENCH_SQLITE_PATH   SQLite bench database (default bench/results/bench.db, at 1m bench-1m.db; gitignored)
 *   BENCH_DATABASE_URL  postgres://…[?schema=s]: also run on PostgreSQL, in schema s (default
 *                       `bench`; created when missing; never the database's default schema), e.g.
 *                       postgres://postgres@127.0.0.1:5432/test?schema=bench
 *   BENCH_SKIP_SQLITE   1: skip the SQLite run (only with BENCH_DATABASE_URL)
 *   BENCH_RESET         1: start from an empty bench database (delete the SQLite file, drop the
 *                       PostgreSQL schema named in ?schema=) and import everything again. A SQLite
 *                       bench database whose migrations no longer apply is rebuilt automatically.
 *   BENCH_SCENARIOS     comma list of scenarios to run: things,search,tips (default all)
 *   BENCH_SERVER_NODE_FLAGS  extra `node` flags for the server processes (after those of the
 *                       start script, so they can override them), e.g. `--trace-gc`
 *   BENCH_CPU_PROF      1: run the servers with `node --cpu-prof`; profiles (one per server
 *                       process, covering all its scenarios) go to bench/results/prof/; summarise
 *                       one with `node --import tsx bench/profile-summary.ts <file.cpuprofile>`
 *   REDIS_URL, DATABASE_POOL_SIZE, SQLITE_SYNCHRONOUS, WARMUP_SECONDS
 *                       passed through to the servers unchanged when set (like the rest of the
 *                       environment; DATABASE_URL, PORT, HOST, PUBLIC_URL, LOG_LEVEL are set here)
 *   RATE_LIMIT_ANONYMOUS, RATE_LIMIT_AUTHENTICATED
 *                       default here to 1e9 per hour: the servers still count every request
 *                       (that cost is part of the figures), but no scenario runs into the limit
 * Server logs go to bench/results/logs/. All traffic stays on 127.0.0.1. Every child process is
 * stopped at the end, and killed on error or Ctrl-C.
 *
 * Usage:
 *   npm run bench
 *   BENCH_DATABASE_URL='postgres://postgres@127.0.0.1:5432/test?schema=bench' npm run bench
 *   BENCH_DURATION=3 BENCH_USERS=200 npm run bench          (a quick smoke run)
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import {
  guardChildren,
  sampleRss,
  startScriptNodeFlags,
  startServer,
  stopServer,
  type Server,
} from './lib/processes.ts';
import { runLoad, type LoadFigures, type RequestsFactory } from './lib/load.ts';
import { firstUntippedIndex, prepareBenchDatabase, type BenchData } from './lib/setup.ts';
import { deriveCatalogue, parseScale, SCALES, type Scale } from './lib/catalogue.ts';

/** The token the bench's servers ask of a scrape of GET /metrics (METRICS_TOKEN). */
const BENCH_METRICS_TOKEN = randomBytes(32).toString('hex');

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results');
const LOGS = join(RESULTS, 'logs');

function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}, got "${raw}"`);
  return n;
}

const scale: Scale = parseScale(process.env.BENCH_SCALE);

/**
 * The PostgreSQL URL the bench uses: BENCH_DATABASE_URL in a schema of the bench's own, its
 * `?schema=` or else `bench` (never the database's default schema, which may hold other data),
 * with `_1m` appended at the 1M scale (the 197k and 1M databases live side by side).
 */
function scaledPostgresUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const u = new URL(url);
  const schema = u.searchParams.get('schema') || 'bench';
  u.searchParams.set('schema', scale === '197k' ? schema : `${schema}_${scale}`);
  return u.toString();
}

/** The catalogue imported at this run's scale (main derives the 1M one first). */
let catalogue = '';

const settings = {
  scale,
  durationS: intEnv('BENCH_DURATION', 10, 1),
  connections: intEnv('BENCH_CONNECTIONS', 50, 2),
  warmupS: intEnv('BENCH_WARMUP', 10, 0),
  users: intEnv('BENCH_USERS', 1000, 2),
  catalogue: resolve(ROOT, process.env.BENCH_CATALOGUE || '../shared/data/npm-packages.tsv'),
  sqlitePath: resolve(
    ROOT,
    process.env.BENCH_SQLITE_PATH || (scale === '197k' ? 'bench/results/bench.db' : `bench/results/bench-${scale}.db`),
  ),
  postgresUrl: scaledPostgresUrl(process.env.BENCH_DATABASE_URL || undefined),
  postgresProcesses: intEnv('BENCH_PG_PROCESSES', 1, 1),
  skipSqlite: process.env.BENCH_SKIP_SQLITE === '1',
  cpuProf: process.env.BENCH_CPU_PROF === '1',
  serverNodeFlags: (process.env.BENCH_SERVER_NODE_FLAGS || '').split(/\s+/).filter(Boolean),
  reset: process.env.BENCH_RESET === '1',
  scenarios: new Set((process.env.BENCH_SCENARIOS || 'things,search,tips').split(',').map((x) => x.trim())),
};

/** Tipjar settings the servers inherit from the bench's environment that change its figures (README "Configuration"). */
const SERVER_SETTINGS = Object.fromEntries(
  [
    'SQLITE_READ_THREADS',
    'SQLITE_CACHE_MB',
    'SQLITE_SYNCHRONOUS',
    'SEARCH_CACHE_SECONDS',
    'SEARCH_CACHE_ENTRIES',
    'DATABASE_POOL_SIZE',
    'WARMUP_SECONDS',
  ]
    .filter((k) => process.env[k] !== undefined)
    .map((k) => [k, process.env[k]!]),
);

const BUDGET = {
  thingsRatio: 0.5,
  thingsP99Ms: 10,
  tipsPerSec: 5000,
  searchP99Ms: 50,
  rssMb: 300,
  readyMs: 1500,
  helpMs: 500,
};
/** PostgreSQL's budgets (DESIGN.md): judged instead of SQLite's for the same figure. */
const PG_BUDGET = {
  /** total CPU per GET /things/:id (servers + backends) ≤ this × SQLite's server CPU per response */
  thingsCpuVsSqlite: 1.5,
  tipsPerSec: 2000,
  searchP99Ms: { '197k': 100, '1m': 150 } as Record<Scale, number>,
};
/** SQLite at a larger scale: each figure within this factor of its 197k figure (DESIGN.md). */
const SCALE_FACTOR = 1.3;

/** The budgets a scenario on `engine` is judged against at this run's scale. */
function budgetOf(engine: 'sqlite' | 'postgres') {
  return engine === 'postgres'
    ? { tipsPerSec: PG_BUDGET.tipsPerSec, searchP99Ms: PG_BUDGET.searchP99Ms[scale], thingsJudged: false }
    : { tipsPerSec: BUDGET.tipsPerSec, searchP99Ms: BUDGET.searchP99Ms, thingsJudged: true };
}
const API = '/rest/v2';

type Verdict = 'PASS' | 'FAIL';

interface ScenarioReport {
  name: string;
  verdict: Verdict;
  /** why it failed */
  notes: string[];
  figures?: LoadFigures;
  ratio?: number;
  /** GET things/:id where judged: `ratio` is to the mean req/s of these hello-worlds, measured right before and right after the run */
  adjacentBaselines?: [LoadFigures, LoadFigures];
  /** GET things/:id where judged: the ratio to the run's first baseline */
  ratioToFirstBaseline?: number;
  durability?: Durability;
  /** search: the servers' cache hits and misses during the measured run */
  cache?: { hits: number; misses: number };
  /** the warm-up run before the measured one (BENCH_WARMUP): reported, not judged */
  warmup?: LoadFigures;
  /** in a saved SQLite reference (sqlite-<scale>.json): the start of the run that measured it */
  measuredAt?: string;
}

interface EngineReport {
  engine: 'sqlite' | 'postgres';
  scale: Scale;
  processes: number;
  baseline: LoadFigures;
  things: number;
  users: number;
  scenarios: ScenarioReport[];
  peakRssMb: Record<string, number>;
  rssVerdict: Verdict;
  /** milliseconds from each server's spawn to its first GET /readyz 200 */
  readyMs: Record<string, number>;
  readyVerdict: Verdict;
}

interface Durability {
  acknowledged: number;
  rows: number;
  missingAcknowledged: number;
  /** things in the tipped window whose `tips` counter differs from their tip rows */
  counterMismatches: number;
  /** sum(things.tips) and count(tips) over the whole database */
  totalCounter: number;
  totalRows: number;
  /** requests that timed out (sent, never answered): each may or may not have been committed */
  unacknowledgedTimeouts: number;
  durable: boolean;
}

/** A database URL without its password, for the report. */
function redact(url: string | undefined): string | undefined {
  if (!url) return url;
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Child environment: ours, minus settings the bench decides, plus `extra`. */
function childEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of ['DATABASE_URL', 'PORT', 'HOST', 'PUBLIC_URL', 'SITE_URL', 'AUTH_URL', 'LOG_LEVEL', 'METRICS_PORT'])
    delete env[k];
  return { ...env, ...extra };
}

async function startHello(count: number): Promise<Server[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      servers.push(
        await startServer({
          name: `hello-${i + 1}`,
          args: ['--import', 'tsx', 'bench/hello.ts'],
          cwd: ROOT,
          env: childEnv({}),
          logDir: LOGS,
        }),
      );
    }
    return servers;
  } catch (err) {
    await Promise.all(servers.map((s) => stopServer(s)));
    throw err;
  }
}

/**
 * Fastify hello-world with `processes` processes, measured like the scenarios; `label` names the
 * measurement in the printed line.
 */
async function measureBaseline(processes: number, label = 'baseline'): Promise<LoadFigures> {
  const servers = await startHello(processes);
  try {
    const targets = servers.map((s) => s.url);
    // Built per request by a setupRequest hook, as every scenario's requests are: autocannon
    // shares the machine's cores with the server, and a request it builds per call costs it more
    // CPU than one it built once, so a prebuilt baseline would be driven harder than any scenario
    // can be (docs/adr/0046). Driven alike, the two runs differ only in the server.
    const requests: RequestsFactory = () => [
      {
        method: 'GET',
        setupRequest: (req) => {
          req.path = '/';
          return req;
        },
      },
    ];
    await warmUp(targets, requests);
    const figures = await runLoad({
      targets,
      connections: settings.connections,
      durationS: settings.durationS,
      requests,
      pids: servers.map((s) => s.pid),
    });
    console.log(
      `  ${label}: Fastify hello-world ×${processes}: ${fmt(figures.reqPerSec)} req/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, ` +
        `non-2xx ${figures.non2xx}; server CPU ${figures.serverCpuUsPerReq} µs/response, ${figures.serverCores} cores (load generator ${figures.loadGenCores})`,
    );
    return figures;
  } finally {
    await Promise.all(servers.map((s) => stopServer(s)));
  }
}

/**
 * PostgreSQL: the pids of the backends serving this run's servers (their connections carry the
 * application name BACKEND_APP), for the CPU per response of the database; undefined on SQLite.
 */
let backendPids: (() => Promise<number[]>) | undefined;
const BACKEND_APP = `tipjar-bench-${process.pid}`;

async function startTipjar(engine: string, url: string, processes: number): Promise<Server[]> {
  if (engine === 'postgres') {
    const u = new URL(url);
    u.searchParams.set('application_name', BACKEND_APP);
    url = u.toString();
  }
  const servers: Server[] = [];
  try {
    // One after the other: each migrates on start, and the first has already done it for the next.
    for (let i = 0; i < processes; i++) {
      const server = await startServer({
        name: `tipjar-${engine}-${i + 1}`,
        args: [
          ...startScriptNodeFlags(ROOT),
          ...settings.serverNodeFlags,
          ...(settings.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'prof')}`] : []),
          'bin/tipjar.js',
          'serve',
        ],
        cwd: ROOT,
        env: childEnv({
          DATABASE_URL: url,
          LOG_LEVEL: 'warn',
          // Every request is still counted, but the bench measures the endpoints, not 403s.
          RATE_LIMIT_ANONYMOUS: process.env.RATE_LIMIT_ANONYMOUS || '1000000000',
          RATE_LIMIT_AUTHENTICATED: process.env.RATE_LIMIT_AUTHENTICATED || '1000000000',
          METRICS_TOKEN: BENCH_METRICS_TOKEN,
        }),
        logDir: LOGS,
        readyTimeoutMs: 120_000,
        readyPath: '/readyz',
      });
      servers.push(server);
    }
    return servers;
  } catch (err) {
    await Promise.all(servers.map((s) => stopServer(s)));
    throw err;
  }
}

function loadProblems(f: LoadFigures): string[] {
  const notes: string[] = [];
  if (f.non2xx > 0)
    notes.push(
      `${f.non2xx} non-2xx responses (${Object.entries(f.statusCodes)
        .map(([c, n]) => `${c}: ${n}`)
        .join(', ')})`,
    );
  if (f.errors > 0) notes.push(`${f.errors} socket errors (${f.timeouts} timeouts)`);
  return notes;
}

function verdictOf(notes: string[]): Verdict {
  return notes.length ? 'FAIL' : 'PASS';
}

/** The warm-up run of a GET scenario (BENCH_WARMUP seconds of the same load), or undefined when it is 0. */
async function warmUp(targets: string[], requests: RequestsFactory): Promise<LoadFigures | undefined> {
  if (settings.warmupS <= 0) return undefined;
  return runLoad({ targets, connections: settings.connections, durationS: settings.warmupS, requests });
}

async function thingsScenario(
  engine: 'sqlite' | 'postgres',
  data: BenchData,
  servers: Server[],
  baseline: LoadFigures,
): Promise<ScenarioReport> {
  const targets = servers.map((s) => s.url);
  const pids = servers.map((s) => s.pid);
  const ids = data.thingIds;
  const requests: RequestsFactory = () => [
    {
      method: 'GET',
      setupRequest: (req) => {
        req.path = `${API}/things/${ids[Math.floor(Math.random() * ids.length)]}`;
        return req;
      },
    },
  ];
  // PostgreSQL's budget for this scenario is its CPU per response against SQLite's (judged in the
  // summary). On SQLite the judged ratio is to the mean of two hello-worlds measured like this run,
  // right before and right after it, so that a change of the machine's speed in the minutes since
  // the run's first baseline, or during one of them, does not decide the verdict; the ratio to
  // that first baseline is reported beside it.
  const judged = budgetOf(engine).thingsJudged;
  const before = judged ? await measureBaseline(servers.length, 'baseline right before GET things/:id') : undefined;
  const warmup = await warmUp(targets, requests);
  const f = await runLoad({
    targets,
    connections: settings.connections,
    durationS: settings.durationS,
    requests,
    pids,
    backendPids,
  });
  const notes = loadProblems(f);
  if (!before) {
    return {
      name: 'GET things/:id',
      verdict: verdictOf(notes),
      notes,
      figures: f,
      ratio: f.reqPerSec / baseline.reqPerSec,
      warmup,
    };
  }
  const after = await measureBaseline(servers.length, 'baseline right after GET things/:id');
  const ratio = f.reqPerSec / ((before.reqPerSec + after.reqPerSec) / 2);
  if (ratio < BUDGET.thingsRatio) notes.push(`ratio ${ratio.toFixed(2)} < ${BUDGET.thingsRatio}`);
  if (f.p99Ms > BUDGET.thingsP99Ms) notes.push(`p99 ${f.p99Ms} ms > ${BUDGET.thingsP99Ms} ms`);
  return {
    name: 'GET things/:id',
    verdict: verdictOf(notes),
    notes,
    figures: f,
    ratio,
    ratioToFirstBaseline: f.reqPerSec / baseline.reqPerSec,
    adjacentBaselines: [before, after],
    warmup,
  };
}

/* ------------------------------------------------------------------------------------------------
 * SEARCH SCENARIO — GET /rest/v2/things/search?query=… (budget: p99 ≤ 50 ms).
 * Half the requests are popular searches (SEARCH_REQUESTS: realistic one- and two-word queries
 * with the default relevance, the other sorts, a tags expression, a category, page 2), which the
 * server's search cache may answer after their first run; the other half are the long tail: a
 * word of the catalogue's package names (data.queryWords, thousands of them) with one of the same
 * variants, almost never asked twice in a run, so they measure the search itself. The server's
 * cache hits and misses (GET /metrics) are reported. Probed once first: anything but a 200 fails
 * the scenario.
 * --------------------------------------------------------------------------------------------- */
const SEARCH_TERMS = [
  'parser',
  'json',
  'yaml',
  'react',
  'cli',
  'test',
  'http',
  'express',
  'webpack',
  'eslint',
  'babel',
  'vue',
  'logger',
  'config',
  'date',
  'color',
  'markdown',
  'image',
  'crypto',
  'stream',
  'promise',
  'server',
  'router',
  'database',
  'redis',
  'plugin',
  'typescript',
  'validation',
  'react component',
  'json schema',
  'http client',
  'command line',
  'test runner',
  'yaml parser',
];
const SEARCH_VARIANTS = [
  '',
  '',
  '',
  '',
  '', // relevance (the default) most often
  '&sort=trend',
  '&sort=tips',
  '&sort=tips_month',
  '&sort=tips_week',
  '&sort=tips_day',
  '&tags=npm',
  '&tags=react%20%7C%20vue',
  '&tags=cli%20%26%20!test',
  '&category=software',
  '&page=2',
  '&count=10&full',
];
/** Every (term, variant) pair as a request path: 34 × 16 distinct searches. */
const SEARCH_REQUESTS = SEARCH_TERMS.flatMap((term) =>
  SEARCH_VARIANTS.map((v) => `${API}/things/search?query=${encodeURIComponent(term)}${v}`),
);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

/** The servers' search cache counts (tipjar_search_cache_requests_total), summed; zeros when the cache is off. */
async function searchCacheCounts(targets: string[]): Promise<{ hits: number; misses: number }> {
  const counts = { hits: 0, misses: 0 };
  for (const target of targets) {
    const text = await (
      await fetch(`${target}/metrics`, {
        headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` },
        signal: AbortSignal.timeout(10_000),
      })
    ).text();
    for (const [, result, n] of text.matchAll(/^tipjar_search_cache_requests_total\{result="(hit|miss)"\} (\d+)$/gm)) {
      counts[result === 'hit' ? 'hits' : 'misses'] += Number(n);
    }
  }
  return counts;
}

async function searchScenario(
  engine: 'sqlite' | 'postgres',
  data: BenchData,
  servers: Server[],
  baseline: LoadFigures,
): Promise<ScenarioReport> {
  const targets = servers.map((s) => s.url);
  const pids = servers.map((s) => s.pid);
  const name = 'GET things/search';
  const probeUrl = `${targets[0]}${API}/things/search?query=${encodeURIComponent(data.queryWords[0]!)}`;
  let status: number;
  try {
    const res = await fetch(probeUrl, { signal: AbortSignal.timeout(10_000) });
    status = res.status;
    await res.arrayBuffer();
  } catch (err) {
    return { name, verdict: 'FAIL', notes: [`probe failed: ${(err as Error).message}`] };
  }
  if (status !== 200) return { name, verdict: 'FAIL', notes: [`probe ${probeUrl} answered ${status}`] };
  const tail = data.queryWords;
  const requests: RequestsFactory = () => [
    {
      method: 'GET',
      setupRequest: (req) => {
        req.path =
          Math.random() < 0.5
            ? pick(SEARCH_REQUESTS)
            : `${API}/things/search?query=${encodeURIComponent(pick(tail))}${pick(SEARCH_VARIANTS)}`;
        return req;
      },
    },
  ];
  const warmup = await warmUp(targets, requests);
  const before = await searchCacheCounts(targets);
  const f = await runLoad({
    targets,
    connections: settings.connections,
    durationS: settings.durationS,
    requests,
    pids,
    backendPids,
  });
  const after = await searchCacheCounts(targets);
  const hits = after.hits - before.hits;
  const misses = after.misses - before.misses;
  console.log(
    `           search cache: ${fmt(hits)} hits, ${fmt(misses)} misses` +
      (hits + misses > 0
        ? ` (${((100 * hits) / (hits + misses)).toFixed(0)} % hits; ${tail.length} long-tail words)`
        : ' (cache off)'),
  );
  const notes = loadProblems(f);
  const p99Budget = budgetOf(engine).searchP99Ms;
  if (f.p99Ms > p99Budget) notes.push(`p99 ${f.p99Ms} ms > ${p99Budget} ms`);
  // The search runs first on a newly started server, so its warm-up load is the first seconds after
  // ready, which the budget covers too.
  if (warmup && warmup.p99Ms > p99Budget)
    notes.push(`first ${warmup.durationS} s after ready: p99 ${warmup.p99Ms} ms > ${p99Budget} ms`);
  return {
    name,
    verdict: verdictOf(notes),
    notes,
    figures: f,
    ratio: f.reqPerSec / baseline.reqPerSec,
    cache: { hits, misses },
    warmup,
  };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

async function tipsScenario(
  engine: 'sqlite' | 'postgres',
  data: BenchData,
  servers: Server[],
  baseline: LoadFigures,
): Promise<ScenarioReport> {
  const targets = servers.map((s) => s.url);
  const pids = servers.map((s) => s.pid);
  const name = 'POST things/:id/tip';
  const U = data.tokens.length;
  const offset = await firstUntippedIndex(data);
  const warmupAmount = settings.connections * 100;
  // Pair capacity U·W must exceed every request this run can send (at a generous 60k/s).
  const maxRequests = warmupAmount + settings.durationS * 60_000;
  let W = Math.max(50, Math.ceil(maxRequests / U));
  for (let i = 0; i < U && gcd(W, U) !== 1; i++) W++;
  if (offset + W > data.thingIds.length) {
    return {
      name,
      verdict: 'FAIL',
      notes: [
        `this month's untipped things are used up (${offset} of ${data.thingIds.length} tipped): remove the bench database or use fewer users/seconds`,
      ],
    };
  }
  const ids = data.thingIds;
  const tokens = data.tokens;
  const acknowledged: number[] = [];
  // One counter per autocannon instance; instance k of K sends n = k, k+K, k+2K, …
  const counters: number[] = [];
  const requests: RequestsFactory = (k, K) => {
    counters[k] ??= 0;
    return [
      {
        method: 'POST',
        setupRequest: (req, ctx) => {
          const n = counters[k]!++ * K + k;
          ctx.n = n;
          req.path = `${API}/things/${ids[offset + (n % W)]}/tip`;
          req.headers = { ...req.headers, authorization: `Bearer ${tokens[n % U]}` };
          return req;
        },
        onResponse: (status, _body, ctx) => {
          if (status >= 200 && status < 300) acknowledged.push(ctx.n as number);
        },
      },
    ];
  };
  const startedAt = Math.floor(Date.now() / 1000) - 1;
  const warm = await runLoad({
    targets,
    connections: settings.connections,
    durationS: 0,
    amount: warmupAmount,
    requests,
  });
  const amount = Math.min(
    Math.max(settings.connections * 20, Math.round(Math.max(warm.reqPerSec, 1) * settings.durationS)),
    U * W - warmupAmount - settings.connections,
  );
  const f = await runLoad({
    targets,
    connections: settings.connections,
    durationS: settings.durationS,
    amount,
    requests,
    pids,
    backendPids,
  });
  const durability = await verifyTips(data, acknowledged, { offset, W, U, startedAt });
  const notes = loadProblems(f);
  const warmProblems = loadProblems(warm);
  if (warmProblems.length) notes.push(`warm-up: ${warmProblems.join('; ')}`);
  const tipsBudget = budgetOf(engine).tipsPerSec;
  if (f.okPerSec < tipsBudget) notes.push(`${fmt(f.okPerSec)} tips/s < ${fmt(tipsBudget)}`);
  const acked2xx = warm.ok2xx + f.ok2xx;
  if (acknowledged.length !== acked2xx)
    notes.push(`bench bookkeeping: ${acknowledged.length} acknowledged ≠ ${acked2xx} 2xx`);
  if (durability.missingAcknowledged > 0)
    notes.push(`${durability.missingAcknowledged} acknowledged tips missing from the tips table`);
  // A timed-out request was abandoned by autocannon (its connection closed), but the server may
  // still have committed it: a row without an acknowledgement is no durability failure, so up to
  // that many extra rows are reported, not failed (the timeouts themselves fail the run above).
  const timeouts = warm.timeouts + f.timeouts;
  durability.unacknowledgedTimeouts = timeouts;
  if (durability.rows < acked2xx || durability.rows - acked2xx > timeouts) {
    notes.push(`tips rows ${durability.rows} ≠ 2xx count ${acked2xx}`);
  }
  if (durability.counterMismatches > 0)
    notes.push(`${durability.counterMismatches} things whose tips counter ≠ tip rows`);
  if (durability.totalCounter !== durability.totalRows)
    notes.push(`sum(things.tips) ${durability.totalCounter} ≠ count(tips) ${durability.totalRows}`);
  durability.durable =
    durability.missingAcknowledged === 0 &&
    durability.counterMismatches === 0 &&
    durability.totalCounter === durability.totalRows;
  return { name, verdict: verdictOf(notes), notes, figures: f, ratio: f.reqPerSec / baseline.reqPerSec, durability };
}

/**
 * Reads back what the tip scenario wrote (run while the servers are still up, through a separate
 * connection: a committed tip is in the database file / WAL, whatever the server does next).
 */
async function verifyTips(
  data: BenchData,
  acknowledged: number[],
  p: { offset: number; W: number; U: number; startedAt: number },
): Promise<Durability> {
  const db = data.database.db;
  const lo = data.thingIds[p.offset]!;
  const hi = data.thingIds[p.offset + p.W - 1]!;
  const rows = await db
    .selectFrom('tips')
    .select(['tipper_id', 'thing_id'])
    .where('thing_id', '>=', lo)
    .where('thing_id', '<=', hi)
    .where('created_at', '>=', p.startedAt)
    .execute();
  const present = new Set(rows.map((r) => `${r.tipper_id}:${r.thing_id}`));
  let missing = 0;
  for (const n of acknowledged) {
    if (!present.has(`${data.userIds[n % p.U]}:${data.thingIds[p.offset + (n % p.W)]}`)) missing++;
  }
  const mism = await sql<{ n: number | string }>`
    select count(*) as n from things t
    where t.id >= ${lo} and t.id <= ${hi}
      and t.tips <> (select count(*) from tips x where x.thing_id = t.id)`.execute(db);
  const totals = await sql<{ a: number | string | null; b: number | string }>`
    select (select sum(tips) from things) as a, (select count(*) from tips) as b`.execute(db);
  return {
    acknowledged: acknowledged.length,
    rows: rows.length,
    missingAcknowledged: missing,
    counterMismatches: Number(mism.rows[0]?.n ?? 0),
    totalCounter: Number(totals.rows[0]?.a ?? 0),
    totalRows: Number(totals.rows[0]?.b ?? 0),
    unacknowledgedTimeouts: 0,
    durable: false,
  };
}

/**
 * The search results a server took from the snapshot the server before it kept (docs/adr/0033), as
 * its "Warmed up …" line reports them; undefined when the line is not in its log within 2 s.
 */
async function keptSearchResults(server: Server): Promise<number | undefined> {
  for (let waited = 0; waited < 2000; waited += 50) {
    const m = /(\d+) search results kept from the last run/.exec(readFileSync(server.logFile, 'utf8'));
    if (m) return Number(m[1]);
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

async function runEngine(
  engine: 'sqlite' | 'postgres',
  url: string,
  processes: number,
  baseline: LoadFigures,
): Promise<EngineReport> {
  console.log(`\n== ${engine}: ${processes} server process${processes > 1 ? 'es' : ''} ==`);
  const data = await prepareBenchDatabase(url, catalogue, settings.users, { reset: settings.reset });
  backendPids =
    engine === 'postgres'
      ? async () =>
          (
            await sql<{
              pid: number;
            }>`select pid from pg_stat_activity where application_name = ${BACKEND_APP}`.execute(data.database.db)
          ).rows.map((r) => Number(r.pid))
      : undefined;
  let servers: Server[] = [];
  try {
    servers = await startTipjar(engine, url, processes);
    const readyMs = Object.fromEntries(servers.map((s) => [s.name, s.readyMs]));
    const readyVerdict: Verdict = Math.max(...Object.values(readyMs)) <= BUDGET.readyMs ? 'PASS' : 'FAIL';
    console.log(
      `  ${engine.padEnd(8)} ready (GET /readyz 200 after the spawn) ${Object.entries(readyMs)
        .map(([n, ms]) => `${n} ${fmt(ms)} ms`)
        .join(', ')}  ${readyVerdict === 'PASS' ? 'PASS' : '*** FAIL ***'} (budget ≤ ${fmt(BUDGET.readyMs)} ms)`,
    );
    const kept = await Promise.all(servers.map((s) => keptSearchResults(s)));
    console.log(
      `           search results kept from the servers' last run: ${kept.map((n) => (n === undefined ? '?' : fmt(n))).join(', ')}` +
        ' (0: a first start, or things changed since; docs/adr/0033)',
    );
    const rss = sampleRss(servers.map((s) => s.pid));
    const scenarios: ScenarioReport[] = [];
    const run = async (fn: () => Promise<ScenarioReport>) => {
      const r = await fn();
      scenarios.push(r);
      printScenario(engine, r);
    };
    // Search first: its first seconds of load are the first seconds after ready (judged too).
    if (settings.scenarios.has('search')) await run(() => searchScenario(engine, data, servers, baseline));
    if (settings.scenarios.has('things')) await run(() => thingsScenario(engine, data, servers, baseline));
    if (settings.scenarios.has('tips')) await run(() => tipsScenario(engine, data, servers, baseline));
    const peaks = rss.stop();
    const peakRssMb: Record<string, number> = {};
    for (const s of servers) peakRssMb[s.name] = Math.round((peaks[s.pid] ?? 0) / 102.4) / 10;
    const worst = Math.max(...Object.values(peakRssMb));
    const rssVerdict: Verdict = worst <= BUDGET.rssMb ? 'PASS' : 'FAIL';
    console.log(
      `  ${engine.padEnd(8)} peak RSS ${Object.entries(peakRssMb)
        .map(([n, mb]) => `${n} ${mb} MB`)
        .join(', ')}  ` +
        `${rssVerdict === 'PASS' ? 'PASS' : '*** FAIL ***'} (budget ≤ ${BUDGET.rssMb} MB per process)`,
    );
    return {
      engine,
      scale,
      processes,
      baseline,
      things: data.thingIds.length,
      users: data.userIds.length,
      scenarios,
      peakRssMb,
      rssVerdict,
      readyMs,
      readyVerdict,
    };
  } finally {
    await Promise.all(servers.map((s) => stopServer(s)));
    await data.database.close();
  }
}

function printScenario(engine: string, r: ScenarioReport): void {
  const f = r.figures;
  const verdict = r.verdict === 'FAIL' ? '*** FAIL ***' : r.verdict;
  if (!f) {
    console.log(`  ${engine.padEnd(8)} ${r.name.padEnd(20)} ${verdict}  ${r.notes.join('; ')}`);
    return;
  }
  console.log(
    `  ${engine.padEnd(8)} ${r.name.padEnd(20)} ${fmt(f.reqPerSec).padStart(7)} req/s  p50 ${String(f.p50Ms).padStart(3)} ms  ` +
      `p99 ${String(f.p99Ms).padStart(3)} ms  non-2xx ${String(f.non2xx).padStart(5)}  ratio ${(r.ratio ?? 0).toFixed(2)}  ${verdict}` +
      (r.notes.length ? `  (${r.notes.join('; ')})` : ''),
  );
  console.log(
    `           server CPU ${f.serverCpuUsPerReq} µs/response, ${f.serverCores} cores busy` +
      (engine === 'postgres'
        ? `; PostgreSQL backends ${f.databaseCpuUsPerReq} µs/response, ${f.databaseCores} cores; together ${f.totalCpuUsPerReq} µs/response`
        : '') +
      ` (load generator ${f.loadGenCores} cores); ${fmt(f.responses)} responses in ${f.durationS} s`,
  );
  if (r.adjacentBaselines && r.ratioToFirstBaseline !== undefined)
    console.log(
      `           ratio ${(r.ratio ?? 0).toFixed(2)} to the mean of the hello-worlds right before and after it ` +
        `(${r.adjacentBaselines.map((b) => fmt(b.reqPerSec)).join(' and ')} req/s), ` +
        `${r.ratioToFirstBaseline.toFixed(2)} to the run's first (${fmt(f.reqPerSec / r.ratioToFirstBaseline)} req/s); ` +
        `server CPU ${f.serverCpuUsPerReq} µs per response against the hello-worlds' ${r.adjacentBaselines.map((b) => b.serverCpuUsPerReq).join(' and ')} µs`,
    );
  if (r.warmup) {
    console.log(
      `           ${r.name === 'GET things/search' ? 'first seconds after ready (judged)' : 'warm-up before it (not judged)'}: ` +
        `${fmt(r.warmup.reqPerSec)} req/s, p50 ${r.warmup.p50Ms} ms, p99 ${r.warmup.p99Ms} ms over ${r.warmup.durationS} s`,
    );
  }
  if (r.durability) {
    const d = r.durability;
    console.log(
      `           durability: ${fmt(d.acknowledged)} acknowledged, ${fmt(d.rows)} rows, ${d.missingAcknowledged} missing, ` +
        `${d.unacknowledgedTimeouts ? `${d.unacknowledgedTimeouts} timed out unanswered (may be rows), ` : ''}` +
        `${d.counterMismatches} counter mismatches, sum(things.tips) ${fmt(d.totalCounter)} vs count(tips) ${fmt(d.totalRows)} → ` +
        `${d.durable ? 'durable' : '*** NOT DURABLE ***'}`,
    );
  }
}

interface HelpReport {
  /** each timed run of `node bin/tipjar.js --help`, in ms */
  runsMs: number[];
  medianMs: number;
  verdict: Verdict;
}

/** Times `node bin/tipjar.js --help` five times, after one untimed run (which rebuilds dist/ if src/ changed). */
function measureHelp(): HelpReport {
  const once = () => {
    const started = performance.now();
    execFileSync(process.execPath, ['bin/tipjar.js', '--help'], { cwd: ROOT, stdio: 'ignore' });
    return Math.round(performance.now() - started);
  };
  once();
  const runsMs = Array.from({ length: 5 }, once);
  const medianMs = [...runsMs].sort((a, b) => a - b)[2]!;
  const verdict: Verdict = medianMs <= BUDGET.helpMs ? 'PASS' : 'FAIL';
  console.log(
    `  tipjar --help: median ${medianMs} ms of ${runsMs.join(', ')} ms  ${verdict === 'PASS' ? 'PASS' : '*** FAIL ***'} (budget ≤ ${BUDGET.helpMs} ms)`,
  );
  return { runsMs, medianMs, verdict };
}

/** A budget that compares a figure with another run's or engine's (PostgreSQL vs SQLite, 1M vs 197k). */
interface Comparison {
  name: string;
  value: number;
  reference: number;
  /** where the reference comes from: this run, or the saved report of an earlier one (its start time) */
  referenceFrom: string;
  /** value / reference must not exceed this (for throughput: reference / value) */
  limit: number;
  factor: number;
  verdict: Verdict;
}

/** The last SQLite figures at each scale, saved by every run that measured SQLite (for later comparisons). */
const sqliteReferencePath = (s: Scale) => join(RESULTS, `sqlite-${s}.json`);

interface SavedSqliteReference {
  startedAt: string;
  engine: EngineReport;
}

function readSqliteReference(s: Scale): SavedSqliteReference | undefined {
  if (!existsSync(sqliteReferencePath(s))) return undefined;
  return JSON.parse(readFileSync(sqliteReferencePath(s), 'utf8')) as SavedSqliteReference;
}

/**
 * Saves `engine` (this run's SQLite figures) as the reference at its scale. A scenario this run
 * did not measure (BENCH_SCENARIOS) keeps the figures of the last run that did, so that a partial
 * run leaves the other scenarios' references in place; each scenario records when it was measured.
 */
function saveSqliteReference(engine: EngineReport, run: { startedAt: string; loadAverageAtStart: number[] }): void {
  const { startedAt, loadAverageAtStart } = run;
  const measured = new Set(engine.scenarios.map((r) => r.name));
  const previous = readSqliteReference(engine.scale);
  const kept = (previous?.engine.scenarios ?? [])
    .filter((r) => !measured.has(r.name))
    .map((r) => ({ ...r, measuredAt: r.measuredAt ?? previous!.startedAt }));
  const scenarios = [...engine.scenarios.map((r) => ({ ...r, measuredAt: startedAt })), ...kept];
  writeFileSync(
    sqliteReferencePath(engine.scale),
    JSON.stringify(
      { startedAt, loadAverageAtStart, baseline: engine.baseline, engine: { ...engine, scenarios } },
      null,
      2,
    ) + '\n',
  );
}

/** SQLite's figures at scale `s`: this run's when it measured them, else the saved reference's. */
function loadSqliteReference(s: Scale, engines: EngineReport[]): { report: EngineReport; from: string } | undefined {
  const here = engines.find((e) => e.engine === 'sqlite' && e.scale === s);
  if (here) return { report: here, from: 'this run' };
  const saved = readSqliteReference(s);
  return saved && { report: saved.engine, from: `run of ${saved.startedAt}` };
}

/** Where a reference scenario's figures come from: `from`, or the run that measured the saved scenario. */
const scenarioFrom = (r: ScenarioReport, from: string) => (r.measuredAt ? `run of ${r.measuredAt}` : from);

/**
 * The budgets that compare figures: PostgreSQL's CPU per GET /things/:id (its servers and backends
 * together) against SQLite's at the same scale, and at a scale above 197k every SQLite figure
 * against its 197k figure (CPU per response, p99 and req/s of each scenario, start → ready, peak
 * RSS). References come from this run when it measured them, else from the last saved run.
 */
function comparisons(engines: EngineReport[]): Comparison[] {
  const out: Comparison[] = [];
  const scenario = (e: EngineReport, name: string) => e.scenarios.find((r) => r.name === name);
  const add = (name: string, value: number, reference: number, from: string, limit: number, higherIsBetter = false) => {
    if (!(reference > 0) || !(value > 0)) return;
    const factor = higherIsBetter ? reference / value : value / reference;
    out.push({
      name,
      value,
      reference,
      referenceFrom: from,
      limit,
      factor: Math.round(factor * 100) / 100,
      verdict: factor <= limit ? 'PASS' : 'FAIL',
    });
  };
  const pg = engines.find((e) => e.engine === 'postgres');
  const sqliteHere = loadSqliteReference(scale, engines);
  if (pg && sqliteHere) {
    const p = scenario(pg, 'GET things/:id')?.figures;
    const q = scenario(sqliteHere.report, 'GET things/:id');
    if (p && q?.figures)
      add(
        'postgres GET things/:id CPU µs/response (servers + backends) vs sqlite',
        p.totalCpuUsPerReq,
        q.figures.serverCpuUsPerReq,
        scenarioFrom(q, sqliteHere.from),
        PG_BUDGET.thingsCpuVsSqlite,
      );
  }
  const sqlite = engines.find((e) => e.engine === 'sqlite');
  const small = scale === '197k' ? undefined : loadSqliteReference('197k', []);
  if (sqlite && small) {
    for (const r of sqlite.scenarios) {
      const f = r.figures;
      const reference = scenario(small.report, r.name);
      const g = reference?.figures;
      if (!f || !g) continue;
      const from = scenarioFrom(reference, small.from);
      add(
        `sqlite ${r.name} CPU µs/response, ${scale} vs 197k`,
        f.serverCpuUsPerReq,
        g.serverCpuUsPerReq,
        from,
        SCALE_FACTOR,
      );
      add(`sqlite ${r.name} p99 ms, ${scale} vs 197k`, Math.max(f.p99Ms, 1), Math.max(g.p99Ms, 1), from, SCALE_FACTOR);
      add(`sqlite ${r.name} req/s, ${scale} vs 197k`, f.reqPerSec, g.reqPerSec, from, SCALE_FACTOR, true);
    }
    add(
      `sqlite start → ready ms, ${scale} vs 197k`,
      Math.max(...Object.values(sqlite.readyMs)),
      Math.max(...Object.values(small.report.readyMs)),
      small.from,
      SCALE_FACTOR,
    );
    add(
      `sqlite peak RSS MB, ${scale} vs 197k`,
      Math.max(...Object.values(sqlite.peakRssMb)),
      Math.max(...Object.values(small.report.peakRssMb)),
      small.from,
      SCALE_FACTOR,
    );
  }
  return out;
}

function printSummary(engines: EngineReport[], help: HelpReport, compared: Comparison[]): void {
  console.log('\n== summary ==');
  console.log(`  tipjar --help ${help.medianMs} ms  ${help.verdict === 'FAIL' ? '*** FAIL ***' : 'PASS'}`);
  console.log(
    `  ${'engine'.padEnd(8)} ${'scenario'.padEnd(20)} ${'req/s'.padStart(7)}  ${'p50'.padStart(6)}  ${'p99'.padStart(6)}  ${'non-2xx'.padStart(7)}  ${'ratio'.padStart(5)}  verdict`,
  );
  for (const e of engines) {
    for (const r of e.scenarios) {
      const f = r.figures;
      const verdict = r.verdict === 'FAIL' ? '*** FAIL ***' : r.verdict;
      console.log(
        `  ${e.engine.padEnd(8)} ${r.name.padEnd(20)} ${(f ? fmt(f.reqPerSec) : '-').padStart(7)}  ${(f ? `${f.p50Ms} ms` : '-').padStart(6)}  ` +
          `${(f ? `${f.p99Ms} ms` : '-').padStart(6)}  ${(f ? String(f.non2xx) : '-').padStart(7)}  ${(r.ratio !== undefined ? r.ratio.toFixed(2) : '-').padStart(5)}  ${verdict}`,
      );
    }
    const slowest = Math.max(...Object.values(e.readyMs));
    console.log(
      `  ${e.engine.padEnd(8)} ${'start → ready'.padEnd(20)} ${`${fmt(slowest)} ms`.padStart(7)}  ${''.padStart(6)}  ${''.padStart(6)}  ${''.padStart(7)}  ${''.padStart(5)}  ${e.readyVerdict === 'FAIL' ? '*** FAIL ***' : 'PASS'}`,
    );
    const worst = Math.max(...Object.values(e.peakRssMb));
    console.log(
      `  ${e.engine.padEnd(8)} ${'peak RSS'.padEnd(20)} ${`${worst} MB`.padStart(7)}  ${''.padStart(6)}  ${''.padStart(6)}  ${''.padStart(7)}  ${''.padStart(5)}  ${e.rssVerdict === 'FAIL' ? '*** FAIL ***' : 'PASS'}`,
    );
  }
  if (compared.length)
    console.log(`  comparisons (at ${scale}; value / reference ≤ limit, req/s the other way round):`);
  for (const c of compared) {
    console.log(
      `  ${c.name.padEnd(72)} ${fmt(c.value)} vs ${fmt(c.reference)} (${c.referenceFrom}) = ${c.factor.toFixed(2)}× ` +
        `${c.verdict === 'FAIL' ? '*** FAIL ***' : 'PASS'} (≤ ${c.limit}×)`,
    );
  }
  const failed = [
    ...(help.verdict === 'FAIL' ? ['tipjar --help'] : []),
    ...compared.filter((c) => c.verdict === 'FAIL').map((c) => c.name),
    ...engines.flatMap((e) => [
      ...e.scenarios.filter((s) => s.verdict === 'FAIL').map((s) => `${e.engine} ${s.name}`),
      ...(e.rssVerdict === 'FAIL' ? [`${e.engine} peak RSS`] : []),
      ...(e.readyVerdict === 'FAIL' ? [`${e.engine} start → ready`] : []),
    ]),
  ];
  console.log(failed.length ? `\n*** FAIL: ${failed.join(', ')} ***` : '\nall budgets met');
}

async function main(): Promise<void> {
  guardChildren();
  mkdirSync(RESULTS, { recursive: true });
  const startedAt = new Date().toISOString();
  const loadAverageAtStart = loadavg();
  console.log(
    `Tipjar bench — ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GB, node ${process.version}; ` +
      `${settings.connections} connections, ${settings.durationS} s per scenario, ${settings.warmupS} s warm-up, ${settings.users} users`,
  );
  console.log(
    `  load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at start (other processes share these CPUs: figures are noisy when it is high)`,
  );
  const serverSettings = Object.entries(SERVER_SETTINGS).map(([k, v]) => `${k}=${v}`);
  console.log(
    `  server node flags: ${[...startScriptNodeFlags(ROOT), ...settings.serverNodeFlags].join(' ') || '(none)'} (npm start's, then BENCH_SERVER_NODE_FLAGS)`,
  );
  if (serverSettings.length) console.log(`  server settings from the environment: ${serverSettings.join(' ')}`);
  if (settings.skipSqlite && !settings.postgresUrl) throw new Error('BENCH_SKIP_SQLITE=1 needs BENCH_DATABASE_URL');
  const engines: EngineReport[] = [];
  const baselines: Record<string, LoadFigures> = {};
  const stamp = startedAt.replace(/[:.]/g, '-');
  const writeReport = () => {
    const report = {
      startedAt,
      finishedAt: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadAverageAtStart,
      settings: {
        ...settings,
        postgresUrl: redact(settings.postgresUrl),
        scenarios: [...settings.scenarios],
        server: SERVER_SETTINGS,
        serverNodeFlags: [...startScriptNodeFlags(ROOT), ...settings.serverNodeFlags],
      },
      budgets: { ...BUDGET, postgres: PG_BUDGET, scaleFactor: SCALE_FACTOR },
      help,
      baselines,
      engines,
      comparisons: comparisons(engines),
    };
    const text = JSON.stringify(report, null, 2) + '\n';
    writeFileSync(join(RESULTS, 'latest.json'), text);
    writeFileSync(join(RESULTS, `run-${stamp}.json`), text);
  };
  console.log(`  scale: ${scale} things`);
  catalogue =
    scale === '197k'
      ? settings.catalogue
      : await deriveCatalogue(settings.catalogue, join(RESULTS, `npm-${scale}.tsv`), SCALES[scale], (m) =>
          console.log(`  setup: ${m}`),
        );
  const help = measureHelp();
  baselines.single = await measureBaseline(1);
  if (!settings.skipSqlite) {
    const sqlite = await runEngine('sqlite', `sqlite:${settings.sqlitePath}`, 1, baselines.single);
    engines.push(sqlite);
    saveSqliteReference(sqlite, { startedAt, loadAverageAtStart });
    writeReport();
  }
  if (settings.postgresUrl) {
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(settings.postgresUrl).hostname)) {
      throw new Error('BENCH_DATABASE_URL must point at 127.0.0.1 or localhost');
    }
    const baseline = await measureBaseline(settings.postgresProcesses, 'baseline before PostgreSQL');
    baselines[`before postgres, ×${settings.postgresProcesses}`] = baseline;
    engines.push(await runEngine('postgres', settings.postgresUrl, settings.postgresProcesses, baseline));
  }
  writeReport();
  printSummary(engines, help, comparisons(engines));
  console.log(`\nfigures written to ${join(RESULTS, 'latest.json')}`);
}

try {
  await main();
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
}
