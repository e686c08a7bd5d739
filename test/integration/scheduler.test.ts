/**
 * The scheduler inside `serve`: startScheduler checks at once and then every interval,
 * never overlapping; stop() waits for a running check. Settings SCHEDULER and
 * SCHEDULER_INTERVAL_SECONDS. On every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { fixedClock } from '../helpers/app.ts';
import { moneyUser, ownedThing, principalOf } from '../helpers/factories.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { CODE_RETENTION_SECONDS, runSchedulerTick, startScheduler } from '../../src/scheduler/index.ts';
import { insertClient, insertCode } from '../../src/db/repositories/oauth.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { unboundedHashing } from '../../src/auth/passwords.ts';

const at = (y: number, m: number, d = 1) => Date.UTC(y, m - 1, d) / 1000;

describe('scheduler settings', () => {
  it('SCHEDULER defaults to on every 60 s; off and an interval can be set; bad values are named', () => {
    expect(loadConfig({})).toMatchObject({ scheduler: true, schedulerIntervalSeconds: 60 });
    expect(loadConfig({ SCHEDULER: 'off', SCHEDULER_INTERVAL_SECONDS: '5' })).toMatchObject({
      scheduler: false,
      schedulerIntervalSeconds: 5,
    });
    expect(() => loadConfig({ SCHEDULER: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ SCHEDULER: 'maybe' })).toThrow(/SCHEDULER: one of on, off/);
    expect(() => loadConfig({ SCHEDULER_INTERVAL_SECONDS: '0' })).toThrow(/SCHEDULER_INTERVAL_SECONDS/);
  });
});

describe.each(ENGINES)('scheduler on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(engine);
  });
  afterAll(async () => t.drop());

  it('checks at once on start: settles the ended month, renews the new one, logs both; stop() waits', async () => {
    const clock = fixedClock(at(2025, 9, 15));
    const s = { database: t.database, clock, siteUrl: 'http://tipjar.test', passwordHashing: unboundedHashing };
    const owner = await moneyUser(s, 0, 0);
    const fan = await moneyUser(s, 1000, 250);
    await tipThing(s, principalOf(fan), await ownedThing(s, { userId: owner.id }));
    clock.set(at(2025, 10, 1));
    const lines: string[] = [];
    const errors: string[] = [];
    const scheduler = startScheduler(s, {
      intervalSeconds: 3600,
      log: (l) => lines.push(l),
      logError: (l) => errors.push(l),
    });
    await scheduler.stop();
    expect(errors).toEqual([]);
    expect(lines).toEqual([
      'scheduler: settled 2025-09: 1 tippers settled now, 0 already settled, 250 cents moved, 0 receipts queued',
      'scheduler: renewed subscriptions for 2025-10: 0 tipped, 0 skipped',
    ]);
    const period = await t.database.db
      .selectFrom('periods')
      .selectAll()
      .where('period', '=', '2025-10')
      .executeTakeFirstOrThrow();
    expect(period.renewed_at).toBe(at(2025, 10, 1));
    const again = startScheduler(s, {
      intervalSeconds: 3600,
      log: (l) => lines.push(l),
      logError: (l) => errors.push(l),
    });
    await again.stop();
    expect(lines).toHaveLength(2);
  });

  it('deletes authorization codes never exchanged a day after they expired; used and recent ones stay', async () => {
    const now = at(2025, 11, 20);
    const s = {
      database: t.database,
      clock: fixedClock(now),
      siteUrl: 'http://tipjar.test',
      passwordHashing: unboundedHashing,
    };
    const user = await moneyUser(s, 0, 0);
    const client = await insertClient(t.database.db, {
      clientId: `c${now}`,
      secretHash: 'x',
      name: 'app',
      callbackDomain: 'app.example',
      ownerUserId: null,
      now,
    });
    const code = (hash: string, expiresAt: number) =>
      insertCode(t.database.db, {
        codeHash: hash,
        clientId: client.id,
        userId: user.id,
        redirectUri: 'https://app.example/cb',
        redirectUriGiven: true,
        scope: 'tip',
        codeChallenge: null,
        codeChallengeMethod: null,
        now: expiresAt - 600,
        expiresAt,
      });
    const stale = await code('stale', now - CODE_RETENTION_SECONDS - 1);
    const usedStale = await code('used-stale', now - CODE_RETENTION_SECONDS - 1);
    await t.database.db
      .updateTable('oauth_codes')
      .set({ used_at: now - CODE_RETENTION_SECONDS - 100 })
      .where('id', '=', usedStale)
      .execute();
    const recent = await code('recent', now - CODE_RETENTION_SECONDS + 1);
    const report = await runSchedulerTick(s);
    expect(report.purgedCodes).toBe(1);
    const left = (
      await t.database.db.selectFrom('oauth_codes').select('id').where('id', 'in', [stale, usedStale, recent]).execute()
    ).map((r) => r.id);
    expect(left.sort()).toEqual([usedStale, recent].sort());
  });
});
