/**
 * inTransaction (src/db/transaction.ts): concurrent transactions — group-committed on SQLite —
 * each commit or roll back alone: a failing one leaves no row and does not take the others down,
 * and every caller gets its own result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { uniqueName } from '../helpers/factories.ts';

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
});
