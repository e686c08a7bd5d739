/**
 * `npm run bench:cluster` — Tipjar as several instances behind nginx on one PostgreSQL database and
 * one Redis, checked for correctness under load and measured (docs/adr/0029-cluster.md).
 *
 * What it does, in order:
 *  1. Finds nginx (installs Debian's `nginx` package when it is missing and this runs as root with
 *     apt-get; otherwise says how and exits 1). Creates a temporary folder for the run's
 *     configurations and logs, a fresh PostgreSQL schema in BENCH_DATABASE_URL's database and a
 *     Redis key prefix of its own (RATE_LIMIT_KEY_PREFIX, which also prefixes the discovery cache).
 *  2. Prepares the database in-process: migrations, BENCH_CLUSTER_THINGS things of the npm
 *     catalogue, BENCH_USERS funded users with `tip` tokens, and last month's money closed for the
 *     test: owners, subscribers who tipped and subscribed last month (some of whom will be short of
 *     money this month), a partner whose webhook is a receiver started here. Last month's period is
 *     held by a claim of the bench's own, so every instance's scheduler stands back until step 6.
 *  3. Starts an SMTP server, a webhook receiver and a small web site (for discovery) on 127.0.0.1;
 *     writes `instance-<k>/.env` for each of BENCH_CLUSTER_INSTANCES instances (PostgreSQL, Redis,
 *     PUBLIC_URL = nginx, TRUST_PROXY, SCHEDULER/WEBHOOKS/MAIL on with 1 s intervals) and
 *     `nginx.conf` (bench/lib/nginx.ts, the configuration docs/operations.md shows); starts the
 *     instances as `npm start` does (`node <its flags> bin/tipjar.js serve`, in their folders) and
 *     nginx in front of them, all on 127.0.0.1.
 *  4. Throughput through nginx (50 connections): GET /things/:id (after BENCH_WARMUP s of the same
 *     load), the same straight to the instances (what nginx costs), and POST /things/:id/tip with
 *     every bench user's token; each with the instances' CPU and nginx's CPU per response.
 *  5. kill -9: GETs and tips through nginx; a third of the way in one instance is killed with
 *     SIGKILL, two thirds in it is started again. Checks that every acknowledged (2xx) tip is a row,
 *     that no tip is duplicated or was sent twice (no tip_once answer: each request is a new
 *     (user, thing) pair; no POST in nginx's log went to two instances), that no GET failed (nginx
 *     sent them on to the live instance) and that the tips counters match the rows.
 *  6. Under a background load of GETs through nginx: releases last month's claim (every instance's
 *     scheduler races to settle it, then to renew this month's subscriptions), sends tips that
 *     queue webhooks (pending things of the partner) and mail (things created for their owners),
 *     checks one token's hourly limit across the instances, the log-in failure limit across the
 *     instances, the discovery cache across the instances and that every instance's search answers
 *     show a tip made through any of them; then waits for the outboxes to drain
 *     and checks one settlement and one renewal per period and every webhook and mail delivered
 *     exactly once per id.
 *  7. Prints PASS/FAIL per check and the figures, writes bench/results/cluster.json, keeps the run's
 *     configurations and logs in bench/results/cluster-run/, and stops everything (also on failure
 *     or Ctrl-C): instances, nginx, the servers started here; drops the schema, deletes the Redis
 *     keys of the prefix, removes the temporary folder. Exit code 1 when a check failed or the bench
 *     broke.
 *
 * Environment:
 *   BENCH_CLUSTER_INSTANCES  Tipjar instances behind nginx (default 2)
 *   BENCH_DATABASE_URL       PostgreSQL server and database (default postgres://postgres@127.0.0.1:5432/test);
 *                            a schema `tipjar_cluster_<random>` is created in it and dropped at the end
 *   BENCH_REDIS_URL          Redis (default redis://127.0.0.1:6379); keys under `tipjar-bench-cluster:<random>`
 *   BENCH_DURATION           seconds per measured scenario (default 10)
 *   BENCH_WARMUP             seconds of load before the measured GET run (default 5)
 *   BENCH_CONNECTIONS        connections of the measured scenarios (default 50)
 *   BENCH_USERS              funded users with tokens (default 1000)
 *   BENCH_CLUSTER_THINGS     things imported from the catalogue (default 20000)
 *   BENCH_CLUSTER_RATE_LIMIT the instances' RATE_LIMIT_AUTHENTICATED, the limit the shared-limit check
 *                            runs into (default 1000; the tip users stay far below it)
 *   BENCH_CATALOGUE          catalogue TSV (default <project>/../shared/data/npm-packages.tsv)
 *   BENCH_CLUSTER_KEEP       1: keep the schema, the Redis keys and the temporary folder (for a look afterwards)
 *   BENCH_CLUSTER_RETRY_POSTS  1: configure nginx wrongly (`proxy_next_upstream … non_idempotent`: a POST
 *                            that reached the killed instance is resent to another), to see the kill -9
 *                            checks fail
 * All traffic stays on 127.0.0.1.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { sql, type RawBuilder } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { importThings } from '../src/cli/import-things.ts';
import { fixedClock, systemClock } from '../src/domain/clock.ts';
import { periodBounds, periodOf } from '../src/domain/periods.ts';
import { lastClosedPeriod } from '../src/domain/money/settlement.ts';
import { checkLedger } from '../src/domain/money/ledger.ts';
import type { Principal } from '../src/domain/records.ts';
import type { Services } from '../src/domain/services.ts';
import { subscribe } from '../src/domain/subscriptions.ts';
import { parseNewThing } from '../src/domain/thing-input.ts';
import { createThing } from '../src/domain/things.ts';
import { tipThing } from '../src/domain/tips.ts';
import { fundUser, registerUser } from '../src/domain/users.ts';
import { unboundedHashing } from '../src/auth/passwords.ts';
import { issueToken } from '../src/auth/tokens.ts';
import { createPartner } from '../src/webhooks/partners.ts';
import { TestSmtpServer } from '../test/helpers/smtp.ts';
import { freePort, killAllNow, startScriptNodeFlags, startServer, stopServer, type Server } from './lib/processes.ts';
import { processCpuMs, runLoad, type LoadFigures, type RequestsFactory } from './lib/load.ts';
import {
  ensureNginx,
  nginxPaths,
  NginxMissingError,
  accessLogSize,
  readAccessLog,
  startNginx,
  type AccessLine,
  type RunningNginx,
} from './lib/nginx.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results');
const API = '/rest/v2';

function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}, got "${raw}"`);
  return n;
}

const settings = {
  instances: intEnv('BENCH_CLUSTER_INSTANCES', 2, 2),
  databaseUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
  redisUrl: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379',
  durationS: intEnv('BENCH_DURATION', 10, 2),
  warmupS: intEnv('BENCH_WARMUP', 5, 0),
  connections: intEnv('BENCH_CONNECTIONS', 50, 4),
  users: intEnv('BENCH_USERS', 1000, 50),
  things: intEnv('BENCH_CLUSTER_THINGS', 20_000, 1000),
  rateLimit: intEnv('BENCH_CLUSTER_RATE_LIMIT', 1000, 10),
  catalogue: resolve(ROOT, process.env.BENCH_CATALOGUE || '../shared/data/npm-packages.tsv'),
  keep: process.env.BENCH_CLUSTER_KEEP === '1',
  retryPosts: process.env.BENCH_CLUSTER_RETRY_POSTS === '1',
};

/** Owners, subscribers (and of them, those left short of money this month) of the closed period. */
const OWNERS = 20;
const SUBSCRIBERS = 200;
const SHORT_SUBSCRIBERS = 20;
/** Tips that queue a webhook each (pending things of the partner), and tips that queue a mail each. */
const WEBHOOK_TIPS = 300;
const MAIL_TIPS = 150;
/** The claim that holds the closed period until the scheduler check releases it. */
const HOLD = 'bench-cluster:hold';
const PARTNER = 'bench';

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => console.log(line);

