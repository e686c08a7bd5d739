/**
 * Crashes for real (DESIGN.md "Tests", DECISIONS.md "Tips"): the real server (`tipjar serve`) as
 * a child process takes a burst of tips over HTTP from many users on several things, is killed
 * with SIGKILL mid-burst, and is restarted on the same database. Every acknowledged tip must be
 * there, and every thing's counters must equal its tip rows.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createDatabaseUrl, ENGINES } from '../helpers/db.ts';
import { buildThing, buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { openDatabase, type Database } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { systemClock } from '../../src/domain/clock.ts';
import type { Services } from '../../src/domain/services.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/tipjar.js', import.meta.url));
const run = promisify(execFile);

const USERS = 40;
const THINGS = 5;
const WORKERS = 16;
/** Kill the server once this many tips were acknowledged (of USERS × THINGS + the CLI user's). */
const KILL_AFTER = 60;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

function waitForExit(child: ChildProcess): Promise<void> {
  if (exited(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

describe.each(ENGINES)('crash and restart of the real server on %s', (engine) => {
  const children = new Set<ChildProcess>();
  let database: { url: string; remove(): Promise<void> } | undefined;
  let env: Record<string, string>;

  /** Starts `tipjar serve` on a free port and resolves once it listens. */
  async function startServer(): Promise<{ child: ChildProcess; base: string }> {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [BIN, 'serve'], {
      cwd: ROOT,
      env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start within 30 s:\n${output}`)), 30_000);
      child.stdout!.on('data', (d: Buffer) => {
        output += d.toString();
        if (output.includes('Tipjar listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`server exited (${code ?? signal}) before listening:\n${output}`));
      });
    });
    return { child, base };
  }

  /** Runs a `tipjar` CLI command against the test database. @returns its stdout. */
  async function cli(...args: string[]): Promise<string> {
    const { stdout } = await run(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: 30_000 });
    return stdout;
  }

  async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
    const db = await openDatabase(database!.url);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }

  beforeAll(async () => {
    database = await createDatabaseUrl(engine);
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: database.url,
      PUBLIC_URL: 'http://tipjar.test',
      LOG_LEVEL: 'warn',
    };
  });

  afterAll(async () => {
    for (const child of children) {
      if (!exited(child)) child.kill('SIGKILL');
      await waitForExit(child);
    }
    await database?.remove();
  });

  it(
    'keeps every acknowledged tip and consistent counters across kill -9 and restart',
    { timeout: 180_000 },
    async () => {
      // --- set-up: the operator CLI for one tipper (it migrates the new database), the domain services for the rest ---
      const cliName = uniqueName('cli');
      expect(await cli('users', 'create', cliName, '--email', `${cliName}@example.com`)).toContain(
        `created user ${cliName}`,
      );
      expect(await cli('users', 'fund', cliName, '--cents', '1000', '--budget', '500')).toContain(
        'balance 1000 cents, monthly budget 500 cents',
      );
      const cliToken = (await cli('tokens', 'create', cliName, '--scopes', 'tip')).trim().split('\n').at(-1)!;

      type Tipper = { id: number; token: string };
      const { tippers, thingIds } = await withDatabase(async (db) => {
        await migrateToLatest(db);
        const s: Services = {
          database: db,
          clock: systemClock,
          siteUrl: 'http://tipjar.test',
          passwordHashing: unboundedHashing,
        };
        const owner = await buildUser(s);
        const thingIds: number[] = [];
        for (let i = 0; i < THINGS; i++) thingIds.push(await buildThing(s, owner));
        const users: TestUser[] = [];
        for (let i = 0; i < USERS; i++) users.push(await buildUser(s, { scopes: 'tip' }));
        const cliUser = await db.db
          .selectFrom('users')
          .select('id')
          .where('username', '=', cliName)
          .executeTakeFirstOrThrow();
        const tippers: Tipper[] = [
          ...users.map((u) => ({ id: u.user.id, token: u.token })),
          { id: cliUser.id, token: cliToken },
        ];
        return { tippers, thingIds };
      });

      // every (tipper, thing) pair once, interleaved so every thing is hit throughout the burst
      const pairs = thingIds.flatMap((thingId, i) =>
        tippers.map((tipper, j) => ({ tipper, thingId, order: ((j * THINGS + i) * 7919) % 100_003 })),
      );
      pairs.sort((a, b) => a.order - b.order);
      type Outcome = 'unsent' | 'ok' | 'unknown' | number;
      const outcome = new Map<(typeof pairs)[number], Outcome>(pairs.map((p) => [p, 'unsent']));

      // --- the burst, and SIGKILL once KILL_AFTER tips were acknowledged ---
      const first = await startServer();
      let acknowledged = 0;
      let killed = false;
      let next = 0;
      let killedAt = -1;
      const kill = () => {
        if (killed) return;
        killed = true;
        killedAt = acknowledged;
        first.child.kill('SIGKILL');
      };
      const worker = async () => {
        while (!killed && next < pairs.length) {
          const p = pairs[next++]!;
          outcome.set(p, 'unknown');
          try {
            const res = await fetch(`${first.base}/rest/v2/things/${p.thingId}/tip`, {
              method: 'POST',
              headers: { authorization: `Bearer ${p.tipper.token}` },
            });
            await res.arrayBuffer();
            outcome.set(p, res.status === 200 ? 'ok' : res.status);
            if (res.status === 200 && ++acknowledged >= KILL_AFTER) kill();
          } catch {
            // connection reset by the kill: the tip may or may not have committed
          }
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      kill();
      await waitForExit(first.child);
      expect(first.child.signalCode).toBe('SIGKILL');

      const values = [...outcome.values()];
      const acked = pairs.filter((p) => outcome.get(p) === 'ok');
      const unknown = pairs.filter((p) => outcome.get(p) === 'unknown');
      const unsent = pairs.filter((p) => outcome.get(p) === 'unsent');
      // before the kill, every answer was a 200 (each pair is tipped once)
      expect(values.filter((v) => typeof v === 'number')).toEqual([]);
      expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER);
      expect(unsent.length).toBeGreaterThan(0); // the kill really was mid-burst

      // --- restart on the same database ---
      const second = await startServer();

      const { rows, counters, likes } = await withDatabase(async (db) => {
        const rows = await db.db.selectFrom('tips').select(['tipper_id', 'thing_id']).execute();
        const counters = await db.db
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
          .execute();
        const likes = await db.db
          .selectFrom('activities')
          .select(sql<number>`count(*)`.as('n'))
          .where('verb', '=', 'like')
          .executeTakeFirstOrThrow();
        return { rows, counters, likes: Number(likes.n) };
      });
      const key = (tipperId: number, thingId: number) => `${tipperId}:${thingId}`;
      const stored = new Set(rows.map((r) => key(r.tipper_id, r.thing_id)));
      console.log(
        `[crash ${engine}] ${pairs.length} tips planned; acknowledged before the kill: ${acked.length} (kill triggered at ${killedAt}); ` +
          `in flight at the kill: ${unknown.length}; never sent: ${unsent.length}; tip rows after restart: ${rows.length} ` +
          `(of the in-flight ones committed: ${unknown.filter((p) => stored.has(key(p.tipper.id, p.thingId))).length})`,
      );

      // every acknowledged tip is durable
      for (const p of acked)
        expect(stored.has(key(p.tipper.id, p.thingId)), `acknowledged tip ${key(p.tipper.id, p.thingId)} lost`).toBe(
          true,
        );
      // nothing that was never sent exists, and no pair twice
      expect(stored.size).toBe(rows.length);
      for (const p of unsent) expect(stored.has(key(p.tipper.id, p.thingId))).toBe(false);
      expect(rows.length).toBeGreaterThanOrEqual(acked.length);
      expect(rows.length).toBeLessThanOrEqual(acked.length + unknown.length);
      // counters equal the rows, thing by thing; one activity per tip
      expect(counters).toHaveLength(THINGS);
      for (const c of counters) {
        expect({ id: c.id, tips: c.tips, users: c.tips_user_count }).toEqual({
          id: c.id,
          tips: Number(c.n),
          users: Number(c.d),
        });
      }
      expect(likes).toBe(rows.length);

      // --- the restarted server serves the same state and accepts exactly the missing tips ---
      for (const c of counters) {
        const res = await fetch(`${second.base}/rest/v2/things/${c.id}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ id: c.id, tips: c.tips, tips_user_count: c.tips_user_count });
      }
      const retried = await Promise.all(
        pairs.map(async (p) => {
          const res = await fetch(`${second.base}/rest/v2/things/${p.thingId}/tip`, {
            method: 'POST',
            headers: { authorization: `Bearer ${p.tipper.token}` },
          });
          const body = (await res.json()) as { error?: string };
          return { had: stored.has(key(p.tipper.id, p.thingId)), status: res.status, error: body.error };
        }),
      );
      for (const r of retried)
        expect(r.had ? { status: 403, error: 'tip_once' } : { status: 200 }).toEqual(
          r.had ? { status: r.status, error: r.error } : { status: r.status },
        );
      for (const id of thingIds) {
        const res = await fetch(`${second.base}/rest/v2/things/${id}`);
        expect(await res.json()).toMatchObject({ tips: tippers.length, tips_user_count: tippers.length });
      }

      // a clean stop this time: SIGTERM drains and exits 0
      second.child.kill('SIGTERM');
      await waitForExit(second.child);
      expect(second.child.exitCode).toBe(0);
    },
  );
});
