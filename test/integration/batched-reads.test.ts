/**
 * Point reads batched on PostgreSQL (src/db/batched.ts): the thing reads (one by one and by
 * page), the token reads and the reads of the search counter asked in one turn of the event loop
 * on the database's own handle are one statement, each answer is the one of its own key, and every read sees what was committed before it was asked; a transaction's
 * reads are never batched (they see the transaction's own writes). On SQLite every read is its
 * own, as before.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unboundedHashing } from '../../src/auth/passwords.ts';
import { hashSecret } from '../../src/auth/secrets.ts';
import { systemClock } from '../../src/domain/clock.ts';
import type { Services } from '../../src/domain/services.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { findThingById, findThingsByIds, insertThing } from '../../src/db/repositories/things.ts';
import { readSearchChanges } from '../../src/db/repositories/search.ts';
import { findPrincipalByTokenHash } from '../../src/db/repositories/tokens.ts';
import { parseNewThing } from '../../src/domain/thing-input.ts';
import { createTestDatabase, ENGINES, recordPoolQueries, type TestDatabase } from '../helpers/db.ts';
import { buildThing, buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';

describe.each(ENGINES)('batched point reads on %s', (engine) => {
  let db: TestDatabase;
  let s: Services;
  let owner: TestUser;
  let other: TestUser;
  /** SQL texts sent to the pool of the database's own handle (PostgreSQL only). */
  let sent: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    s = { database: db.database, clock: systemClock, siteUrl: 'http://tipjar.test', passwordHashing: unboundedHashing };
    owner = await buildUser(s);
    other = await buildUser(s);
    sent = recordPoolQueries(db.database);
  });
  afterAll(async () => db.drop());

  it('reads of things asked together answer each its own thing (missing ones undefined, repeats alike)', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await buildThing(s, owner, { title: `batched ${i}` }));
    const asked = [...ids, ids[0]!, 987654321];
    sent.length = 0;
    const things = await Promise.all(asked.map((id) => findThingById(db.database.db, id)));
    expect(things.map((t) => t?.id)).toEqual([...ids, ids[0], undefined]);
    expect(things.map((t) => t?.title)).toEqual([0, 1, 2, 3, 4, 0].map((i) => `batched ${i}`).concat([undefined!]));
    // PostgreSQL: one statement for the seven reads; SQLite reads without the pool.
    expect(sent.length).toBe(engine === 'postgres' ? 1 : 0);
  });

  it('pages of things read together with single things answer each its own, deleted and missing ones left out', async () => {
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await buildThing(s, owner, { title: `page ${i}` }));
    await sql`update things set deleted_at = 1 where id = ${ids[3]!}`.execute(db.database.db);
    sent.length = 0;
    const [first, second, single] = await Promise.all([
      findThingsByIds(db.database.db, [ids[0]!, ids[1]!, ids[0]!, 987654321]),
      findThingsByIds(db.database.db, [ids[1]!, ids[2]!, ids[3]!]),
      findThingById(db.database.db, ids[2]!),
    ]);
    expect(first.map((t) => t.title).sort()).toEqual(['page 0', 'page 1']);
    expect(second.map((t) => t.title).sort()).toEqual(['page 1', 'page 2']);
    expect(single?.title).toBe('page 2');
    // PostgreSQL: one statement, of several keys, for the three reads; SQLite reads without the pool.
    if (engine === 'postgres') expect(sent).toEqual([expect.stringContaining('any(')]);
    else expect(sent).toEqual([]);
  });

  it('reads of the search counter asked together are one statement, and one asked after a write sees it', async () => {
    const before = await readSearchChanges(db.database);
    sent.length = 0;
    const together = await Promise.all([1, 2, 3, 4].map(() => readSearchChanges(db.database)));
    expect(new Set(together)).toEqual(new Set([before]));
    expect(sent.length).toBe(engine === 'postgres' ? 1 : 0);
    const early = readSearchChanges(db.database);
    await buildThing(s, owner, { title: 'moves the counter' });
    const late = await readSearchChanges(db.database);
    expect(late).toBeGreaterThan(before!);
    expect(await early).toBeGreaterThanOrEqual(before!);
  });

  it('reads of tokens asked together answer each its own principal, revoked or unknown ones none', async () => {
    const revoked = await buildUser(s);
    await sql`update access_tokens set revoked_at = 1 where token_hash = ${hashSecret(revoked.token)}`.execute(
      db.database.db,
    );
    sent.length = 0;
    const principals = await Promise.all(
      [owner.token, other.token, revoked.token, 'no-such-token'].map((t) =>
        findPrincipalByTokenHash(db.database.db, hashSecret(t)),
      ),
    );
    expect(principals.map((p) => p?.username)).toEqual([
      owner.user.username,
      other.user.username,
      undefined,
      undefined,
    ]);
    expect(principals[0]!.scopes).toEqual(new Set(['tip', 'thing', 'extendedread']));
    expect(sent.length).toBe(engine === 'postgres' ? 1 : 0);
  });

  it('a read asked after a commit sees it, even when a batch was already waiting', async () => {
    const id = await buildThing(s, owner, { title: 'before' });
    const early = findThingById(db.database.db, id);
    await sql`update things set title = 'after' where id = ${id}`.execute(db.database.db);
    const late = findThingById(db.database.db, id);
    expect((await late)?.title).toBe('after');
    expect(['before', 'after']).toContain((await early)?.title);
  });

  it("a transaction's reads see its own writes (never batched with the handle's)", async () => {
    const seen = await inTransaction(s.database, async (trx) => {
      const input = parseNewThing({ url: `https://example.org/${uniqueName('trx')}`, title: 'in the transaction' });
      const id = await insertThing(trx, input, { userId: owner.user.id }, s.clock.now());
      // On SQLite the handle's own reads wait for the connection the transaction holds: only its read.
      const [mine, outside] = await Promise.all([
        findThingById(trx, id),
        engine === 'postgres' ? findThingById(db.database.db, id) : undefined,
      ]);
      return { mine: mine?.title, outside: outside?.title };
    });
    expect(seen.mine).toBe('in the transaction');
    expect(seen.outside).toBeUndefined(); // PostgreSQL: not committed yet when it was read
  });
});
