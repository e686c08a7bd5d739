/**
 * Tips asked at the same moment (db/repositories/tips.ts tipAtOnce, db/batched.ts): on PostgreSQL
 * the tips of one turn of the event loop are written by one call of `tips_at_once`, and each still
 * gets the outcome it would get alone — tipped, tip_once, tip_owner, no_means, not found, a pending
 * thing through its transaction — with the thing's counters equal to its tip rows; a tip that
 * fails for a reason of its own fails alone. On SQLite the same outcomes come from its group commit.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unboundedHashing } from '../../src/auth/passwords.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { DomainError, NoMeansError, NotFoundError, TipOnceError, TipOwnerError } from '../../src/domain/errors.ts';
import type { ThingId } from '../../src/domain/records.ts';
import type { Services } from '../../src/domain/services.ts';
import { tipThing } from '../../src/domain/tips.ts';
import { createTestDatabase, ENGINES, recordPoolQueries, type TestDatabase } from '../helpers/db.ts';
import { buildThing, buildUser, ownedThing, principalOf, type TestUser } from '../helpers/factories.ts';

describe.each(ENGINES)('tips asked together on %s', (engine) => {
  let db: TestDatabase;
  let s: Services;
  let owner: TestUser;
  /** SQL texts sent to the pool of the database's own handle (PostgreSQL only). */
  let sent: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    s = { database: db.database, clock: systemClock, siteUrl: 'http://tipjar.test', passwordHashing: unboundedHashing };
    owner = await buildUser(s);
    sent = recordPoolQueries(db.database);
  });
  afterAll(async () => db.drop());

  const tip = (who: TestUser, id: number) => tipThing(s, principalOf(who.user), id as ThingId);
  /** `tipped <tips after>`, the name of the domain error, or `error` for any other failure. */
  const outcome = (r: PromiseSettledResult<{ tips: number }>) => {
    if (r.status === 'fulfilled') return `tipped ${r.value.tips}`;
    return r.reason instanceof DomainError ? r.reason.constructor.name : 'error';
  };

  /** A thing's tip counter and its tip rows. */
  async function counted(id: number) {
    const thing = await db.database.db
      .selectFrom('things')
      .select('tips')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const rows = await db.database.db
      .selectFrom('tips')
      .select(sql<number>`count(*)`.as('n'))
      .where('thing_id', '=', id)
      .executeTakeFirstOrThrow();
    return { tips: Number(thing.tips), rows: Number(rows.n) };
  }

  it('each tip of one moment gets its own outcome; PostgreSQL writes them in one call', async () => {
    const [first, second, third] = [await buildUser(s), await buildUser(s), await buildUser(s)];
    const poor = await buildUser(s, { funded: false });
    const [a, b, c] = [await buildThing(s, owner), await buildThing(s, owner), await buildThing(s, owner)];
    const pending = await ownedThing(s, { identity: 'email:0123456789abcdef0123456789abcdef' });
    sent.length = 0;
    const results = await Promise.allSettled([
      tip(first, c),
      tip(first, a),
      tip(second, b),
      tip(owner, a),
      tip(poor, b),
      tip(third, 987654321),
      tip(third, a),
      tip(second, pending),
    ]);
    expect(results.map(outcome)).toEqual([
      'tipped 1',
      expect.stringMatching(/^tipped [12]$/),
      'tipped 1',
      TipOwnerError.name,
      NoMeansError.name,
      NotFoundError.name,
      expect.stringMatching(/^tipped [12]$/),
      'tipped 1',
    ]);
    expect(new Set([outcome(results[1]!), outcome(results[6]!)])).toEqual(new Set(['tipped 1', 'tipped 2']));
    for (const id of [a, b, c, pending])
      expect(await counted(id)).toEqual({ tips: id === a ? 2 : 1, rows: id === a ? 2 : 1 });
    if (engine === 'postgres') expect(sent.filter((q) => q.includes('tips_at_once'))).toHaveLength(1);
  });

  it('the same tip twice at one moment: one is written, the other is tip_once', async () => {
    const tipper = await buildUser(s);
    const id = await buildThing(s, owner);
    const results = await Promise.allSettled([tip(tipper, id), tip(tipper, id), tip(tipper, id)]);
    expect(results.map(outcome).sort()).toEqual([TipOnceError.name, TipOnceError.name, 'tipped 1']);
    expect(await counted(id)).toEqual({ tips: 1, rows: 1 });
  });

  it.runIf(engine === 'postgres')(
    'a tip failing for a reason of its own fails alone; the others are written',
    async () => {
      const [tipper, other] = [await buildUser(s), await buildUser(s)];
      const [doomed, fine, alsoFine] = [
        await buildThing(s, owner),
        await buildThing(s, owner),
        await buildThing(s, owner),
      ];
      await sql
        .raw(
          `create function refuse_doomed_tip() returns trigger language plpgsql as $$
         begin if new.thing_id = ${doomed} then raise exception 'refused by the test'; end if; return new; end $$`,
        )
        .execute(db.database.db);
      await sql`create trigger refuse_doomed_tip before insert on tips for each row execute function refuse_doomed_tip()`.execute(
        db.database.db,
      );
      try {
        sent.length = 0;
        const results = await Promise.allSettled([tip(tipper, fine), tip(other, doomed), tip(other, alsoFine)]);
        expect(results.map(outcome)).toEqual(['tipped 1', 'error', 'tipped 1']);
        expect(((results[1] as PromiseRejectedResult).reason as Error).message).toContain('refused by the test');
        expect(await counted(doomed)).toEqual({ tips: 0, rows: 0 });
        expect(await counted(fine)).toEqual({ tips: 1, rows: 1 });
        // The batch of three, then each tip alone.
        expect(sent.filter((q) => q.includes('tips_at_once'))).toHaveLength(4);
      } finally {
        await sql`drop trigger refuse_doomed_tip on tips`.execute(db.database.db);
      }
    },
  );
});