/* ------------------------------------------------------------------------------------------------
 * Checks and the report
 * --------------------------------------------------------------------------------------------- */

interface Check {
  name: string;
  pass: boolean;
  details: string;
  data?: unknown;
}
const checks: Check[] = [];

function check(name: string, pass: boolean, details: string, data?: unknown): void {
  checks.push({ name, pass, details, data });
  log(`  ${pass ? 'PASS' : '*** FAIL ***'}  ${name}: ${details}`);
}

interface Throughput {
  name: string;
  /** where the load went: nginx, or the instances directly */
  via: 'nginx' | 'direct';
  figures: LoadFigures;
  /**
   * CPU per response, µs: of the Tipjar instances together, of nginx (master and workers), and of
   * the PostgreSQL backends serving the instances (their connections' application_name; a backend
   * that ended during the run is not counted)
   */
  instancesCpuUsPerReq: number;
  nginxCpuUsPerReq: number;
  databaseCpuUsPerReq: number;
  /** cores kept busy on average */
  instancesCores: number;
  nginxCores: number;
  databaseCores: number;
  /** tips: acknowledged tips that are rows / acknowledged */
  durable?: { acknowledged: number; rows: number };
}
const throughput: Throughput[] = [];

/* ------------------------------------------------------------------------------------------------
 * The run: what was started and made, and how to take it all down
 * --------------------------------------------------------------------------------------------- */

interface Instance {
  index: number;
  port: number;
  dir: string;
  server?: Server;
  /** every log file of this instance (a restart writes a new one) */
  logs: string[];
}

interface Run {
  dir: string;
  schema: string;
  /** the instances' database (their connections carry `appName`) */
  dbUrl: string;
  /** application_name of the instances' PostgreSQL connections */
  appName: string;
  redisPrefix: string;
  publicUrl: string;
  nginxPort: number;
  database?: Database;
  instances: Instance[];
  nginx?: RunningNginx;
  smtp?: TestSmtpServer;
  hooks?: WebhookReceiver;
  pages?: Pages;
  loads: autocannon.Instance[];
}

let cleaningUp: Promise<void> | undefined;

/** Stops everything the run started and removes what it made (unless BENCH_CLUSTER_KEEP=1). */
async function cleanUp(run: Run): Promise<void> {
  cleaningUp ??= (async () => {
    for (const l of run.loads) l.stop();
    await Promise.all(run.instances.map((i) => (i.server ? stopServer(i.server, 5000) : undefined)));
    await run.nginx?.stop().catch(() => {});
    await run.smtp?.stop().catch(() => {});
    await run.hooks?.stop().catch(() => {});
    await run.pages?.stop().catch(() => {});
    await run.database?.close().catch(() => {});
    killAllNow();
    // The run's configurations and logs stay in bench/results/cluster-run/ for a look afterwards.
    try {
      const kept = join(RESULTS, 'cluster-run');
      rmSync(kept, { recursive: true, force: true });
      cpSync(run.dir, kept, { recursive: true, filter: (src) => !src.includes('nginx-temp') });
    } catch {
      /* nothing to keep */
    }
    if (settings.keep) {
      log(`kept: folder ${run.dir}, schema ${run.schema}, Redis keys ${run.redisPrefix}:*`);
      return;
    }
    await dropSchema(run.schema).catch((err: Error) => log(`could not drop schema ${run.schema}: ${err.message}`));
    await deleteRedisKeys(run.redisPrefix).catch((err: Error) => log(`could not delete Redis keys: ${err.message}`));
    rmSync(run.dir, { recursive: true, force: true });
  })();
  return cleaningUp;
}

/** BENCH_DATABASE_URL without `?schema=`: where schemas are created and dropped. */
function adminUrl(): string {
  const u = new URL(settings.databaseUrl);
  u.searchParams.delete('schema');
  return u.toString();
}

/** Creates the run's schema (a fresh name: it never exists). */
async function createSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(`create schema ${schema}`);
  } finally {
    await client.end();
  }
}

/** Drops the run's schema with everything in it. */
async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

