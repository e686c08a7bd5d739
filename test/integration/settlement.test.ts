/**
 * Settlement (DECISIONS.md "Money") on every engine: the arithmetic as a property over
 * random budgets, balances and tips; idempotency; a run killed with SIGKILL between tippers and
 * re-run; concurrent runs in one process and in two processes; period boundaries with an injected
 * clock; deleted and pending things; and `tipjar ledger check` finding breaches.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'kysely';
import { ENGINES, createDatabaseUrl, createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.ts';
import { fixedClock } from '../helpers/app.ts';
import { ledgerSnapshot } from '../helpers/money.ts';
import { moneyUser, ownedThing, principalOf } from '../helpers/factories.ts';
import type { Services } from '../../src/domain/services.ts';
import type { Engine } from '../../src/db/connect.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { deleteThing } from '../../src/domain/things.ts';
import {
  SETTLEMENT_CLAIM_SECONDS,
  lastClosedPeriod,
  settlePeriod,
  settlementReference,
  splitEvenly,
  unsettledPeriods,
} from '../../src/domain/money/settlement.ts';
import { checkLedger } from '../../src/domain/money/ledger.ts';
import { setMonthlyBudget } from '../../src/domain/money/account.ts';
import { periodBounds } from '../../src/domain/periods.ts';
import type { UserRecord } from '../../src/domain/records.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/tipjar.js', import.meta.url));

/** Unix seconds of a UTC date. */
const at = (y: number, m: number, d = 1, h = 0, min = 0, s = 0) => Date.UTC(y, m - 1, d, h, min, s) / 1000;

/** Runs `tipjar <args>` on a database; resolves with its exit code and output. */
function cli(url: string, args: string[], env: Record<string, string> = {}, children?: Set<ChildProcess>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children?.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve) =>
    child.once('exit', (code, signal) => {
      children?.delete(child);
      resolve({ code, signal, out });
    }),
  );
  return { child, done, output: () => out };
}

/** The shares and the debit of one tipper's settlement transaction, shares in tip order. */
async function settlementOf(s: Services, period: string, userId: number) {
  const rows = await s.database.db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_transactions as t', 't.id', 'e.transaction_id')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .leftJoin('tips', 'tips.id', 'e.tip_id')
    .select(['a.account_key', 'e.amount_cents', 'e.tip_id', 'tips.created_at'])
    .where('t.reference', '=', settlementReference(period, userId))
    .execute();
  const debit = rows.filter((r) => r.tip_id === null);
  const shares = rows
    .filter((r) => r.tip_id !== null)
    .sort((a, b) => a.created_at! - b.created_at! || a.tip_id! - b.tip_id!);
  return { debit, shares };
}

/**
 * A fixed scenario in period 2025-06 used to compare runs across databases: 6 tippers, 2 owners
 * and a pending identity, 4 things (one deleted after being tipped). Deterministic names and ids.
 */
async function buildScenario(s: Services & { clock: ReturnType<typeof fixedClock> }) {
  s.clock.set(at(2025, 6, 3));
  const owners = [await moneyUser(s, 0, 0, 'owner-a'), await moneyUser(s, 0, 0, 'owner-b')];
  const things = [
    await ownedThing(s, { userId: owners[0]!.id }),
    await ownedThing(s, { userId: owners[1]!.id }),
    await ownedThing(s, { identity: 'email:0123456789abcdef0123456789abcdef' }),
    await ownedThing(s, { userId: owners[1]!.id }),
  ];
  const tippers: UserRecord[] = [];
  for (let i = 0; i < 6; i++) tippers.push(await moneyUser(s, 1000 + i * 7, 100 + i * 31, `tipper-${i}`));
  for (let i = 0; i < tippers.length; i++) {
    for (let j = 0; j <= i % things.length; j++) {
      s.clock.advance(i % 2); // some tips share a second: ties go by id
      await tipThing(s, principalOf(tippers[i]!), things[(i + j) % things.length]!);
    }
  }
  await deleteThing(s, principalOf(owners[1]!), things[3]!);
  return { owners, things, tippers };
}

