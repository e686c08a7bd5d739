/**
 * The tip sorts of GET /things/search (`tips_day|week|month`, `trend`, `tips`) against a plain
 * computation over the tips, for random tip histories (fast-check): tips clustered in one hour,
 * spread over six weeks, and right at a window's edges. The windows are read from tip_hours, one
 * row per thing and hour, with hours cut by an edge counted tip by tip (db/repositories/search.ts);
 * this checks that the result is exactly what counting every tip gives, through both plans (a word
 * search scores each match; a search without words ranks the scored things), on every engine.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, json, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { SORT_WINDOWS, TREND_HALF_LIFE, TREND_WINDOW } from '../../src/db/repositories/search.ts';

const DAY = 86400;
/** 2026-07-20 12:34:56 UTC: "now" of every search. */
const NOW = Date.UTC(2026, 6, 20, 12, 34, 56) / 1000;
const USERS = 6;
const THINGS = 4;

type Sort = 'tips_day' | 'tips_week' | 'tips_month' | 'trend' | 'tips';
const SORTS: Sort[] = ['tips_day', 'tips_week', 'tips_month', 'trend', 'tips'];

/** Seconds before NOW at which tips may fall: edges of every window, one hour's cluster, and anywhere in six weeks. */
const ageArb = fc.oneof(
  fc.constantFrom(0, 1, DAY - 1, DAY, DAY + 1, 7 * DAY - 1, 7 * DAY, 7 * DAY + 1, 30 * DAY - 1, 30 * DAY, 30 * DAY + 1),
  fc.integer({ min: 0, max: 3599 }),
  fc.integer({ min: 0, max: 42 * DAY }),
);
const tipArb = fc.record({
  user: fc.integer({ min: 0, max: USERS - 1 }),
  thing: fc.integer({ min: 0, max: THINGS - 1 }),
  age: ageArb,
});

const periodOf = (t: number) => new Date(t * 1000).toISOString().slice(0, 7);

/** The score of a thing's tips (Unix seconds) under `sort` at NOW, computed tip by tip. */
function expectedScore(sort: Sort, times: number[]): number {
  if (sort === 'tips') return times.length;
  if (sort === 'trend')
    return times
      .filter((t) => t > NOW - TREND_WINDOW && t <= NOW)
      .reduce((sum, t) => sum + 2 ** ((t - NOW) / TREND_HALF_LIFE), 0);
  return times.filter((t) => t > NOW - SORT_WINDOWS[sort] && t <= NOW).length;
}

describe.each(ENGINES)('tip sorts against counting every tip on %s', (engine) => {
  let t: TestApp;
  const clock = fixedClock(NOW);
  let users: TestUser[];

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
    users = await Promise.all(Array.from({ length: USERS }, () => buildUser(t.services, { scopes: 'tip thing' })));
  });
  afterAll(async () => t.close());

  it('orders exactly as the tips say, with and without words (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tipArb, { maxLength: 24 }), async (tips) => {
        clock.set(NOW - 60 * DAY);
        const owner = await buildUser(t.services, { scopes: 'tip thing' });
        const word = uniqueName('tipsort').replace(/[^a-z0-9]/g, '');
        const ids: number[] = [];
        for (let i = 0; i < THINGS; i++) ids.push(await buildThing(t.services, owner, { title: `${word} thing ${i}` }));
        // One tip per user, thing and month (the API's rule): later duplicates are left out.
        const seen = new Set<string>();
        const times = new Map<number, number[]>(ids.map((id) => [id, []]));
        for (const tip of tips) {
          const at = NOW - tip.age;
          const key = `${tip.user}:${tip.thing}:${periodOf(at)}`;
          if (seen.has(key)) continue;
          seen.add(key);
          clock.set(at);
          const res = await t.app.inject({
            method: 'POST',
            url: `${API}/things/${ids[tip.thing]}/tip`,
            headers: bearer(users[tip.user]!.token),
          });
          expect(res.statusCode, res.body).toBe(200);
          times.get(ids[tip.thing]!)!.push(at);
        }
        clock.set(NOW);
        for (const sort of SORTS) {
          const score = new Map(ids.map((id) => [id, expectedScore(sort, times.get(id)!)]));
          for (const query of [`query=${word}`, `user=${owner.user.username}`]) {
            const res = await t.app.inject({ url: `${API}/things/search?${query}&sort=${sort}` });
            expect(res.statusCode, res.body).toBe(200);
            const got = json<{ things: { id: number }[] }>(res).things.map((x) => x.id);
            expect([...got].sort()).toEqual([...ids].sort());
            for (let i = 0; i + 1 < got.length; i++) {
              const [a, b] = [score.get(got[i]!)!, score.get(got[i + 1]!)!];
              const context = `${sort} ${query}: ${got.join(',')} with scores ${got.map((id) => score.get(id)).join(',')}`;
              // Higher scores first; equal ones newest (highest id) first. `trend` sums floating
              // point numbers in another order than here, so only clearly different sums are ordered.
              if (sort === 'trend' && Math.abs(a - b) <= 1e-9 * Math.max(a, b)) continue;
              expect(a > b || (a === b && got[i]! > got[i + 1]!), context).toBe(true);
            }
          }
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
