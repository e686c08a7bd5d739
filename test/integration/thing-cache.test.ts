/**
 * The thing cache (src/db/thing-cache.ts; SQLite only): reads of things are served from memory,
 * yet every write — through the API, by a transaction that rolls back, by another process —
 * shows in the next read, and concurrent tips and reads end with the exact counters.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, bearer, buildTestApp, json, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, type TestUser } from '../helpers/factories.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { updateThing } from '../../src/db/repositories/things.ts';

describe('thing cache on sqlite', () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await buildTestApp('sqlite');
    owner = await buildUser(t.services);
  });
  afterAll(async () => t.close());

  const get = async (id: number) => {
    const res = await t.app.inject({ url: `${API}/things/${id}` });
    return { status: res.statusCode, body: res.statusCode === 200 ? json<{ title: string; tips: number; tips_user_count: number; owner: { username: string } }>(res) : undefined };
  };
  /** Changes a title without telling the cache, as no code path of Tipjar may: shows what is served from memory. */
  const renameBehindTheCache = (id: number, title: string) => sql`update things set title = ${title} where id = ${id}`.execute(t.db.database.db);

  it('a thing read twice is served from memory the second time', async () => {
    const id = await buildThing(t.services, owner, { title: 'first title' });
    expect((await get(id)).body?.title).toBe('first title');
    await renameBehindTheCache(id, 'changed behind');
    expect((await get(id)).body?.title).toBe('first title');
    // …and the multi-get reads the same entries.
    const multi = json<{ title: string }[]>(await t.app.inject({ url: `${API}/things/${id},${id}` }));
    expect(multi.map((x) => x.title)).toEqual(['first title']);
  });

  it('PATCH, a tip and DELETE through the API show in the next read', async () => {
    const id = await buildThing(t.services, owner, { title: 'before' });
    expect((await get(id)).body?.title).toBe('before');
    const patched = await t.app.inject({ method: 'PATCH', url: `${API}/things/${id}`, headers: bearer(owner.token), payload: { title: 'after' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect((await get(id)).body?.title).toBe('after');

    const tipper = await buildUser(t.services);
    expect((await get(id)).body?.tips).toBe(0);
    const tipped = await t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(tipper.token) });
    expect(tipped.statusCode, tipped.body).toBe(200);
    expect((await get(id)).body).toMatchObject({ tips: 1, tips_user_count: 1 });

    const deleted = await t.app.inject({ method: 'DELETE', url: `${API}/things/${id}`, headers: bearer(owner.token) });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await get(id)).status).toBe(404);
  });

  it('a transaction that rolls back leaves no trace in the cache', async () => {
    const id = await buildThing(t.services, owner, { title: 'kept' });
    expect((await get(id)).body?.title).toBe('kept');
    await expect(
      inTransaction(t.db.database, async (trx) => {
        await updateThing(trx, id, { title: 'rolled back' }, 1);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect((await get(id)).body?.title).toBe('kept');
  });

  it('a commit by another connection (another process) empties the cache', async () => {
    const id = await buildThing(t.services, owner, { title: 'mine' });
    expect((await get(id)).body?.title).toBe('mine');
    const other = await openDatabase(t.db.url);
    try {
      await sql`update things set title = ${'theirs'} where id = ${id}`.execute(other.db);
    } finally {
      await other.close();
    }
    expect((await get(id)).body?.title).toBe('theirs');
  });

  it('40 concurrent tips interleaved with reads: the last read shows exactly the acknowledged tips', async () => {
    const id = await buildThing(t.services, owner, { title: 'popular' });
    const tippers = await Promise.all(Array.from({ length: 40 }, () => buildUser(t.services)));
    const results = await Promise.all(
      tippers.flatMap((tipper) => [
        t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(tipper.token) }),
        t.app.inject({ url: `${API}/things/${id}` }),
      ]),
    );
    const acknowledged = results.filter((r, i) => i % 2 === 0 && r.statusCode === 200).length;
    expect(acknowledged).toBe(40);
    expect((await get(id)).body).toMatchObject({ tips: 40, tips_user_count: 40 });
  });
});
