/**
 * A scripted month, on every engine: the npm catalogue is imported,
 * users are funded, tip and subscribe through the API, a subscription is paused, a budget changes;
 * the scheduler (as `npm start` runs it) settles June at the start of July and renews July's
 * subscriptions, then does the same a month later. `tipjar ledger check` passes and
 * `tipjar ledger report` matches the hand computation below, to the cent.
 *
 * Hand computation for June 2025 (shares in tip order; extra cents to the first tips):
 *   alice  budget 700, balance 2000: tips A, B, C      → 234 (A, npm), 233 (B, npm), 233 (C, carol)
 *   bob    budget 500, balance 1000: subscribes C (tip), tips A → 250 (C, carol), 250 (A, npm)
 *   dave   budget 300→1000, balance 300: tips A        → min(1000, 300) = 300 (A, npm)
 *   erin   no means: subscribes B, no tip
 *   npm  June: 234 + 233 + 250 + 300 = 1017 cents for 4 tips; carol June: 233 + 250 = 483 for 2.
 * July: renewal tips alice's subscription to B (bob's is paused, erin has no means); alice's
 *   balance is 2000 − 700 = 1300 ≥ 700 → npm July: 700 for 1 tip.
 * August: alice's balance is 600 < 700: her renewal is skipped (no_means), as is erin's.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { fundUser } from '../../src/domain/users.ts';
import { importThings } from '../../src/cli/import-things.ts';
import { setMonthlyBudget, getMoneySummary } from '../../src/domain/money/account.ts';
import { runSchedulerTick } from '../../src/scheduler/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/tipjar.js', import.meta.url));
const CATALOGUE = fileURLToPath(new URL('../../../shared/data/npm-packages.tsv', import.meta.url));
const at = (y: number, m: number, d = 1, h = 0, min = 0, s = 0) => Date.UTC(y, m - 1, d, h, min, s) / 1000;

function cli(url: string, args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

describe.each(ENGINES)('a scripted month on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(at(2025, 6, 2, 9));
  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
  });
  afterAll(async () => t.close());

  it('funds, tips, subscribes, pauses, settles by the scheduler; ledger check passes and the report matches', async () => {
    const s = t.services;
    const step = () => clock.advance(60);
    const post = (path: string, who: TestUser) =>
      t.app.inject({ method: 'POST', url: `${API}${path}`, headers: bearer(who.token) });

    const npm = await buildUser(s, { funded: false });
    expect(existsSync(CATALOGUE)).toBe(true);
    const imported = await importThings(s.database, s.clock, CATALOGUE, npm.user.id, { limit: 25 });
    expect(imported.inserted).toBe(25);
    const catalogue = await s.database.db
      .selectFrom('things')
      .select(['id', 'title'])
      .where('owner_user_id', '=', npm.user.id)
      .orderBy('id')
      .execute();
    const [A, B] = [catalogue[0]!.id, catalogue[1]!.id];
    const carol = await buildUser(s, { funded: false });
    const C = await buildThing(s, carol, { title: 'Carol writes' });

    const alice = await buildUser(s, { funded: false });
    const bob = await buildUser(s, { funded: false });
    const dave = await buildUser(s, { funded: false });
    const erin = await buildUser(s, { funded: false });
    await fundUser(s, { username: alice.user.username, cents: 2000, budgetCents: 700 });
    await fundUser(s, { username: bob.user.username, cents: 1000, budgetCents: 500 });
    await fundUser(s, { username: dave.user.username, cents: 300, budgetCents: 300 });

    for (const [path, who] of [
      [`/things/${A}/tip`, alice],
      [`/things/${B}/tip`, alice],
      [`/things/${C}/subscriptions`, bob],
      [`/things/${C}/tip`, alice],
      [`/things/${A}/tip`, dave],
      [`/things/${A}/tip`, bob],
      [`/things/${B}/subscriptions`, alice],
      [`/things/${B}/subscriptions`, erin],
    ] as const) {
      step();
      const res = await post(path, who);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    }
    step();
    const paused = await t.app.inject({
      method: 'PUT',
      url: `${API}/things/${C}/subscriptions`,
      headers: bearer(bob.token),
    });
    expect(json(paused).message).toBe('paused');
    await setMonthlyBudget(s, dave.user.id, 1000);

    const june = await getMoneySummary(s, alice.user.id);
    expect(june).toMatchObject({
      balanceCents: 2000,
      budgetCents: 700,
      hasMeans: true,
      period: '2025-06',
      periodTipCount: 3,
      earningsByPeriod: [],
    });

    // Still June: the scheduler renews June (nothing new: every subscriber of June tipped on subscribing or lacks means).
    const juneTick = await runSchedulerTick(s);
    expect(juneTick.settlements).toEqual([]);
    expect(juneTick.renewal?.tipped).toBe(0);

    // 1 July, 00:00:30: settle June, renew July.
    clock.set(at(2025, 7, 1, 0, 0, 30));
    const july = await runSchedulerTick(s);
    expect(july.settlements).toMatchObject([
      { period: '2025-06', status: 'settled', alreadySettled: false, tippersSettled: 3, centsMoved: 700 + 500 + 300 },
    ]);
    expect(july.renewal?.renewals.map((r) => [r.userId, r.thingId, r.outcome]).sort()).toEqual(
      [
        [alice.user.id, B, 'tipped'],
        [erin.user.id, B, 'no_means'],
      ].sort(),
    );
    const again = await runSchedulerTick(s);
    expect(again).toEqual({ purgedCodes: 0, settlements: [] });

    const subs = json<any[]>(await t.app.inject({ url: `${API}/user/subscriptions`, headers: bearer(alice.token) }));
    expect(subs.map((x) => [x.thing.id, x.active, x.thing.tipped, x.thing.subscribed])).toEqual([
      [B, true, true, true],
    ]);

    // 1 August: settle July (alice's renewal tip), renew August (alice now lacks means).
    clock.set(at(2025, 8, 1, 0, 1));
    const august = await runSchedulerTick(s);
    expect(august.settlements).toMatchObject([{ period: '2025-07', tippersSettled: 1, centsMoved: 700 }]);
    expect(august.renewal?.renewals.map((r) => [r.userId, r.outcome]).sort()).toEqual(
      [
        [alice.user.id, 'no_means'],
        [erin.user.id, 'no_means'],
      ].sort(),
    );
    expect((await getMoneySummary(s, alice.user.id)).renewalsSkippedForMeans).toEqual([B]);

    const balances = await s.database.db
      .selectFrom('users')
      .select(['id', 'balance_cents'])
      .where('id', 'in', [alice.user.id, bob.user.id, dave.user.id, erin.user.id])
      .orderBy('id')
      .execute();
    expect(balances.map((b) => b.balance_cents)).toEqual([600, 500, 0, 0]);
    expect((await getMoneySummary(s, npm.user.id)).earningsByPeriod).toEqual([
      { period: '2025-06', cents: 1017, tips: 4 },
      { period: '2025-07', cents: 700, tips: 1 },
    ]);

    const check = await cli(t.db.url, ['ledger', 'check']);
    expect(check.code, check.out).toBe(0);
    expect(check.out.trim()).toBe('ledger check: OK');
    const report = await cli(t.db.url, ['ledger', 'report', '--user', npm.user.username]);
    expect(report.code, report.out).toBe(0);
    expect(
      report.out
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s+/)),
    ).toEqual([
      ['earnings', 'of', npm.user.username],
      ['period', 'tips', 'cents'],
      ['2025-06', '4', '1017'],
      ['2025-07', '1', '700'],
      ['total', '5', '1717'],
    ]);
    const carolReport = await cli(t.db.url, ['ledger', 'report', '--user', carol.user.username]);
    expect(carolReport.out).toMatch(/2025-06\s+2\s+483\n/);
    expect(carolReport.out).toMatch(/total\s+2\s+483\n/);
    const settleAgain = await cli(t.db.url, ['settle', '--period', '2025-06']);
    expect(settleAgain.out.trim()).toBe('2025-06 was already settled; nothing to do');
  }, 120_000);
});
