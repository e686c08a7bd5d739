/**
 * What the outboxes (webhook_deliveries, mail_outbox) share: claiming due rows for one worker with
 * a lease. Both tables have `status` ('pending' until delivered/sent or failed), `next_attempt_at`,
 * `claimed_by` and `claimed_until` (Unix seconds).
 */
import type { Engine } from '../connect.ts';
import type { Executor } from '../transaction.ts';

export type OutboxTable = 'webhook_deliveries' | 'mail_outbox';

/**
 * Claims up to `limit` due rows of `table` for `worker` until `now + leaseSeconds`, in one
 * statement: due = pending, next_attempt_at ≤ now, and never claimed or the claim has expired. The
 * conditions are repeated on the rows being updated, so two instances racing for one row cannot
 * both get it (PostgreSQL re-checks them on the locked row; SQLite has one writer at a time); on
 * PostgreSQL the candidates are also picked with SKIP LOCKED so instances do not queue on each
 * other.
 * @returns the ids claimed.
 */
export async function claimDueRows(
  ex: Executor,
  engine: Engine,
  table: OutboxTable,
  claim: { worker: string; now: number; leaseSeconds: number; limit: number },
): Promise<number[]> {
  const { worker, now, leaseSeconds, limit } = claim;
  let candidates = ex
    .selectFrom(table)
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit);
  if (engine === 'postgres') candidates = candidates.forUpdate().skipLocked();
  const rows = await ex
    .updateTable(table)
    .set({ claimed_by: worker, claimed_until: now + leaseSeconds })
    .where('id', 'in', candidates)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