/** Deletes the keys under `prefix` (SCAN, never FLUSHALL). */
async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(settings.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

/* ------------------------------------------------------------------------------------------------
 * Servers started here: a webhook receiver and the pages discovery fetches (SMTP: test/helpers)
 * --------------------------------------------------------------------------------------------- */

/** Counts webhook deliveries by their `webhook-id`; answers 204. */
class WebhookReceiver {
  private server!: HttpServer;
  url = '';
  readonly byId = new Map<string, number>();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const id = String(req.headers['webhook-id'] ?? '');
      req.resume();
      req.on('end', () => {
        this.byId.set(id, (this.byId.get(id) ?? 0) + 1);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  get received(): number {
    let n = 0;
    for (const c of this.byId.values()) n += c;
    return n;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** The web site discovery fetches: path → HTML, counting fetches per path. */
class Pages {
  private server!: HttpServer;
  base = '';
  readonly bodies = new Map<string, string>();
  readonly hits = new Map<string, number>();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const body = this.bodies.get(path);
      if (body === undefined) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/* ------------------------------------------------------------------------------------------------
 * Preparing the database
 * --------------------------------------------------------------------------------------------- */

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

interface Seed {
  thingIds: number[];
  tipUserIds: number[];
  tipTokens: string[];
  /** a token used only by the shared-limit check */
  limitToken: string;
  loginUser: { username: string; password: string };
  /** the owners of the closed period's things (they also own the things tips create in step 6) */
  owners: { id: number; username: string }[];
  closedPeriod: string;
  currentPeriod: string;
}

const principal = (u: { id: number; username: string }): Principal => ({
  userId: u.id,
  username: u.username,
  scopes: new Set(['tip', 'thing']),
  clientId: null,
  tokenId: 0,
});

/**
 * Step 2: the catalogue, the tip users with tokens, the users of the limit and log-in checks, last
 * month's money closed for the test (held by the bench's claim), and the partner whose webhook is
 * `hooksUrl`.
 */
async function seed(database: Database, publicUrl: string, hooksUrl: string): Promise<Seed> {
  const s: Services = { database, clock: systemClock, siteUrl: publicUrl, passwordHashing: unboundedHashing };
  const started = Date.now();
  const npm = await registerUser(s, { username: 'npm' });
  const imported = await importThings(database, systemClock, settings.catalogue, npm.id, { limit: settings.things });
  const thingIds = (
    await database.db.selectFrom('things').select('id').where('owner_user_id', '=', npm.id).orderBy('id').execute()
  ).map((r) => r.id);
  log(`  setup: ${fmt(imported.inserted)} things imported (${((Date.now() - started) / 1000).toFixed(1)} s)`);

  const t1 = Date.now();
  const names = Array.from({ length: settings.users }, (_, i) => `bench-u${String(i).padStart(4, '0')}`);
  const tipUsers = await pool(names, 8, async (username) => {
    const u = await registerUser(s, { username });
    await fundUser(s, { username, cents: 100_000, budgetCents: 1_000, reference: `bench:${username}` });
    return u;
  });
  const tipTokens = await pool(names, 8, (username) => issueToken(s, username, 'tip'));
  await registerUser(s, { username: 'bench-limit' });
  const limitToken = await issueToken(s, 'bench-limit', 'tip extendedread');
  const loginUser = { username: 'bench-login', password: 'correct horse battery staple' };
  await registerUser(s, { ...loginUser, email: 'bench-login@tipjar.bench', verified: true });
  log(`  setup: ${names.length} funded users with tokens (${((Date.now() - t1) / 1000).toFixed(1)} s)`);

  // Last month, closed for the test: owners with a thing each; subscribers who subscribed to one
  // (a tip) and tipped two more. The short ones can pay last month's budget and nothing more.
  const t2 = Date.now();
  const now = systemClock.now();
  const closedPeriod = lastClosedPeriod(now);
  const past: Services = { ...s, clock: fixedClock(periodBounds(closedPeriod).start + 14 * 86400) };
  const owners = await pool(
    Array.from({ length: OWNERS }, (_, i) => `bench-owner${i}`),
    8,
    async (username) => {
      const u = await registerUser(past, { username, email: `${username}@tipjar.bench`, verified: true });
      const thingId = await createThing(
        past,
        principal(u),
        parseNewThing({ url: `https://example.org/cluster/${username}`, title: `Thing of ${username}` }),
      );
      return { id: u.id, username, thingId };
    },
  );
  await pool(
    Array.from({ length: SUBSCRIBERS }, (_, i) => i),
    8,
    async (i) => {
      const username = `bench-sub${String(i).padStart(3, '0')}`;
      const u = await registerUser(past, { username, email: `${username}@tipjar.bench`, verified: true });
      await fundUser(past, {
        username,
        cents: i < SHORT_SUBSCRIBERS ? 500 : 10_000,
        budgetCents: 500,
        reference: `bench:${username}`,
      });
      await subscribe(past, principal(u), owners[i % OWNERS]!.thingId);
      await tipThing(past, principal(u), owners[(i + 1) % OWNERS]!.thingId);
      await tipThing(past, principal(u), owners[(i + 2) % OWNERS]!.thingId);
    },
  );
  await sql`insert into periods (period) values (${closedPeriod}) on conflict (period) do nothing`.execute(database.db);
  await database.db
    .updateTable('periods')
    .set({ status: 'settling', locked_by: HOLD, locked_until: now + 3600 })
    .where('period', '=', closedPeriod)
    .execute();
  await createPartner(s, {
    namespace: PARTNER,
    webhookUrl: hooksUrl,
    events: 'pendingclickcreate',
    allowPrivateWebhook: true,
  });
  log(
    `  setup: ${closedPeriod} closed for the test: ${OWNERS} owners, ${SUBSCRIBERS} subscribers (${SHORT_SUBSCRIBERS} short of money this month), held until the scheduler check (${((Date.now() - t2) / 1000).toFixed(1)} s)`,
  );
  return {
    thingIds,
    tipUserIds: tipUsers.map((u) => u.id),
    tipTokens,
    limitToken,
    loginUser,
    owners: owners.map(({ id, username }) => ({ id, username })),
    closedPeriod,
    currentPeriod: periodOf(now),
  };
}

/* ------------------------------------------------------------------------------------------------
 * Instances and nginx
 * --------------------------------------------------------------------------------------------- */

const METRICS_TOKEN = randomBytes(32).toString('hex');

/** The `.env` of the instance on `port` (the same for all but the port). */
function instanceEnv(run: Run, port: number, smtpUrl: string): string {
  const lines: [string, string][] = [
    ['HOST', '127.0.0.1'],
    ['PORT', String(port)],
    ['PUBLIC_URL', run.publicUrl],
    ['DATABASE_URL', run.dbUrl],
    ['REDIS_URL', settings.redisUrl],
    ['RATE_LIMIT_KEY_PREFIX', run.redisPrefix],
    // nginx, on this machine, is the one proxy: the client's IP is the last X-Forwarded-For entry.
    ['TRUST_PROXY', '127.0.0.1'],
    ['LOG_LEVEL', 'warn'],
    ['RATE_LIMIT_ANONYMOUS', '1000000000'],
    ['RATE_LIMIT_AUTHENTICATED', String(settings.rateLimit)],
    ['SCHEDULER', 'on'],
    ['SCHEDULER_INTERVAL_SECONDS', '1'],
    ['WEBHOOKS', 'on'],
    ['WEBHOOKS_INTERVAL_SECONDS', '1'],
    ['MAIL', 'on'],
    ['MAIL_INTERVAL_SECONDS', '1'],
    ['SMTP_URL', smtpUrl],
    ['MAIL_FROM', 'Tipjar <no-reply@tipjar.bench>'],
    ['DISCOVERY', 'on'],
    // The bench's pages are on 127.0.0.1; never in production.
    ['DISCOVERY_ALLOW_PRIVATE', 'on'],
    ['METRICS_TOKEN', METRICS_TOKEN],
  ];
  return `# Tipjar instance on 127.0.0.1:${port}, generated by bench/cluster.ts\n${lines.map(([k, v]) => `${k}=${v}`).join('\n')}\n`;
}

/** Starts (or starts again) an instance as `npm start` does, in its folder (its .env), and waits for GET /readyz 200. */
async function startInstance(run: Run, inst: Instance, name: string): Promise<Server> {
  const server = await startServer({
    name,
    args: [...startScriptNodeFlags(ROOT), join(ROOT, 'bin', 'tipjar.js'), 'serve'],
    cwd: inst.dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    logDir: join(run.dir, 'logs'),
    readyTimeoutMs: 60_000,
    readyPath: '/readyz',
    port: inst.port,
  });
  inst.server = server;
  inst.logs.push(server.logFile);
  return server;
}

const instancePids = (run: Run) => run.instances.flatMap((i) => (i.server ? [i.server.pid] : []));
const cpuOf = (pids: number[]) => pids.reduce((a, p) => a + processCpuMs(p), 0);

/** The PostgreSQL backends serving the instances (their DATABASE_URL names the application). */
async function backendPids(run: Run): Promise<number[]> {
  const r = await sql<{ pid: number }>`
    select pid from pg_stat_activity where application_name = ${run.appName}`.execute(run.database!.db);
  return r.rows.map((x) => Number(x.pid));
}

/**
 * Runs `load` and measures the CPU the instances, nginx and the instances' PostgreSQL backends
 * spent meanwhile, per response.
 */
async function measured(
  run: Run,
  name: string,
  via: 'nginx' | 'direct',
  load: () => Promise<LoadFigures>,
): Promise<Throughput> {
  const ipids = instancePids(run);
  const npids = run.nginx!.pids();
  const before = new Map((await backendPids(run)).map((p) => [p, processCpuMs(p)]));
  const i0 = cpuOf(ipids);
  const n0 = cpuOf(npids);
  const t0 = performance.now();
  const figures = await load();
  const wall = performance.now() - t0;
  const iMs = cpuOf(ipids) - i0;
  const nMs = cpuOf(npids) - n0;
  let dMs = 0;
  for (const p of new Set([...before.keys(), ...(await backendPids(run))])) {
    const now = processCpuMs(p);
    if (now > 0) dMs += now - (before.get(p) ?? 0);
  }
  const per = (ms: number) => (figures.responses > 0 ? Math.round((ms * 1000) / figures.responses) : 0);
  const cores = (ms: number) => Math.round((ms / wall) * 100) / 100;
  const t: Throughput = {
    name,
    via,
    figures,
    instancesCpuUsPerReq: per(iMs),
    nginxCpuUsPerReq: per(nMs),
    databaseCpuUsPerReq: per(dMs),
    instancesCores: cores(iMs),
    nginxCores: cores(nMs),
    databaseCores: cores(dMs),
  };
  throughput.push(t);
  log(
    `  ${name.padEnd(38)} ${fmt(figures.reqPerSec).padStart(6)} req/s  p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ms  ` +
      `non-2xx ${figures.non2xx}  errors ${figures.errors}`,
  );
  log(
    `  ${''.padEnd(38)} CPU per response: instances ${t.instancesCpuUsPerReq} µs` +
      `${via === 'nginx' ? ` + nginx ${t.nginxCpuUsPerReq} µs` : ''} + PostgreSQL ${t.databaseCpuUsPerReq} µs ` +
      `(cores: instances ${t.instancesCores}${via === 'nginx' ? `, nginx ${t.nginxCores}` : ''}, PostgreSQL ${t.databaseCores}, ` +
      `load generator ${figures.loadGenCores})`,
  );
  return t;
}

/* ------------------------------------------------------------------------------------------------
 * Tips: each request a new (user, thing) pair, so every tip should succeed once
 * --------------------------------------------------------------------------------------------- */

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** A window of things for one tip run: request n tips thing `offset + n mod W` as user `n mod U`. */
interface TipWindow {
  offset: number;
  W: number;
  U: number;
}

let nextThingIndex = 0;

/** The next window of things no earlier run of this bench touched, big enough for `maxRequests`. */
function tipWindow(seedData: Seed, maxRequests: number): TipWindow {
  const U = seedData.tipTokens.length;
  let W = Math.max(20, Math.ceil(maxRequests / U));
  while (gcd(W, U) !== 1) W++;
  const offset = nextThingIndex;
  nextThingIndex += W;
  if (nextThingIndex > seedData.thingIds.length)
    throw new Error('not enough things for the tip runs: raise BENCH_CLUSTER_THINGS');
  return { offset, W, U };
}

interface TipLog {
  /** pairs n answered 2xx */
  acknowledged: number[];
  /** statuses of every answer */
  statuses: Map<number, number>;
}

function tipRequests(seedData: Seed, w: TipWindow, logOf: TipLog): RequestsFactory {
  const counters: number[] = [];
  return (k, K) => {
    counters[k] ??= 0;
    return [
      {
        method: 'POST',
        setupRequest: (req, ctx) => {
          const n = counters[k]!++ * K + k;
          ctx.n = n;
          req.path = `${API}/things/${seedData.thingIds[w.offset + (n % w.W)]}/tip`;
          req.headers = { ...req.headers, authorization: `Bearer ${seedData.tipTokens[n % w.U]}` };
          return req;
        },
        onResponse: (status, _body, ctx) => {
          logOf.statuses.set(status, (logOf.statuses.get(status) ?? 0) + 1);
          if (status >= 200 && status < 300) logOf.acknowledged.push(ctx.n as number);
        },
      },
    ];
  };
}

/** The rows of a tip window: pairs present, and rows in all (duplicates would make rows > distinct pairs). */
async function tipRows(
  database: Database,
  seedData: Seed,
  w: TipWindow,
): Promise<{ pairs: Set<string>; rows: number; distinct: number; counterMismatches: number }> {
  const lo = seedData.thingIds[w.offset]!;
  const hi = seedData.thingIds[w.offset + w.W - 1]!;
  const rows = await database.db
    .selectFrom('tips')
    .select(['tipper_id', 'thing_id', 'period'])
    .where('thing_id', '>=', lo)
    .where('thing_id', '<=', hi)
    .execute();
  const pairs = new Set(rows.map((r) => `${r.tipper_id}:${r.thing_id}:${r.period}`));
  const mism = await sql<{ n: string | number }>`
    select count(*) as n from things t where t.id >= ${lo} and t.id <= ${hi}
      and t.tips <> (select count(*) from tips x where x.thing_id = t.id)`.execute(database.db);
  return { pairs, rows: rows.length, distinct: pairs.size, counterMismatches: Number(mism.rows[0]?.n ?? 0) };
}

const pairKey = (seedData: Seed, w: TipWindow, n: number, period: string) =>
  `${seedData.tipUserIds[n % w.U]}:${seedData.thingIds[w.offset + (n % w.W)]}:${period}`;

/* ------------------------------------------------------------------------------------------------
 * Step 4: throughput
 * --------------------------------------------------------------------------------------------- */

/** Step 4: GET /things/:id through nginx and straight to the instances, then tips through nginx. @returns tips/s */
async function throughputRuns(run: Run, seedData: Seed): Promise<number> {
  log(`\n== throughput through nginx (${settings.connections} connections, ${settings.durationS} s each) ==`);
  const nginxUrl = `http://127.0.0.1:${run.nginxPort}`;
  const ids = seedData.thingIds;
  const things: RequestsFactory = () => [
    {
      method: 'GET',
      setupRequest: (req) => {
        req.path = `${API}/things/${ids[Math.floor(Math.random() * ids.length)]}`;
        return req;
      },
    },
  ];
  if (settings.warmupS > 0)
    await runLoad({
      targets: [nginxUrl],
      connections: settings.connections,
      durationS: settings.warmupS,
      requests: things,
    });
  await measured(run, 'GET /things/:id through nginx', 'nginx', () =>
    runLoad({
      targets: [nginxUrl],
      connections: settings.connections,
      durationS: settings.durationS,
      requests: things,
    }),
  );
  await measured(run, 'GET /things/:id straight to instances', 'direct', () =>
    runLoad({
      targets: run.instances.map((i) => i.server!.url),
      connections: settings.connections,
      durationS: settings.durationS,
      requests: things,
    }),
  );

  // Tips: a fixed number of requests (none left in flight at the end), sized from a short run.
  const warmAmount = settings.connections * 20;
  const w = tipWindow(seedData, warmAmount + settings.durationS * 20_000);
  const tipLog: TipLog = { acknowledged: [], statuses: new Map() };
  const requests = tipRequests(seedData, w, tipLog);
  const warm = await runLoad({
    targets: [nginxUrl],
    connections: settings.connections,
    durationS: 0,
    amount: warmAmount,
    requests,
  });
  const amount = Math.min(
    Math.max(settings.connections * 20, Math.round(Math.max(warm.reqPerSec, 1) * settings.durationS)),
    w.U * w.W - warmAmount - settings.connections,
  );
  const t = await measured(run, 'POST /things/:id/tip through nginx', 'nginx', () =>
    runLoad({
      targets: [nginxUrl],
      connections: settings.connections,
      durationS: settings.durationS,
      amount,
      requests,
    }),
  );
  const rows = await tipRows(run.database!, seedData, w);
  const present = tipLog.acknowledged.filter((n) => rows.pairs.has(pairKey(seedData, w, n, seedData.currentPeriod)));
  t.durable = { acknowledged: tipLog.acknowledged.length, rows: rows.rows };
  log(
    `  ${''.padEnd(38)} ${fmt(tipLog.acknowledged.length)} acknowledged, ${fmt(rows.rows)} rows, ${tipLog.acknowledged.length - present.length} acknowledged missing`,
  );
  return t.figures.okPerSec;
}

/* ------------------------------------------------------------------------------------------------
 * Step 5: kill -9 under load
 * --------------------------------------------------------------------------------------------- */

/** Step 5: GETs and tips through nginx while one instance is killed with SIGKILL and started again; three checks. */
async function killRun(run: Run, seedData: Seed, tipsPerSec: number): Promise<void> {
  const seconds = Math.max(9, settings.durationS + 2);
  log(`\n== kill -9 of one instance under load (${seconds} s of GETs and tips through nginx) ==`);
  const nginxUrl = `http://127.0.0.1:${run.nginxPort}`;
  const victim = run.instances[run.instances.length - 1]!;
  const logStart = accessLogSize(nginxPaths(run.dir).accessLog);
  const ids = seedData.thingIds;
  const gets: RequestsFactory = () => [
    {
      method: 'GET',
      setupRequest: (req) => {
        req.path = `${API}/things/${ids[Math.floor(Math.random() * ids.length)]}`;
        return req;
      },
    },
  ];
  // Half the connections tip, about as many requests as half the measured rate fills the run with.
  const tipConnections = Math.floor(settings.connections / 2);
  const amount = Math.max(tipConnections * 40, Math.round((tipsPerSec / 2) * seconds));
  const w = tipWindow(seedData, amount + tipConnections);
  const tipLog: TipLog = { acknowledged: [], statuses: new Map() };
  let restarted: Promise<Server> | undefined;
  const killAt = setTimeout(
    () => {
      process.kill(victim.server!.pid, 'SIGKILL');
      log(`  t=${(seconds / 3).toFixed(1)} s: kill -9 instance ${victim.index} (pid ${victim.server!.pid})`);
    },
    (seconds * 1000) / 3,
  );
  const restartAt = setTimeout(
    () => {
      log(`  t=${((2 * seconds) / 3).toFixed(1)} s: starting instance ${victim.index} again`);
      restarted = startInstance(run, victim, `instance-${victim.index}-restarted`);
    },
    (2 * seconds * 1000) / 3,
  );
  const started = performance.now();
  const [getFigures, tipFigures] = await Promise.all([
    runLoad({
      targets: [nginxUrl],
      connections: settings.connections - tipConnections,
      durationS: seconds,
      requests: gets,
    }),
    runLoad({
      targets: [nginxUrl],
      connections: tipConnections,
      durationS: seconds,
      amount,
      requests: tipRequests(seedData, w, tipLog),
    }),
  ]);
  clearTimeout(killAt);
  clearTimeout(restartAt);
  const elapsed = (performance.now() - started) / 1000;
  if (!restarted) restarted = startInstance(run, victim, `instance-${victim.index}-restarted`);
  const again = await restarted;
  log(
    `  load ended after ${elapsed.toFixed(1)} s; instance ${victim.index} ready again ${again.readyMs} ms after its start`,
  );
  await sleep(1500); // nginx flushes its access log every second
  const phase = readAccessLog(nginxPaths(run.dir).accessLog, logStart);
  const rows = await tipRows(run.database!, seedData, w);
  const acked = tipLog.acknowledged;
  const missing = acked.filter((n) => !rows.pairs.has(pairKey(seedData, w, n, seedData.currentPeriod)));
  const unanswered = tipFigures.responses - tipFigures.ok2xx + tipFigures.errors;
  const statuses = Object.fromEntries([...tipLog.statuses].sort());
  const tipOnce = [...tipLog.statuses].filter(([s]) => s >= 400 && s < 500).reduce((a, [, c]) => a + c, 0);
  const posts = phase.filter((l) => l.method === 'POST');
  // A POST may be passed on when its connection failed before anything was sent (safe); one that
  // reached two instances would be nginx resending a non-idempotent request.
  const reached = (l: AccessLine) => l.upstreamBytesSent.filter((b) => b > 0).length;
  const postsSentTwice = posts.filter((l) => reached(l) > 1);
  const postsPassedOn = posts.filter((l) => l.upstreams.length > 1 && reached(l) <= 1);
  const getsRetried = phase.filter((l) => l.method === 'GET' && l.upstreams.length > 1);
  const getsFailed = phase.filter((l) => l.method === 'GET' && l.status >= 500);
  log(
    `  tips: ${fmt(tipFigures.responses)} answers (${Object.entries(statuses)
      .map(([s, c]) => `${s}: ${c}`)
      .join(
        ', ',
      )}), ${tipFigures.errors} socket errors; GETs: ${fmt(getFigures.responses)} answers, non-2xx ${getFigures.non2xx}`,
  );
  log(
    `  nginx: ${getsRetried.length} GETs passed on to another instance after a failure; ${postsPassedOn.length} POSTs ` +
      `passed on after their connection was refused (never sent), ${postsSentTwice.length} sent to two instances; ` +
      `${posts.filter((l) => l.status === 502).length} POSTs answered 502 (sent to the killed instance: not acknowledged)`,
  );
  check(
    'kill -9: no acknowledged tip lost',
    missing.length === 0 && acked.length > 0,
    `${fmt(acked.length)} acknowledged tips, ${missing.length} of them missing from the tips table`,
    { acknowledged: acked.length, missing: missing.length },
  );
  check(
    'kill -9: no tip duplicated',
    rows.rows === rows.distinct &&
      tipOnce === 0 &&
      postsSentTwice.length === 0 &&
      rows.rows >= acked.length &&
      rows.rows - acked.length <= unanswered &&
      rows.counterMismatches === 0,
    `${fmt(rows.rows)} rows for ${fmt(rows.distinct)} (user, thing, month) pairs; ${fmt(acked.length)} acknowledged + ` +
      `${rows.rows - acked.length} committed without an answer (≤ ${unanswered} unanswered POSTs); ${tipOnce} answers 4xx (a tip sent twice); ` +
      `${postsSentTwice.length} POSTs sent to two instances; ${rows.counterMismatches} things whose counter ≠ rows`,
    { rows: rows.rows, distinct: rows.distinct, unanswered, statuses, postsSentTwice: postsSentTwice.length },
  );
  check(
    'kill -9: nginx retries idempotent requests only',
    getsFailed.length === 0 && getFigures.non2xx === 0 && getFigures.errors === 0 && postsSentTwice.length === 0,
    `${getsFailed.length} GETs failed (${getsRetried.length} were passed on to the live instance); ${postsSentTwice.length} POSTs ` +
      `sent to a second instance after reaching one (${postsPassedOn.length} passed on whose connection was refused, never sent)`,
    {
      getsRetried: getsRetried.length,
      getsFailed: getsFailed.length,
      postsPassedOn: postsPassedOn.length,
      postsSentTwice: postsSentTwice.length,
    },
  );
}

/* ------------------------------------------------------------------------------------------------
 * Step 6: correctness under a background load
 * --------------------------------------------------------------------------------------------- */

/** A fetch with a deadline; returns status, headers and text. */
async function request(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Waits, when less than `margin` seconds are left of the current window of `seconds`, for the next window. */
async function awayFromWindowEnd(seconds: number, margin = 60): Promise<void> {
  const into = systemClock.now() % seconds;
  if (into <= seconds - margin) return;
  log(`  (waiting ${seconds - into + 1} s for the next ${seconds} s window)`);
  await sleep((seconds - into + 1) * 1000);
}

/** One token's hourly limit through nginx, across the instances. */
async function sharedLimitCheck(run: Run, seedData: Seed): Promise<void> {
  // The window is the hour: start well inside one, so every request counts in the same window.
  await awayFromWindowEnd(3600);
  const L = settings.rateLimit;
  const extra = 60;
  const logStart = accessLogSize(nginxPaths(run.dir).accessLog);
  const nginxUrl = `http://127.0.0.1:${run.nginxPort}`;
  const answers = await pool(
    Array.from({ length: L + extra }, (_, i) => i),
    16,
    async () => {
      const r = await request(`${nginxUrl}${API}/user`, {
        headers: { authorization: `Bearer ${seedData.limitToken}` },
      });
      return {
        status: r.status,
        error: r.status === 403 ? (JSON.parse(r.text) as { error?: string }).error : undefined,
        limit: r.headers.get('x-ratelimit-limit'),
        remaining: Number(r.headers.get('x-ratelimit-remaining')),
        current: Number(r.headers.get('x-ratelimit-current')),
        reset: r.headers.get('x-ratelimit-reset'),
      };
    },
  );
  await sleep(1500);
  const byInstance = new Map<string, number>();
  for (const l of readAccessLog(nginxPaths(run.dir).accessLog, logStart)) {
    if (l.uri !== `${API}/user`) continue;
    const u = l.upstreams[l.upstreams.length - 1] ?? '-';
    byInstance.set(u, (byInstance.get(u) ?? 0) + 1);
  }
  const ok = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status === 403 && a.error === 'rate_limit_exceeded');
  const remaining = ok.map((a) => a.remaining).sort((a, b) => a - b);
  const everyCountOnce = remaining.length === L && remaining.every((r, i) => r === i);
  const limits = new Set(answers.map((a) => a.limit));
  const resets = new Set(answers.map((a) => a.reset));
  check(
    'rate limit shared across instances',
    ok.length === L && refused.length === extra && everyCountOnce && limits.size === 1 && resets.size === 1,
    `${L + extra} requests of one token (limit ${L}/hour) through nginx, served by ${[...byInstance.values()].join(' + ')} on ${byInstance.size} instances: ` +
      `${ok.length} accepted, ${refused.length} refused (403 rate_limit_exceeded); X-RateLimit-Remaining ` +
      `${everyCountOnce ? `took every value ${L - 1}…0 once` : 'repeated or skipped values'}; one X-RateLimit-Limit (${[...limits].join(',')}) and one X-RateLimit-Reset (${[...resets].join(',')})`,
    { accepted: ok.length, refused: refused.length, byInstance: Object.fromEntries(byInstance) },
  );
}

/** A website form's CSRF field and cookie, from GET `path` on `base`. */
async function formOf(base: string, path: string): Promise<{ csrf: string; cookie: string }> {
  const r = await request(`${base}${path}`, { headers: { accept: 'text/html' } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(r.text)?.[1];
  const cookie = r.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  if (!csrf) throw new Error(`no CSRF field on ${path} (status ${r.status})`);
  return { csrf, cookie };
}

/** Failed log-ins spread over the instances (directly), then the right password on each. */
async function loginCheck(run: Run, seedData: Seed): Promise<void> {
  const limit = 10; // LOGIN_FAILURES_PER_USER_AND_IP (the default), per quarter hour
  await awayFromWindowEnd(900);
  const attempt = async (inst: Instance, password: string) => {
    const base = inst.server!.url;
    const { csrf, cookie } = await formOf(base, '/login');
    return request(`${base}/login`, {
      method: 'POST',
      headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: csrf, username: seedData.loginUser.username, password }).toString(),
    });
  };
  const failures: number[] = [];
  for (let i = 0; i < limit; i++) {
    failures.push((await attempt(run.instances[i % run.instances.length]!, `wrong password ${i}`)).status);
  }
  const after: { status: number; retryAfter: string | null }[] = [];
  for (const inst of run.instances) {
    const r = await attempt(inst, seedData.loginUser.password);
    after.push({ status: r.status, retryAfter: r.headers.get('retry-after') });
  }
  check(
    'log-in failure limit shared through Redis',
    failures.every((s) => s === 401) && after.every((a) => a.status === 429 && Number(a.retryAfter) > 0),
    `${limit} wrong passwords spread over ${run.instances.length} instances (${failures.join(', ')}); ` +
      `then the right password: ${after.map((a, i) => `instance ${i + 1} ${a.status} (Retry-After ${a.retryAfter ?? '-'})`).join(', ')}`,
    { failures, after },
  );
}

/** Tips of a page with a payment link and of one without on every instance (directly); each page fetched once. */
async function discoveryCheck(run: Run, seedData: Seed): Promise<void> {
  const pages = run.pages!;
  const owner = seedData.owners[0]!.username;
  const inner = `https://example.org/cluster/discovered-${randomBytes(4).toString('hex')}`;
  const href = `${run.publicUrl}/submit/auto?${new URLSearchParams({ url: inner, user_id: owner, title: 'Discovered' })}`;
  pages.bodies.set('/found', `<html><head><link rel="payment" href="${href.replace(/&/g, '&amp;')}"></head></html>`);
  pages.bodies.set('/none', '<html><head><title>No link</title></head></html>');
  const tip = (inst: Instance, token: string, path: string) =>
    request(`${inst.server!.url}${API}/tip`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${pages.base}${path}` }),
    });
  const found: number[] = [];
  const none: number[] = [];
  for (const [k, inst] of run.instances.entries()) {
    // Users no tip run touches (the last ones), one per instance.
    const token = seedData.tipTokens[seedData.tipTokens.length - 1 - k]!;
    found.push((await tip(inst, token, '/found')).status);
    none.push((await tip(inst, token, '/none')).status);
  }
  const hits = [pages.hits.get('/found') ?? 0, pages.hits.get('/none') ?? 0];
  check(
    'discovery cache shared through Redis',
    found.every((s) => s === 200) && none.every((s) => s === 404) && hits[0] === 1 && hits[1] === 1,
    `POST /tip of a page with a payment link on each instance: ${found.join(', ')}; of a page without: ${none.join(', ')}; ` +
      `fetches of the pages: ${hits[0]} and ${hits[1]} (one each: the other instances used the kept results, found or not)`,
    { found, none, fetches: hits },
  );
}

/**
 * Search answers across the instances (docs/adr/0039): a thing is written beside the instances,
 * each instance is asked the same search three times (its result cache answers it and keeps the
 * answer rendered), then the thing is tipped through each instance in turn; after every tip each
 * instance's next search must show the new tip count.
 */
async function searchCheck(run: Run, seedData: Seed): Promise<void> {
  const database = run.database!;
  const s: Services = { database, clock: systemClock, siteUrl: run.publicUrl, passwordHashing: unboundedHashing };
  const word = `clustersearch${randomBytes(4).toString('hex')}`;
  const thingId = await createThing(
    s,
    principal(seedData.owners[0]!),
    parseNewThing({ url: `https://example.org/cluster/${word}`, title: `${word} kept rendered` }),
  );
  const tipsSeen = () =>
    Promise.all(
      run.instances.map(async (inst) => {
        const r = await request(`${inst.server!.url}${API}/things/search?query=${word}`);
        if (r.status !== 200) return `status ${r.status}`;
        return (JSON.parse(r.text) as { things: { id: number; tips: number }[] }).things.find((t) => t.id === thingId)
          ?.tips;
      }),
    );
  for (let i = 0; i < 3; i++) await tipsSeen();
  const rounds: { status: number; seen: unknown[] }[] = [];
  for (const [k, inst] of run.instances.entries()) {
    // Users no other check tips with (the discovery check takes the last one per instance).
    const token = seedData.tipTokens[seedData.tipTokens.length - 1 - run.instances.length - k]!;
    const tipped = await request(`${inst.server!.url}${API}/things/${thingId}/tip`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    rounds.push({ status: tipped.status, seen: await tipsSeen() });
  }
  check(
    'search answers current on every instance',
    rounds.every((r, k) => r.status === 200 && r.seen.every((n) => n === k + 1)),
    `a searched thing tipped through each instance in turn; the tip counts each instance's next search showed: ` +
      rounds.map((r, k) => `after tip ${k + 1} (${r.status}): ${r.seen.join(', ')}`).join('; '),
    { rounds },
  );
}

/** POSTs `count` tips with bodies `{url}` through nginx, 8 at a time; returns the statuses. */
async function tipUrls(run: Run, seedData: Seed, urls: { url: string; user: number }[]): Promise<number[]> {
  const nginxUrl = `http://127.0.0.1:${run.nginxPort}`;
  return pool(urls, 8, async ({ url, user }) => {
    const r = await request(`${nginxUrl}${API}/tip`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seedData.tipTokens[user]}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
    });
    return r.status;
  });
}

/** Scheduler log lines of every instance (all its incarnations). */
function schedulerLines(run: Run): { instance: number; line: string }[] {
  const out: { instance: number; line: string }[] = [];
  for (const inst of run.instances)
    for (const file of inst.logs) {
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n')) if (line.startsWith('scheduler: ')) out.push({ instance: inst.index, line });
    }
  return out;
}

/** The `n` of a `select count(*) as n …`. */
async function count(database: Database, query: RawBuilder<{ n: string | number }>): Promise<number> {
  return Number((await query.execute(database.db)).rows[0]?.n ?? 0);
}

/**
 * Step 6: under a background load, the scheduler race, tips that queue webhooks and mail, the
 * limit, log-in and discovery checks; then, once the outboxes drained, the scheduler and delivery checks.
 */
async function underLoad(run: Run, seedData: Seed): Promise<void> {
  log('\n== correctness under a background load of GETs through nginx ==');
  const database = run.database!;
  const nginxUrl = `http://127.0.0.1:${run.nginxPort}`;
  const ids = seedData.thingIds;
  const background = autocannon({
    url: nginxUrl,
    connections: 8,
    duration: 600,
    timeout: 10,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          req.path = `${API}/things/${ids[Math.floor(Math.random() * ids.length)]}`;
          return req;
        },
      },
    ],
  });
  run.loads.push(background);
  const backgroundDone = Promise.resolve(background);
  const started = performance.now();

  // The scheduler of every instance races for the closed period once the bench's claim goes.
  await database.db
    .updateTable('periods')
    .set({ locked_until: 0 })
    .where('period', '=', seedData.closedPeriod)
    .where('locked_by', '=', HOLD)
    .execute();
  log(`  released ${seedData.closedPeriod}: every instance's scheduler may settle it now`);

  // Tips that queue a webhook each (pending things of the partner) and a mail each (things created
  // for their owners, who are told), spread over the instances by nginx.
  const U = seedData.tipTokens.length;
  const webhookTips = Array.from({ length: WEBHOOK_TIPS }, (_, i) => ({
    url: `${run.publicUrl}/submit/auto?${new URLSearchParams({
      url: `https://example.org/cluster/pending-${i % 100}`,
      owner: `partner:${PARTNER}:author-${i % 100}`,
      title: `Pending ${i % 100}`,
    })}`,
    user: (i * 7) % (U - 8),
  }));
  const mailTips = Array.from({ length: MAIL_TIPS }, (_, i) => ({
    url: `${run.publicUrl}/submit/auto?${new URLSearchParams({
      url: `https://example.org/cluster/new-${i}`,
      user_id: seedData.owners[i % OWNERS]!.username,
      title: `New thing ${i}`,
    })}`,
    user: (i * 11 + 3) % (U - 8),
  }));
  const [hookStatuses, mailStatuses] = await Promise.all([
    tipUrls(run, seedData, webhookTips),
    tipUrls(run, seedData, mailTips),
  ]);
  const hookOk = hookStatuses.filter((s) => s === 200).length;
  const mailOk = mailStatuses.filter((s) => s === 200).length;
  log(
    `  ${hookOk}/${WEBHOOK_TIPS} tips on pending things (a webhook each), ${mailOk}/${MAIL_TIPS} tips creating things for their owners (a mail each)`,
  );

  await sharedLimitCheck(run, seedData);
  await loginCheck(run, seedData);
  await discoveryCheck(run, seedData);
  await searchCheck(run, seedData);

  // Wait for the scheduler and both outboxes to finish.
  const deadline = Date.now() + 120_000;
  let state = { settled: false, renewed: false, mailPending: -1, hooksPending: -1 };
  for (;;) {
    const period = await database.db
      .selectFrom('periods')
      .select(['period', 'status', 'renewed_at'])
      .where('period', 'in', [seedData.closedPeriod, seedData.currentPeriod])
      .execute();
    state = {
      settled: period.some((p) => p.period === seedData.closedPeriod && p.status === 'settled'),
      renewed: period.some((p) => p.period === seedData.currentPeriod && p.renewed_at !== null),
      mailPending: await count(database, sql`select count(*) as n from mail_outbox where status = 'pending'`),
      hooksPending: await count(database, sql`select count(*) as n from webhook_deliveries where status = 'pending'`),
    };
    if (state.settled && state.renewed && state.mailPending === 0 && state.hooksPending === 0) break;
    if (Date.now() > deadline) break;
    await sleep(500);
  }
  await sleep(2000); // a delivery recorded just now: its receiver has counted it already; let late duplicates show
  background.stop();
  const bg = await backgroundDone;
  log(
    `  background load: ${fmt(bg.requests.total)} GETs in ${((performance.now() - started) / 1000).toFixed(1)} s, non-2xx ${bg.non2xx}, errors ${bg.errors}`,
  );

  // One settlement per period.
  const lines = schedulerLines(run);
  const settledLines = lines.flatMap(({ instance, line }) => {
    const m = new RegExp(
      `^scheduler: settled ${seedData.closedPeriod}: (\\d+) tippers settled now, (\\d+) already settled`,
    ).exec(line);
    return m ? [{ instance, now: Number(m[1]), skipped: Number(m[2]) }] : [];
  });
  const stoodBack = lines.filter(({ line }) =>
    line.startsWith(`scheduler: ${seedData.closedPeriod} is being settled by another run`),
  );
  const busyByOthers = stoodBack.filter(({ line }) => !line.includes(HOLD));
  const settlements = await count(
    database,
    sql`select count(*) as n from ledger_transactions where reference like ${`settle:${seedData.closedPeriod}:%`}`,
  );
  const distinctSettlements = await count(
    database,
    sql`select count(distinct reference) as n from ledger_transactions where reference like ${`settle:${seedData.closedPeriod}:%`}`,
  );
  const receipts = await count(database, sql`select count(*) as n from mail_outbox where kind = 'receipt'`);
  const breaches = await checkLedger({
    database,
    clock: systemClock,
    siteUrl: run.publicUrl,
    passwordHashing: unboundedHashing,
  });
  const settledNow = settledLines.reduce((a, l) => a + l.now, 0);
  check(
    'one settlement per period across instances',
    state.settled &&
      settlements === SUBSCRIBERS &&
      distinctSettlements === SUBSCRIBERS &&
      settledNow === SUBSCRIBERS &&
      receipts === SUBSCRIBERS + OWNERS &&
      breaches.length === 0,
    `${seedData.closedPeriod} ${state.settled ? 'settled' : 'NOT settled'}: ${settlements} settlement transactions for ${SUBSCRIBERS} tippers ` +
      `(${distinctSettlements} distinct); settled by ${settledLines.map((l) => `instance ${l.instance} (${l.now} now, ${l.skipped} already)`).join(', ') || 'no instance'}; ` +
      `${busyByOthers.length} checks stood back while another instance held the claim; ${receipts} receipts queued ` +
      `(${SUBSCRIBERS + OWNERS} expected); ledger check: ${breaches.length} breaches`,
    { settlements, settledLines, stoodBack: busyByOthers.length, receipts, breaches: breaches.length },
  );

  // One renewal per subscription and period.
  const renewalLines = lines.flatMap(({ instance, line }) => {
    const m = new RegExp(
      `^scheduler: renewed subscriptions for ${seedData.currentPeriod}: (\\d+) tipped, (\\d+) skipped`,
    ).exec(line);
    return m ? [{ instance, tipped: Number(m[1]), skipped: Number(m[2]) }] : [];
  });
  const renewals = await database.db
    .selectFrom('subscription_renewals')
    .select(['user_id', 'thing_id', 'outcome'])
    .where('period', '=', seedData.currentPeriod)
    .execute();
  const distinctRenewals = new Set(renewals.map((r) => `${r.user_id}:${r.thing_id}`)).size;
  const tippedRenewals = renewals.filter((r) => r.outcome === 'tipped').length;
  const noMeans = renewals.filter((r) => r.outcome === 'no_means').length;
  const renewedByLogs = renewalLines.reduce((a, l) => a + l.tipped + l.skipped, 0);
  const skippedMails = await count(database, sql`select count(*) as n from mail_outbox where kind = 'renewal_skipped'`);
  check(
    'one renewal per period across instances',
    state.renewed &&
      renewals.length === SUBSCRIBERS &&
      distinctRenewals === SUBSCRIBERS &&
      tippedRenewals === SUBSCRIBERS - SHORT_SUBSCRIBERS &&
      noMeans === SHORT_SUBSCRIBERS &&
      renewedByLogs === SUBSCRIBERS &&
      skippedMails === SHORT_SUBSCRIBERS,
    `${seedData.currentPeriod}: ${renewals.length} renewals of ${SUBSCRIBERS} subscriptions (${distinctRenewals} distinct; ${tippedRenewals} tipped, ${noMeans} short of money); ` +
      `renewed by ${renewalLines.map((l) => `instance ${l.instance} (${l.tipped + l.skipped})`).join(', ') || 'no instance'}; ` +
      `${skippedMails} "renewal skipped" mails (${SHORT_SUBSCRIBERS} expected)`,
    { renewals: renewals.length, renewalLines, skippedMails },
  );

  // Every webhook and every mail delivered exactly once per id.
  const deliveries = await database.db.selectFrom('webhook_deliveries').select(['message_id', 'status']).execute();
  const hooks = run.hooks!;
  const hookIds = new Set(deliveries.map((d) => d.message_id));
  const hookTwice = [...hooks.byId].filter(([, c]) => c > 1).length;
  const hookMissing = deliveries.filter((d) => !hooks.byId.has(d.message_id)).length;
  const hookUnknown = [...hooks.byId.keys()].filter((id) => !hookIds.has(id)).length;
  const hookNotDelivered = deliveries.filter((d) => d.status !== 'delivered').length;
  check(
    'every webhook delivered exactly once per id',
    deliveries.length === hookOk && hookTwice === 0 && hookMissing === 0 && hookUnknown === 0 && hookNotDelivered === 0,
    `${deliveries.length} deliveries queued (${hookOk} tips on pending things), ${hooks.received} received: ` +
      `${hookMissing} missing, ${hookTwice} ids received more than once, ${hookUnknown} unknown ids, ${hookNotDelivered} not marked delivered`,
    { queued: deliveries.length, received: hooks.received, missing: hookMissing, twice: hookTwice },
  );
  const mails = await database.db.selectFrom('mail_outbox').select(['message_id', 'status', 'kind']).execute();
  const received = new Map<string, number>();
  for (const m of run.smtp!.received) {
    const id = m.messageId.replace(/^<|>$/g, '');
    received.set(id, (received.get(id) ?? 0) + 1);
  }
  const mailIds = new Set(mails.map((m) => m.message_id));
  const mailTwice = [...received].filter(([, c]) => c > 1).length;
  const mailMissing = mails.filter((m) => !received.has(m.message_id)).length;
  const mailUnknown = [...received.keys()].filter((id) => !mailIds.has(id)).length;
  const mailNotSent = mails.filter((m) => m.status !== 'sent').length;
  const byKind = new Map<string, number>();
  for (const m of mails) byKind.set(m.kind, (byKind.get(m.kind) ?? 0) + 1);
  check(
    'every mail delivered exactly once per id',
    mails.length > 0 && mailTwice === 0 && mailMissing === 0 && mailUnknown === 0 && mailNotSent === 0,
    `${mails.length} messages queued (${[...byKind].map(([k, n]) => `${n} ${k}`).join(', ')}), ${run.smtp!.received.length} received: ` +
      `${mailMissing} missing, ${mailTwice} Message-IDs received more than once, ${mailUnknown} unknown, ${mailNotSent} not marked sent`,
    { queued: mails.length, received: run.smtp!.received.length, missing: mailMissing, twice: mailTwice },
  );
}

/* ------------------------------------------------------------------------------------------------
 * Main
 * --------------------------------------------------------------------------------------------- */

/** Steps 1–6 (cleanUp does step 7's stopping and removing). */
async function main(run: Run): Promise<void> {
  const nginxBinary = ensureNginx(log);
  // `nginx -v` writes its version to stderr.
  const version = spawnSync(nginxBinary, ['-v'], { encoding: 'utf8' })
    .stderr.trim()
    .replace(/^nginx version: /, '');
  log(
    `Tipjar cluster bench — ${cpus().length} CPUs, node ${process.version}, ${version || 'nginx'}; ` +
      `${settings.instances} instances, ${settings.connections} connections, ${settings.durationS} s per scenario`,
  );
  log(
    `  load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at start (PostgreSQL, Redis and other work share these CPUs)`,
  );
  log(`  folder ${run.dir}; schema ${run.schema}; Redis prefix ${run.redisPrefix}`);
  // dist/ rebuilt now if src/ changed, not by the instances at once.
  execFileSync(process.execPath, [join(ROOT, 'bin', 'tipjar.js'), '--help'], { stdio: 'ignore' });

  await createSchema(run.schema);
  const own = new URL(run.dbUrl);
  own.searchParams.delete('application_name');
  run.database = await openDatabase(own.toString());
  await migrateToLatest(run.database);

  run.smtp = new TestSmtpServer();
  await run.smtp.start();
  run.hooks = new WebhookReceiver();
  await run.hooks.start();
  run.pages = new Pages();
  await run.pages.start();
  const seedData = await seed(run.database, run.publicUrl, run.hooks.url);

  for (const inst of run.instances) {
    mkdirSync(inst.dir, { recursive: true });
    writeFileSync(join(inst.dir, '.env'), instanceEnv(run, inst.port, run.smtp.url), { mode: 0o600 });
  }
  for (const inst of run.instances) {
    const server = await startInstance(run, inst, `instance-${inst.index}`);
    log(
      `  instance ${inst.index} on 127.0.0.1:${inst.port} ready ${server.readyMs} ms after its start (pid ${server.pid})`,
    );
  }
  run.nginx = await startNginx(nginxBinary, {
    dir: run.dir,
    port: run.nginxPort,
    upstreams: run.instances.map((i) => i.port),
    retryNonIdempotent: settings.retryPosts,
  });
  if (settings.retryPosts)
    log('  nginx resends POSTs to the next instance (BENCH_CLUSTER_RETRY_POSTS=1): a wrong configuration');
  log(`  nginx on 127.0.0.1:${run.nginxPort} (pid ${run.nginx.pid}; ${run.nginx.pids().length - 1} workers)`);

  const tipsPerSec = await throughputRuns(run, seedData);
  await killRun(run, seedData, tipsPerSec);
  await underLoad(run, seedData);
}

/** The figures and every check's verdict, once more, at the end. */
function printSummary(): void {
  log('\n== summary ==');
  for (const t of throughput) {
    log(
      `  ${t.name.padEnd(38)} ${fmt(t.figures.reqPerSec).padStart(6)} req/s  p99 ${String(t.figures.p99Ms).padStart(3)} ms  ` +
        `CPU/response: instances ${t.instancesCpuUsPerReq} µs${t.via === 'nginx' ? `, nginx ${t.nginxCpuUsPerReq} µs` : ''}, ` +
        `PostgreSQL ${t.databaseCpuUsPerReq} µs`,
    );
  }
  for (const c of checks) log(`  ${c.pass ? 'PASS' : '*** FAIL ***'}  ${c.name}`);
  const failed = checks.filter((c) => !c.pass);
  log(failed.length ? `\n*** FAIL: ${failed.map((c) => c.name).join('; ')} ***` : '\nevery check passed');
}

const run: Run = (() => {
  const id = randomBytes(4).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'tipjar-cluster-'));
  // nginx's workers (nobody, when started as root) reach their temporary folders through it.
  chmodSync(dir, 0o755);
  const schema = `tipjar_cluster_${id}`;
  const appName = `tipjar-cluster-${id}`;
  const u = new URL(settings.databaseUrl);
  u.searchParams.set('schema', schema);
  u.searchParams.set('application_name', appName);
  return {
    dir,
    schema,
    dbUrl: u.toString(),
    appName,
    redisPrefix: `tipjar-bench-cluster:${id}`,
    publicUrl: '',
    nginxPort: 0,
    instances: [],
    loads: [],
  };
})();

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    console.error(`\nbench:cluster: ${signal}, stopping everything`);
    const timer = setTimeout(() => process.exit(130), 20_000);
    void cleanUp(run).finally(() => {
      clearTimeout(timer);
      process.exit(130);
    });
  });
}
process.on('exit', killAllNow);

let exitCode = 0;
const startedAt = new Date().toISOString();
try {
  for (const url of [settings.databaseUrl, settings.redisUrl]) {
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname))
      throw new Error(`${url}: the bench only talks to servers on 127.0.0.1`);
  }
  run.nginxPort = await freePort();
  run.publicUrl = `http://127.0.0.1:${run.nginxPort}`;
  for (let k = 1; k <= settings.instances; k++)
    run.instances.push({ index: k, port: await freePort(), dir: join(run.dir, `instance-${k}`), logs: [] });
  await main(run);
  printSummary();
  if (checks.some((c) => !c.pass)) exitCode = 1;
} catch (err) {
  exitCode = 1;
  if (err instanceof NginxMissingError) console.error(`bench:cluster: ${err.message}`);
  else console.error('bench:cluster failed:', err);
} finally {
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(
    join(RESULTS, 'cluster.json'),
    JSON.stringify(
      {
        startedAt,
        finishedAt: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        settings: { ...settings, databaseUrl: settings.databaseUrl.replace(/\/\/[^@/]*@/, '//***@') },
        throughput,
        checks,
        passed: checks.length > 0 && checks.every((c) => c.pass) && exitCode === 0,
      },
      null,
      2,
    ) + '\n',
  );
  await cleanUp(run);
  log(
    `\nreport written to ${join(RESULTS, 'cluster.json')}; configurations and logs in ${join(RESULTS, 'cluster-run')}`,
  );
}
process.exit(exitCode);
