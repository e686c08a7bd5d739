/**
 * inTransaction (src/db/transaction.ts): concurrent transactions — group-committed on SQLite —
 * each commit or roll back alone: a failing one leaves no row and does not take the others down,
 * and every caller gets its own result. What a transaction recorded as changed is announced to
 * the database's commit listeners once it committed, before its caller is answered, and never
 * when it rolled back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { inTransaction, onCommit, recordChange, type Change } from '../../src/db/transaction.ts';
import { uniqueName } from '../helpers/factories.ts';
import { findMeans, insertUser, updateBudget } from '../../src/db/repositories/users.ts';

describe.each(ENGINES)('inTransaction on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(engine);
  });
  afterAll(async () => t.drop());

  it('30 concurrent transactions: the failing ones write nothing, the others commit with their own results', async () => {
    const names = Array.from({ length: 30 }, () => uniqueName('tx'));
    const outcomes = await Promise.allSettled(
      names.map((username, i) =>
        inTransaction(t.database, async (trx) => {
          const r = await trx
            .insertInto('users')
            .values({
              username,
              username_key: username.toLowerCase(),
              email: '',
              password_hash: null,
              registered_at: 1,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          // a second write in the same transaction, so a partial rollback would show
          await trx
            .updateTable('users')
            .set({ about: `row ${i}` })
            .where('id', '=', r.id)
            .execute();
          if (i % 3 === 0) throw new Error(`refused ${i}`);
          return `${username}:${r.id}`;
        }),
      ),
    );
    const rows = await t.database.db
      .selectFrom('users')
      .select(['id', 'username', 'about'])
      .where('username', 'in', names)
      .execute();
    const byName = new Map(rows.map((r) => [r.username, r]));
    outcomes.forEach((o, i) => {
      const row = byName.get(names[i]!);
      if (i % 3 === 0) {
        expect(o).toEqual({ status: 'rejected', reason: new Error(`refused ${i}`) });
        expect(row).toBeUndefined();
      } else {
        expect(o).toEqual({ status: 'fulfilled', value: `${names[i]}:${row!.id}` });
        expect(row!.about).toBe(`row ${i}`);
      }
    });
    expect(rows).toHaveLength(20);
  });

  it('a unique violation inside one transaction rolls back only that transaction', async () => {
    const taken = uniqueName('taken');
    const insert = (username: string) =>
      inTransaction(t.database, (trx) =>
        trx
          .insertInto('users')
          .values({ username, username_key: username.toLowerCase(), email: '', password_hash: null, registered_at: 1 })
          .execute(),
      );
    const results = await Promise.allSettled([insert(taken), insert(taken), insert(uniqueName('other'))]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    const n = await t.database.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('username', '=', taken)
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(1);
  });

  it('announces the changes of committed transactions after their commit and before their callers are answered, never those of rolled-back ones', async () => {
    const heard: { changes: Change[] }[] = [];
    const names = Array.from({ length: 12 }, () => uniqueName('announce'));
    const stop = onCommit(t.database, (changes) => {
      heard.push({ changes: [...changes] });
    });
    try {
      const answered: number[] = [];
      const outcomes = await Promise.allSettled(
        names.map((username, i) =>
          inTransaction(t.database, async (trx) => {
            await trx
              .insertInto('users')
              .values({ username, username_key: username.toLowerCase(), email: '', registered_at: 1 })
              .execute();
            recordChange(trx, { kind: 'things', ids: [1000 + i], matching: i % 2 === 0 });
            recordChange(trx, { kind: 'tip', thingId: 1000 + i });
            if (i % 4 === 3) throw new Error(`refused ${i}`);
            return i;
          }).then((i) => {
            // Answered only after its change was heard.
            expect(heard.flatMap((h) => h.changes)).toContainEqual({ kind: 'tip', thingId: 1000 + i });
            answered.push(i);
            return i;
          }),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(3);
      const all = heard.flatMap((h) => h.changes);
      const committed = names.map((_, i) => i).filter((i) => i % 4 !== 3);
      expect(answered.sort((a, b) => a - b)).toEqual(committed);
      expect(all).toHaveLength(committed.length * 2);
      for (const i of committed) {
        expect(all).toContainEqual({ kind: 'things', ids: [1000 + i], matching: i % 2 === 0 });
        expect(all).toContainEqual({ kind: 'tip', thingId: 1000 + i });
      }
      for (const i of [3, 7, 11]) expect(all).not.toContainEqual({ kind: 'tip', thingId: 1000 + i });
    } finally {
      stop();
    }
    // Removed listeners hear nothing more.
    const before = heard.length;
    await inTransaction(t.database, async (trx) => recordChange(trx, { kind: 'tip', thingId: 1 }));
    expect(heard.length).toBe(before);
  });

  it.runIf(engine === 'sqlite')(
    'transactions requested in separate callbacks of one turn of the event loop share one COMMIT (group commit)',
    async () => {
      const heard: Change[][] = [];
      const stop = onCommit(t.database, (changes) => heard.push([...changes]));
      try {
        // Like requests read from several sockets in one poll phase: each starts its transaction
        // in its own callback, after the previous callback's microtasks ran. Immediates queued
        // together run in one check phase (timers could straddle a millisecond and two turns).
        const results = await Promise.all(
          Array.from(
            { length: 12 },
            (_, i) =>
              new Promise<number>((resolve, reject) =>
                setImmediate(() => {
                  inTransaction(t.database, async (trx) => {
                    await trx.selectFrom('users').select('id').limit(1).execute();
                    recordChange(trx, { kind: 'tip', thingId: 2000 + i });
                    return i;
                  }).then(resolve, reject);
                }),
              ),
          ),
        );
        expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i));
        expect(heard).toHaveLength(1);
        expect(heard[0]).toHaveLength(12);
      } finally {
        stop();
      }
    },
  );

  it('a precompiled read on the database handle while a transaction is open never sees its uncommitted writes', async () => {
    const username = uniqueName('isolated');
    const id = await insertUser(t.database.db, { username, email: '', passwordHash: null, registeredAt: 1 });
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const tx = inTransaction(t.database, async (trx) => {
      await updateBudget(trx, id, 777, 2);
      events.push('written');
      await held; // the transaction stays open across turns of the event loop
    }).then(() => events.push('committed'));
    while (!events.includes('written')) await new Promise((r) => setTimeout(r, 5));
    const read = findMeans(t.database.db, id, '2026-01').then((m) => {
      events.push(`read ${m!.budgetCents}`);
    });
    await new Promise((r) => setTimeout(r, 30));
    release();
    await Promise.all([tx, read]);
    // Either the read ran before the commit and saw the old budget, or it waited for the commit.
    const readEvent = events.find((e) => e.startsWith('read'))!;
    if (events.indexOf(readEvent) < events.indexOf('committed')) expect(readEvent).not.toBe('read 777');
    expect(await findMeans(t.database.db, id, '2026-01')).toMatchObject({ budgetCents: 777 });
  });

  it('a transaction that records nothing announces nothing; a change on the database handle outside a transaction is announced at once; one in a transaction not opened by inTransaction is refused', async () => {
    const heard: Change[][] = [];
    const stop = onCommit(t.database, (changes) => heard.push([...changes]));
    try {
      await inTransaction(t.database, async (trx) => {
        await trx.selectFrom('users').select('id').limit(1).execute();
      });
      expect(heard).toEqual([]);
      recordChange(t.database.db, { kind: 'tip', thingId: 7 });
      expect(heard).toEqual([[{ kind: 'tip', thingId: 7 }]]);
      await expect(
        t.database.db.transaction().execute(async (trx) => recordChange(trx, { kind: 'tip', thingId: 8 })),
      ).rejects.toThrow(/inside inTransaction/);
      expect(heard).toHaveLength(1);
    } finally {
      stop();
    }
  });
});
