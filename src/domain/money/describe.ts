/** Operator-facing lines describing settlement and renewal runs (CLI output, scheduler log). */
import type { Services } from '../services.ts';
import type { SettlementReport } from './settlement.ts';
import type { RenewalReport } from '../subscriptions.ts';
import { findUsersByIds } from '../../db/repositories/users.ts';

/** One line describing a settlement run (also used by the scheduler's log). */
export function describeSettlement(r: SettlementReport): string {
  if (r.status === 'busy')
    return `${r.period} is being settled by another run (${r.claimedBy ?? '?'}, claim until ${r.claimedUntil ?? '?'}); nothing done`;
  if (r.alreadySettled) return `${r.period} was already settled; nothing to do`;
  return `settled ${r.period}: ${r.tippersSettled} tippers settled now, ${r.tippersSkipped} already settled, ${r.centsMoved} cents moved, ${r.receiptsQueued} receipts queued`;
}

/** Lines describing a renewal run: a summary, then one line per skipped subscription. */
export async function describeRenewal(s: Services, r: RenewalReport): Promise<string[]> {
  const skipped = r.renewals.filter((x) => x.outcome !== 'tipped');
  const users = await findUsersByIds(
    s.database.db,
    skipped.map((x) => x.userId),
  );
  return [
    `renewed subscriptions for ${r.period}: ${r.tipped} tipped, ${r.skipped} skipped`,
    ...skipped.map(
      (x) => `skipped: user ${users.get(x.userId)?.username ?? x.userId} → thing ${x.thingId}: ${x.outcome}`,
    ),
  ];
}
