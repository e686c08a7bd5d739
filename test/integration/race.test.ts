/**
 * Races for real (DESIGN.md "Tests"): many concurrent tip requests through the app on each engine.
 * A tip is once per user, thing and period even under concurrency, and the counters on the thing
 * always equal the tip rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, json, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';

const N = 50;

describe.each(ENGINES)('concurrent tips on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(engine);
  });
  afterAll(async () => t?.close());

  const db = () => t.db.database.db;
  const tip = (id: number, token: string) =>
    t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(token) });

  async function counters(id: number) {
    const thing = await db()
      .selectFrom('things')
      .select(['tips', 'tips_user_count'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const rows = await db()
      .selectFrom('tips')
      .select([sql<number>`count(*)`.as('n'), sql<number>`count(distinct tipper_id)`.as('d')])
      .where('thing_id', '=', id)
      .executeTakeFirstOrThrow();
    return { tips: thing.tips, users: thing.tips_user_count, rows: Number(rows.n), tippers: Number(rows.d) };
  }

  async function activities(verb: string, thingId: number) {
    const r = await db()
      .selectFrom('activities')
      .select(sql<number>`count(*)`.as('n'))
      .where('verb', '=', verb)
      .where('thing_id', '=', thingId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  it(`${N} concurrent tips by one user on one thing: exactly one 200, ${N - 1} × 403 tip_once`, async () => {
    const owner = await buildUser(t.services);
    const tipper = await buildUser(t.services);
    const id = await buildThing(t.services, owner);

    const results = await Promise.all(Array.from({ length: N }, () => tip(id, tipper.token)));
    const ok = results.filter((r) => r.statusCode === 200);
    const refused = results.filter((r) => r.statusCode === 403);
    expect(results.map((r) => r.statusCode).filter((s) => s !== 200 && s !== 403)).toEqual([]);
    expect(ok).toHaveLength(1);
    expect(json(ok[0]!).thing.tips).toBe(1);
    expect(refused).toHaveLength(N - 1);
    for (const r of refused) expect(json(r).error).toBe('tip_once');

    expect(await counters(id)).toEqual({ tips: 1, users: 1, rows: 1, tippers: 1 });
    expect(await activities('like', id)).toBe(1);
  });

  it(`${N} different users tipping one thing concurrently: ${N} × 200, tips = ${N} = tip rows`, async () => {
    const owner = await buildUser(t.services);
    const id = await buildThing(t.services, owner);
    const tippers: TestUser[] = [];
    for (let i = 0; i < N; i++) tippers.push(await buildUser(t.services, { scopes: 'tip' }));

    const results = await Promise.all(tippers.map((u) => tip(id, u.token)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(N).fill(200));
    // every confirmation carries a distinct count from 1 to N: each tip saw the others committed
    expect(results.map((r) => json(r).thing.tips as number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: N }, (_, i) => i + 1),
    );
    expect(await counters(id)).toEqual({ tips: N, users: N, rows: N, tippers: N });
    expect(await activities('like', id)).toBe(N);
  });

  it('one user tipping 20 things concurrently: 20 × 200, one tip row each', async () => {
    const owner = await buildUser(t.services);
    const tipper = await buildUser(t.services);
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await buildThing(t.services, owner));
    const results = await Promise.all(ids.map((id) => tip(id, tipper.token)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    for (const id of ids) expect(await counters(id)).toEqual({ tips: 1, users: 1, rows: 1, tippers: 1 });
  });

  it('mixed: 10 users × 5 tips each on one thing concurrently: one tip per user', async () => {
    const owner = await buildUser(t.services);
    const id = await buildThing(t.services, owner);
    const users: TestUser[] = [];
    for (let i = 0; i < 10; i++) users.push(await buildUser(t.services));
    const results = await Promise.all(
      users.flatMap((u) => Array.from({ length: 5 }, () => tip(id, u.token).then((r) => ({ u, r })))),
    );
    for (const u of users) {
      const mine = results
        .filter((x) => x.u === u)
        .map((x) => x.r.statusCode)
        .sort();
      expect(mine).toEqual([200, 403, 403, 403, 403]);
    }
    expect(await counters(id)).toEqual({ tips: 10, users: 10, rows: 10, tippers: 10 });
  });

  it(`${N} users subscribing to one thing while ${N} others tip it, concurrently: all ${2 * N} answered 200 and counted`, async () => {
    const owner = await buildUser(t.services);
    const id = await buildThing(t.services, owner);
    const users: TestUser[] = [];
    for (let i = 0; i < 2 * N; i++) users.push(await buildUser(t.services, { scopes: 'tip' }));
    // A subscription tips in a transaction of several statements; a tip on PostgreSQL is one
    // statement: both lock the thing before its hour of tips, so neither deadlocks the other.
    const results = await Promise.all(
      users.map((u, i) =>
        i % 2 === 0
          ? t.app.inject({ method: 'POST', url: `${API}/things/${id}/subscriptions`, headers: bearer(u.token) })
          : tip(id, u.token),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(2 * N).fill(200));
    expect(await counters(id)).toEqual({ tips: 2 * N, users: 2 * N, rows: 2 * N, tippers: 2 * N });
  });

  it(`${N} users concurrently tipping one new auto-submit URL: one thing created, ${N} × 200`, async () => {
    const owner = await buildUser(t.services);
    const tippers: TestUser[] = [];
    for (let i = 0; i < N; i++) tippers.push(await buildUser(t.services, { scopes: 'tip' }));
    const inner = `https://race.invalid/${uniqueName('auto')}`;
    const auto = `${PUBLIC_URL}/submit/auto?${new URLSearchParams({ url: inner, user_id: owner.user.username, title: 'Raced' })}`;

    const results = await Promise.all(
      tippers.map((u) =>
        t.app.inject({ method: 'POST', url: `${API}/tip`, headers: bearer(u.token), payload: { url: auto } }),
      ),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(
      statuses.filter((s) => s !== 200).map((s, i) => `${s} ${results.filter((r) => r.statusCode !== 200)[i]!.body}`),
    ).toEqual([]);

    const things = await db().selectFrom('things').select(['id', 'title']).where('url', '=', inner).execute();
    expect(things).toHaveLength(1);
    expect(things[0]!.title).toBe('Raced');
    const id = things[0]!.id;
    expect(new Set(results.map((r) => json(r).thing.id))).toEqual(new Set([id]));
    expect(await counters(id)).toEqual({ tips: N, users: N, rows: N, tippers: N });
    // created through an auto-submit URL: no `post` in the owner's name, one `like` per tipper
    expect(await activities('post', id)).toBe(0);
    expect(await activities('like', id)).toBe(N);
  });
});