async function scenarioDatabase(engine: Engine) {
  const db = await createTestDatabase(engine);
  const clock = fixedClock(at(2025, 6, 1));
  const s = { database: db.database, clock, siteUrl: 'http://tipjar.test', passwordHashing: unboundedHashing };
  await buildScenario(s);
  clock.set(at(2025, 7, 1, 0, 5));
  return { db, s, clock };
}

describe('splitEvenly', () => {
  it('splits to the cent: shares sum to the total, differ by at most one, extra cents first', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 500 }), (total, n) => {
        const shares = splitEvenly(total, n);
        expect(shares).toHaveLength(n);
        expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
        expect(Math.min(...shares)).toBeGreaterThanOrEqual(0);
        expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
        for (let i = 1; i < n; i++) expect(shares[i]!).toBeLessThanOrEqual(shares[i - 1]!);
      }),
    );
    expect(splitEvenly(500, 3)).toEqual([167, 167, 166]);
    expect(splitEvenly(0, 0)).toEqual([]);
    expect(() => splitEvenly(1, 0)).toThrow();
    expect(() => splitEvenly(-1, 2)).toThrow();
  });
});

describe.each(ENGINES)('settlement on %s', (engine) => {
  let t: TestDatabase;
  const clock = fixedClock(at(2030, 1, 1));
  let s: Services;
  const children = new Set<ChildProcess>();
  beforeAll(async () => {
    t = await createTestDatabase(engine);
    s = { database: t.database, clock, siteUrl: 'http://tipjar.test', passwordHashing: unboundedHashing };
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await t.drop();
  });

  it('property: each tipper pays min(the budget fixed at their first tip of the period, balance) split evenly in tip order, the ledger stays sound', async () => {
    let month = 0;
    const owner = await moneyUser(s, 0, 0);
    const other = await moneyUser(s, 0, 0);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          tippers: fc.array(
            fc.record({
              budget: fc.integer({ min: 1, max: 5000 }),
              extra: fc.integer({ min: 0, max: 3000 }),
              budgetAtClose: fc.option(fc.integer({ min: 0, max: 12_000 }), { nil: undefined }),
            }),
            { minLength: 1, maxLength: 5 },
          ),
          things: fc.integer({ min: 1, max: 5 }),
          // [tipper, thing, seconds later, a new budget set just before the tip]
          tips: fc.array(
            fc.tuple(
              fc.nat(),
              fc.nat(),
              fc.integer({ min: 0, max: 2 }),
              fc.option(fc.integer({ min: 0, max: 9000 }), { nil: undefined }),
            ),
            {
              maxLength: 18,
            },
          ),
        }),
        async (spec) => {
          month++;
          const period = new Date(Date.UTC(2030, month - 1, 1)).toISOString().slice(0, 7);
          clock.set(periodBounds(period).start + 3600);
          const things: number[] = [];
          for (let i = 0; i < spec.things; i++) {
            things.push(
              await ownedThing(
                s,
                i % 3 === 0
                  ? { userId: owner.id }
                  : i % 3 === 1
                    ? { userId: other.id }
                    : { identity: `email:${month}x${i}` },
              ),
            );
          }
          const users = [];
          for (const tp of spec.tippers) users.push(await moneyUser(s, tp.budget + tp.extra, tp.budget));
          // the model: each user's budget setting, the budget fixed at their first tip, tips made
          const setting = spec.tippers.map((tp) => tp.budget);
          const fixed: Array<number | undefined> = spec.tippers.map(() => undefined);
          const tipped = new Map<number, number>();
          const done = new Set<string>();
          for (const [u, th, dt, newBudget] of spec.tips) {
            clock.advance(dt);
            const i = u % users.length;
            const user = users[i]!;
            const thing = things[th % things.length]!;
            if (newBudget !== undefined) {
              await setMonthlyBudget(s, user.id, newBudget);
              setting[i] = newBudget;
            }
            const budget = fixed[i] ?? setting[i]!;
            const balance = spec.tippers[i]!.budget + spec.tippers[i]!.extra;
            const expected = !(budget > 0 && balance >= budget)
              ? 'no_means'
              : done.has(`${i}:${thing}`)
                ? 'tip_once'
                : 'ok';
            let outcome = 'ok';
            try {
              await tipThing(s, principalOf(user), thing);
            } catch (err) {
              outcome = (err as { code?: string }).code ?? String(err);
            }
            expect(outcome).toBe(expected);
            if (outcome === 'ok') {
              fixed[i] ??= budget;
              done.add(`${i}:${thing}`);
              tipped.set(user.id, (tipped.get(user.id) ?? 0) + 1);
            }
          }
          // changes after the last tip of the period apply to the next period only
          for (let i = 0; i < users.length; i++) {
            const b = spec.tippers[i]!.budgetAtClose;
            if (b !== undefined) await setMonthlyBudget(s, users[i]!.id, b);
          }
          clock.set(periodBounds(period).end);
          const report = await settlePeriod(s, { period });
          expect(report).toMatchObject({ status: 'settled', alreadySettled: false, tippersSettled: tipped.size });
          let moved = 0;
          for (let i = 0; i < users.length; i++) {
            const u = users[i]!;
            const tp = spec.tippers[i]!;
            const { debit, shares } = await settlementOf(s, period, u.id);
            const n = tipped.get(u.id) ?? 0;
            if (n === 0) {
              expect(debit).toEqual([]);
              continue;
            }
            const expected = Math.min(fixed[i]!, tp.budget + tp.extra);
            moved += expected;
            expect(debit.map((d) => d.amount_cents)).toEqual([expected === 0 ? 0 : -expected]);
            expect(shares.map((x) => x.amount_cents)).toEqual(splitEvenly(expected, n));
            expect(shares.every((x) => x.amount_cents >= 0)).toBe(true);
          }
          expect(report.centsMoved).toBe(moved);
          expect(await checkLedger(s)).toEqual([]);
        },
      ),
      { numRuns: engine === 'postgres' ? 20 : 30 },
    );
  });

  it('is idempotent: a second run changes nothing and says so', async () => {
    clock.set(at(2029, 3, 10));
    const owner = await moneyUser(s, 0, 0);
    const fan = await moneyUser(s, 1000, 300);
    const thing = await ownedThing(s, { userId: owner.id });
    await tipThing(s, principalOf(fan), thing);
    clock.set(at(2029, 4, 1));
    const first = await settlePeriod(s, { period: '2029-03' });
    expect(first).toMatchObject({ status: 'settled', alreadySettled: false, tippersSettled: 1, centsMoved: 300 });
    const before = await ledgerSnapshot(s);
    const second = await settlePeriod(s, { period: '2029-03' });
    expect(second).toMatchObject({ status: 'settled', alreadySettled: true, tippersSettled: 0, centsMoved: 0 });
    expect(await ledgerSnapshot(s)).toEqual(before);
    const row = await s.database.db
      .selectFrom('periods')
      .selectAll()
      .where('period', '=', '2029-03')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'settled', settled_at: at(2029, 4, 1), locked_by: null, locked_until: null });
  });

  it('period boundaries: the last second of a month and the first of the next are two periods; tip_once resets', async () => {
    clock.set(at(2028, 6, 30, 23, 59, 59));
    const owner = await moneyUser(s, 0, 0);
    const fan = await moneyUser(s, 2000, 400);
    const thing = await ownedThing(s, { userId: owner.id });
    await tipThing(s, principalOf(fan), thing);
    await expect(tipThing(s, principalOf(fan), thing)).rejects.toMatchObject({ code: 'tip_once' });
    await expect(settlePeriod(s, { period: '2028-06' })).rejects.toMatchObject({ code: 'invalid_parameters' });
    clock.set(at(2028, 7, 1));
    await tipThing(s, principalOf(fan), thing); // a new period: tip_once has reset
    const tips = await s.database.db
      .selectFrom('tips')
      .select(['period', 'created_at'])
      .where('tipper_id', '=', fan.id)
      .orderBy('id')
      .execute();
    expect(tips).toEqual([
      { period: '2028-06', created_at: at(2028, 6, 30, 23, 59, 59) },
      { period: '2028-07', created_at: at(2028, 7, 1) },
    ]);
    expect(lastClosedPeriod(clock.now())).toBe('2028-06');
    await expect(settlePeriod(s, { period: '2028-07' })).rejects.toMatchObject({ code: 'invalid_parameters' });
    const june = await settlePeriod(s, { period: '2028-06' });
    expect(june).toMatchObject({ status: 'settled', tippersSettled: 1, centsMoved: 400 });
    const { shares } = await settlementOf(s, '2028-06', fan.id);
    expect(shares.map((x) => x.amount_cents)).toEqual([400]);
    // The July tip is not part of June's settlement.
    const julyTip = await s.database.db
      .selectFrom('tips')
      .select('id')
      .where('tipper_id', '=', fan.id)
      .where('period', '=', '2028-07')
      .executeTakeFirstOrThrow();
    expect(
      await s.database.db.selectFrom('ledger_entries').select('id').where('tip_id', '=', julyTip.id).execute(),
    ).toEqual([]);
    await expect(settlePeriod(s, { period: '2028-13' })).rejects.toMatchObject({ code: 'invalid_parameters' });
  });

  it("credits deleted things' owners and holds pending identities' shares; the default period is the last closed one", async () => {
    clock.set(at(2027, 2, 14));
    const owner = await moneyUser(s, 0, 0);
    const fan = await moneyUser(s, 999, 999);
    const gone = await ownedThing(s, { userId: owner.id });
    const pending = await ownedThing(s, { identity: 'twitter:user:id:424242' });
    await tipThing(s, principalOf(fan), gone);
    clock.advance(1);
    await tipThing(s, principalOf(fan), pending);
    await deleteThing(s, principalOf(owner), gone);
    clock.set(at(2027, 3, 1, 0, 0, 1));
    const report = await settlePeriod(s);
    expect(report).toMatchObject({ period: '2027-02', status: 'settled', tippersSettled: 1, centsMoved: 999 });
    const { shares } = await settlementOf(s, '2027-02', fan.id);
    expect(shares.map((x) => [x.account_key, x.amount_cents])).toEqual([
      [`earnings:user:${owner.id}`, 500],
      ['held:twitter:user:id:424242', 499],
    ]);
    const users = await s.database.db
      .selectFrom('users')
      .select(['id', 'balance_cents'])
      .where('id', 'in', [fan.id, owner.id])
      .orderBy('id')
      .execute();
    expect(users).toEqual([
      { id: owner.id, balance_cents: 0 },
      { id: fan.id, balance_cents: 0 },
    ]);
    expect(await checkLedger(s)).toEqual([]);
  });

  it.runIf(engine === 'postgres')(
    'a claim of a pending thing racing the settlement: the share follows the committed owner',
    async () => {
      clock.set(at(2024, 4, 10));
      const claimer = await moneyUser(s, 0, 0);
      const fan = await moneyUser(s, 600, 600);
      const identity = 'email:fedcba9876543210fedcba9876543210';
      const thing = await ownedThing(s, { identity });
      await tipThing(s, principalOf(fan), thing);
      clock.set(at(2024, 5, 1));
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let settling: Promise<unknown> | undefined;
      await s.database.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('things')
          .set({ owner_user_id: claimer.id, owner_identity: null })
          .where('id', '=', thing)
          .execute();
        settling = settlePeriod(s, { period: '2024-04' });
        setTimeout(release, 300);
        await gate;
      });
      await settling;
      const { shares } = await settlementOf(s, '2024-04', fan.id);
      expect(shares.map((x) => [x.account_key, x.amount_cents])).toEqual([[`earnings:user:${claimer.id}`, 600]]);
    },
  );

  it('a budget lowered after tipping does not make the tips free: the period pays the budget fixed at its first tip', async () => {
    clock.set(at(2026, 1, 5));
    const owner = await moneyUser(s, 0, 0);
    const fan = await moneyUser(s, 1000, 500);
    await tipThing(s, principalOf(fan), await ownedThing(s, { userId: owner.id }));
    await setMonthlyBudget(s, fan.id, 0);
    // the period's budget is fixed: the fan still has means this month, and may tip on
    await tipThing(s, principalOf(fan), await ownedThing(s, { userId: owner.id }));
    clock.set(at(2026, 2, 1));
    expect(await settlePeriod(s, { period: '2026-01' })).toMatchObject({ tippersSettled: 1, centsMoved: 500 });
    const { debit, shares } = await settlementOf(s, '2026-01', fan.id);
    expect(debit.map((d) => d.amount_cents)).toEqual([-500]);
    expect(shares.map((x) => x.amount_cents)).toEqual([250, 250]);
    // the lowered budget applies from the next period: no means there
    await expect(tipThing(s, principalOf(fan), await ownedThing(s, { userId: owner.id }))).rejects.toMatchObject({
      code: 'no_means',
    });
    expect(await checkLedger(s)).toEqual([]);
  });

  it('a budget raised after tipping applies from the next period', async () => {
    clock.set(at(2026, 3, 5));
    const owner = await moneyUser(s, 0, 0);
    const fan = await moneyUser(s, 5000, 300);
    await tipThing(s, principalOf(fan), await ownedThing(s, { userId: owner.id }));
    await setMonthlyBudget(s, fan.id, 900);
    clock.set(at(2026, 4, 2));
    await tipThing(s, principalOf(fan), await ownedThing(s, { userId: owner.id }));
    await setMonthlyBudget(s, fan.id, 100);
    clock.set(at(2026, 5, 1));
    await settlePeriod(s, { period: '2026-03' });
    await settlePeriod(s, { period: '2026-04' });
    expect((await settlementOf(s, '2026-03', fan.id)).debit.map((d) => d.amount_cents)).toEqual([-300]);
    expect((await settlementOf(s, '2026-04', fan.id)).debit.map((d) => d.amount_cents)).toEqual([-900]);
    const fixed = await s.database.db
      .selectFrom('period_budgets')
      .select(['period', 'budget_cents'])
      .where('user_id', '=', fan.id)
      .orderBy('period')
      .execute();
    expect(fixed).toEqual([
      { period: '2026-03', budget_cents: 300 },
      { period: '2026-04', budget_cents: 900 },
    ]);
  });

  it('a balance spent by an earlier period settles the next with zero shares', async () => {
    clock.set(at(2026, 6, 5));
    const owner = await moneyUser(s, 0, 0);
    const fan = await moneyUser(s, 500, 500);
    await tipThing(s, principalOf(fan), await ownedThing(s, { userId: owner.id }));
    clock.set(at(2026, 7, 5));
    await tipThing(s, principalOf(fan), await ownedThing(s, { userId: owner.id }));
    await tipThing(s, principalOf(fan), await ownedThing(s, { userId: owner.id }));
    clock.set(at(2026, 8, 1));
    expect(await settlePeriod(s, { period: '2026-06' })).toMatchObject({ tippersSettled: 1, centsMoved: 500 });
    expect(await settlePeriod(s, { period: '2026-07' })).toMatchObject({ tippersSettled: 1, centsMoved: 0 });
    const { debit, shares } = await settlementOf(s, '2026-07', fan.id);
    expect(debit.map((d) => d.amount_cents)).toEqual([0]);
    expect(shares.map((x) => x.amount_cents)).toEqual([0, 0]);
    expect(await checkLedger(s)).toEqual([]);
  });

  it('lists ended unsettled periods with tips, oldest first', async () => {
    const owner = await moneyUser(s, 0, 0);
    const fan = await moneyUser(s, 5000, 100);
    const thing = await ownedThing(s, { userId: owner.id });
    clock.set(at(2033, 3, 10));
    await tipThing(s, principalOf(fan), thing);
    clock.set(at(2033, 5, 10));
    await tipThing(s, principalOf(fan), thing);
    const mine = (ps: string[]) => ps.filter((p) => p.startsWith('2033-'));
    expect(mine(await unsettledPeriods(s))).toEqual(['2033-03']); // May has not ended
    clock.set(at(2033, 6, 2));
    const periods = await unsettledPeriods(s);
    expect(mine(periods)).toEqual(['2033-03', '2033-05']);
    expect([...periods].sort()).toEqual(periods);
    await settlePeriod(s, { period: '2033-03' });
    expect(mine(await unsettledPeriods(s))).toEqual(['2033-05']);
  });

  it('two concurrent runs in one process: one does the work, the state equals a single run', async () => {
    const single = await scenarioDatabase(engine);
    const twice = await scenarioDatabase(engine);
    try {
      await settlePeriod(single.s, { period: '2025-06' });
      const [a, b] = await Promise.all([
        settlePeriod(twice.s, { period: '2025-06', worker: 'w1' }),
        settlePeriod(twice.s, { period: '2025-06', worker: 'w2' }),
      ]);
      const worked = [a, b].filter((r) => r.status === 'settled' && !r.alreadySettled);
      expect(worked).toHaveLength(1);
      expect(worked[0]!.tippersSettled).toBe(6);
      const other = worked[0] === a ? b : a;
      expect(other.status === 'busy' || other.alreadySettled).toBe(true);
      expect(other.tippersSettled).toBe(0);
      expect(await ledgerSnapshot(twice.s)).toEqual(await ledgerSnapshot(single.s));
      expect(await checkLedger(twice.s)).toEqual([]);
    } finally {
      await single.db.drop();
      await twice.db.drop();
    }
  });

  it('an interrupted run leaves a claim; a re-run after the claim expires finishes with the same end state', async () => {
    const single = await scenarioDatabase(engine);
    const broken = await scenarioDatabase(engine);
    try {
      await settlePeriod(single.s, { period: '2025-06' });
      await expect(
        settlePeriod(broken.s, {
          period: '2025-06',
          worker: 'crashing',
          onTipperSettled: (n) => {
            if (n === 3) throw new Error('crash after 3 tippers');
          },
        }),
      ).rejects.toThrow('crash after 3 tippers');
      expect(await settlePeriod(broken.s, { period: '2025-06', worker: 'second' })).toMatchObject({
        status: 'busy',
        claimedBy: 'crashing',
      });
      broken.clock.advance(SETTLEMENT_CLAIM_SECONDS + 1);
      const resumed = await settlePeriod(broken.s, { period: '2025-06', worker: 'second' });
      expect(resumed).toMatchObject({ status: 'settled', tippersSettled: 3, tippersSkipped: 3 });
      expect(await ledgerSnapshot(broken.s)).toEqual(await ledgerSnapshot(single.s));
    } finally {
      await single.db.drop();
      await broken.db.drop();
    }
  });

  it('kill -9 of `tipjar settle` between tippers, then a re-run: the same end state as an uninterrupted run', async () => {
    const single = await scenarioDatabase(engine);
    const killed = await scenarioDatabase(engine);
    try {
      await settlePeriod(single.s, { period: '2025-06' });
      const run = cli(killed.db.url, ['settle', '--period', '2025-06'], { TIPJAR_SETTLE_PAUSE_AFTER: '2' }, children);
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => {
          if (run.output().includes('paused after 2 tippers')) {
            clearInterval(timer);
            resolve();
          }
        }, 20);
        void run.done.then((r) => {
          clearInterval(timer);
          reject(new Error(`settle exited before pausing: ${r.out}`));
        });
      });
      run.child.kill('SIGKILL');
      const exit = await run.done;
      expect(exit.signal).toBe('SIGKILL');
      const count = await killed.s.database.db
        .selectFrom('ledger_transactions')
        .select('reference')
        .where('kind', '=', 'settlement')
        .execute();
      expect(count).toHaveLength(2);
      expect(
        await killed.s.database.db
          .selectFrom('periods')
          .select('status')
          .where('period', '=', '2025-06')
          .executeTakeFirst(),
      ).toEqual({ status: 'settling' });
      // The killed run's claim is live: another CLI run stands back and changes nothing.
      const busy = await cli(killed.db.url, ['settle', '--period', '2025-06'], {}, children).done;
      expect(busy.code, busy.out).toBe(0);
      expect(busy.out).toContain('is being settled by another run');
      // After the claim expires, a re-run completes the period.
      killed.clock.set(Math.floor(Date.now() / 1000) + SETTLEMENT_CLAIM_SECONDS + 60);
      const resumed = await settlePeriod(killed.s, { period: '2025-06' });
      expect(resumed).toMatchObject({ status: 'settled', tippersSettled: 4, tippersSkipped: 2 });
      const a = await ledgerSnapshot(killed.s);
      const b = await ledgerSnapshot(single.s);
      expect(a).toEqual(b);
      const check = await cli(killed.db.url, ['ledger', 'check'], {}, children).done;
      expect(check.code, check.out).toBe(0);
      expect(check.out.trim()).toBe('ledger check: OK');
    } finally {
      await single.db.drop();
      await killed.db.drop();
    }
  }, 60_000);

  it('two `tipjar settle` processes at once: both exit 0, one settles, the end state equals a single run', async () => {
    const single = await scenarioDatabase(engine);
    const racing = await scenarioDatabase(engine);
    try {
      await settlePeriod(single.s, { period: '2025-06' });
      const [a, b] = await Promise.all([
        cli(racing.db.url, ['settle', '--period', '2025-06'], {}, children).done,
        cli(racing.db.url, ['settle', '--period', '2025-06'], {}, children).done,
      ]);
      expect([a.code, b.code], a.out + b.out).toEqual([0, 0]);
      const outs = [a.out, b.out];
      expect(outs.filter((o) => o.includes('settled 2025-06: 6 tippers settled now'))).toHaveLength(1);
      expect(
        outs.filter((o) => o.includes('is being settled by another run') || o.includes('was already settled')),
      ).toHaveLength(1);
      expect(await ledgerSnapshot(racing.s)).toEqual(await ledgerSnapshot(single.s));
    } finally {
      await single.db.drop();
      await racing.db.drop();
    }
  }, 60_000);

  it('migrating a database with tips fixes the budget of each tipper of every unsettled period, at their first tip', async () => {
    const { url, remove } = await createDatabaseUrl(engine);
    const database = await openDatabase(url);
    try {
      await migrateTo(database, '0006_search_index_direct');
      const old: Services = {
        database,
        clock: fixedClock(at(2025, 3, 1)),
        siteUrl: 'http://tipjar.test',
        passwordHashing: unboundedHashing,
      };
      const owner = await moneyUser(old, 0, 0, 'owner');
      const fan = await moneyUser(old, 2000, 700, 'fan');
      const [a, b] = [await ownedThing(old, { userId: owner.id }), await ownedThing(old, { userId: owner.id })];
      const tip = (thingId: number, period: string, createdAt: number) =>
        database.db
          .insertInto('tips')
          .values({
            thing_id: thingId,
            tipper_id: fan.id,
            period,
            created_at: createdAt,
            source: 'api',
            client_id: null,
          })
          .execute();
      await tip(a, '2025-03', at(2025, 3, 9));
      await tip(b, '2025-03', at(2025, 3, 4));
      await tip(a, '2025-04', at(2025, 4, 2));
      await database.db
        .insertInto('periods')
        .values({ period: '2025-03', status: 'settled', settled_at: at(2025, 4, 1) })
        .execute();
      expect(await migrateToLatest(database)).toContain('0008_period_budgets');
      const fixed = await database.db.selectFrom('period_budgets').selectAll().execute();
      // the settled March needs none; April's is the budget in force, at the first tip
      expect(fixed).toEqual([{ user_id: fan.id, period: '2025-04', budget_cents: 700, fixed_at: at(2025, 4, 2) }]);
    } finally {
      await database.close();
      await remove();
    }
  });

  it('`tipjar ledger check` prints each breach and exits 1', async () => {
    const broken = await scenarioDatabase(engine);
    try {
      await settlePeriod(broken.s, { period: '2025-06' });
      const db = broken.s.database.db;
      const fan = await db
        .selectFrom('users')
        .select('id')
        .where('username', '=', 'tipper-1')
        .executeTakeFirstOrThrow();
      await db.updateTable('users').set({ balance_cents: 12345 }).where('id', '=', fan.id).execute();
      await db
        .updateTable('ledger_accounts')
        .set({ balance_cents: -1 })
        .where('account_key', '=', 'earnings:user:1')
        .execute();
      const tx = await db
        .selectFrom('ledger_transactions')
        .select('id')
        .where('reference', '=', settlementReference('2025-06', fan.id))
        .executeTakeFirstOrThrow();
      const entry = await db
        .selectFrom('ledger_entries')
        .select('id')
        .where('transaction_id', '=', tx.id)
        .where('tip_id', 'is not', null)
        .executeTakeFirstOrThrow();
      await db.updateTable('ledger_entries').set({ tip_id: null }).where('id', '=', entry.id).execute();
      // A share moved onto another tipper's tip.
      const otherTip = await db
        .selectFrom('tips')
        .innerJoin('users', 'users.id', 'tips.tipper_id')
        .select('tips.id')
        .where('users.username', '=', 'tipper-0')
        .executeTakeFirstOrThrow();
      const tx2 = await db
        .selectFrom('ledger_transactions')
        .innerJoin('users', (j) => j.on('users.username', '=', 'tipper-2'))
        .select(['ledger_transactions.id', 'ledger_transactions.reference', 'users.id as uid'])
        .whereRef(
          'ledger_transactions.reference',
          '=',
          sql<string>`cast('settle:2025-06:' as text) || cast(users.id as text)`,
        )
        .executeTakeFirstOrThrow();
      const share2 = await db
        .selectFrom('ledger_entries')
        .select('id')
        .where('transaction_id', '=', tx2.id)
        .where('tip_id', 'is not', null)
        .executeTakeFirstOrThrow();
      await db.updateTable('ledger_entries').set({ tip_id: otherTip.id }).where('id', '=', share2.id).execute();
      // tipper-2's period budget lowered below what the settlement debited
      await db
        .updateTable('period_budgets')
        .set({ budget_cents: 1 })
        .where('user_id', '=', tx2.uid)
        .where('period', '=', '2025-06')
        .execute();
      const debit2 = await db
        .selectFrom('ledger_entries')
        .select('amount_cents')
        .where('transaction_id', '=', tx2.id)
        .where('tip_id', 'is', null)
        .executeTakeFirstOrThrow();
      const breaches = await checkLedger(broken.s);
      expect(breaches.map((b) => b.message)).toContain(
        `${tx2.reference} pays for tip ${otherTip.id}, which is not a tip of that tipper in that period`,
      );
      expect(breaches.map((b) => b.message)).toContain(
        `${tx2.reference} debits ${-debit2.amount_cents} cents, more than the period's budget of 1`,
      );
      const kinds = new Set(breaches.map((x) => x.invariant));
      expect([...kinds].sort()).toEqual(['account', 'period', 'sign', 'sum', 'user_balance']);
      const res = await cli(broken.db.url, ['ledger', 'check'], {}, children).done;
      expect(res.code).toBe(1);
      const lines = res.out.trim().split('\n');
      expect(lines.filter((l) => l.startsWith('BREACH ['))).toHaveLength(breaches.length);
      expect(lines).toContain(
        `BREACH [user_balance] user tipper-1 (id ${fan.id}) has balance_cents 12345 but the balance account holds ${1000 + 7 - (100 + 31)}`,
      );
      expect(lines.at(-1)).toBe(`ledger check: ${breaches.length} breaches`);
    } finally {
      await broken.db.drop();
    }
  }, 60_000);
});
