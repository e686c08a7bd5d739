/**
 * `node --import tsx bench/receipts.ts [sqlite|postgres]` — how long the last stage of a
 * settlement takes to queue the monthly receipts (src/domain/money/receipts.ts) of a large
 * period: RECEIPT_USERS users (all verified, every one a tipper and an owner), RECEIPT_THINGS
 * things and RECEIPT_TIPS tips of one period, with one settlement transaction per tipper written
 * directly. Only `queueReceipts` is timed (one transaction per batch of RECEIPT_BATCH users, as the
 * settlement runs it), then timed again to show that a second run queues nothing. A fresh
 * test database (PostgreSQL: TEST_DATABASE_URL) is made and dropped.
 */
import { createTestServices } from '../test/helpers/db.ts';
import { fixedClock } from '../src/domain/clock.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { postTransaction } from '../src/db/repositories/ledger.ts';
import { queueReceipts, RECEIPT_BATCH } from '../src/domain/money/receipts.ts';

const engine = process.argv[2] === 'postgres' ? 'postgres' : 'sqlite';
const USERS = Number(process.env.RECEIPT_USERS ?? 20_000);
const THINGS = Number(process.env.RECEIPT_THINGS ?? 50_000);
const TIPS = Number(process.env.RECEIPT_TIPS ?? 100_000);
const PERIOD = '2026-03';

const clock = fixedClock(Date.UTC(2026, 3, 2) / 1000);
const { s, drop } = await createTestServices(engine, { clock });
const db = s.database.db;
const now = clock.now();
try {
  const chunk = <T>(rows: T[], n = 1000) =>
    Array.from({ length: Math.ceil(rows.length / n) }, (_, i) => rows.slice(i * n, (i + 1) * n));
  const users = Array.from({ length: USERS }, (_, i) => ({
    username: `r${i}`,
    username_key: `r${i}`,
    email: `r${i}@example.com`,
    password_hash: null,
    registered_at: now,
    email_verified_at: now,
    budget_cents: 500,
    balance_cents: 1000,
  }));
  for (const rows of chunk(users)) await db.insertInto('users').values(rows).execute();
  const ids = (await db.selectFrom('users').select('id').orderBy('id').execute()).map((r) => r.id);
  const things = Array.from({ length: THINGS }, (_, i) => ({
    url: `https://example.org/${i}`,
    url_key: `example.org/${i}`,
    title: `Thing ${i}`,
    category: 'other',
    language: 'en',
    owner_user_id: ids[i % ids.length]!,
    created_at: now,
  }));
  for (const rows of chunk(things)) await db.insertInto('things').values(rows).execute();
  const thingIds = (await db.selectFrom('things').select('id').orderBy('id').execute()).map((r) => r.id);
  const tips = Array.from({ length: TIPS }, (_, k) => ({
    thing_id: thingIds[(k * 7919) % thingIds.length]!,
    tipper_id: ids[k % ids.length]!,
    period: PERIOD,
    created_at: now - 864_000 + k,
  }));
  for (const rows of chunk(tips))
    await db
      .insertInto('tips')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .execute();
  const settled = await db
    .selectFrom('tips')
    .innerJoin('things', 'things.id', 'tips.thing_id')
    .select(['tips.id', 'tips.tipper_id', 'things.owner_user_id'])
    .orderBy('tips.tipper_id')
    .orderBy('tips.id')
    .execute();
  const byTipper = new Map<number, typeof settled>();
  for (const t of settled) byTipper.set(t.tipper_id, [...(byTipper.get(t.tipper_id) ?? []), t]);
  await inTransaction(s.database, async (trx) => {
    for (const [tipper, list] of byTipper) {
      const share = Math.floor(500 / list.length);
      await postTransaction(trx, { kind: 'settlement', reference: `settle:${PERIOD}:${tipper}`, period: PERIOD, now }, [
        { account: { kind: 'balance', userId: tipper }, amountCents: -share * list.length },
        ...list.map((t) => ({
          account: { kind: 'earnings' as const, userId: t.owner_user_id! },
          amountCents: share,
          tipId: t.id,
        })),
      ]);
    }
  });
  const started = performance.now();
  const queued = await queueReceipts(s, PERIOD);
  const seconds = (performance.now() - started) / 1000;
  const again = performance.now();
  const requeued = await queueReceipts(s, PERIOD);
  console.log(
    `${engine}: ${queued} receipts (${USERS} users, ${THINGS} things, ${settled.length} tips) queued in ${seconds.toFixed(2)} s, ` +
      `${Math.ceil(USERS / RECEIPT_BATCH)} transactions of ≤ ${RECEIPT_BATCH} users; run again: ${requeued} queued in ${((performance.now() - again) / 1000).toFixed(2)} s`,
  );
} finally {
  await drop();
}
