/**
 * Writing events to the outbox (webhook_deliveries) inside the transaction of what caused them,
 * so an event is never lost and never sent for something that was rolled back.
 */
import { randomBytes } from 'node:crypto';
import type { Executor } from '../db/transaction.ts';
import { findPartnerByNamespace, listPartners, type PartnerRecord } from '../db/repositories/partners.ts';
import { insertDelivery } from '../db/repositories/webhooks.ts';
import { claimUrl, parseIdentity } from '../domain/identities.ts';
import { pendingClickCreate, type EventKind } from './events.ts';

/** A new public message id, sent as `webhook-id`: `msg_` + 32 hex digits. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}

/**
 * The partners that receive `event` for things of `identity`: for `partner:<ns>:…` the partner of
 * that namespace; for the global `email:` and `twitter:` identities every partner; in both cases
 * only partners subscribed to the event.
 */
export async function partnersFor(ex: Executor, identity: string, event: EventKind): Promise<PartnerRecord[]> {
  const id = parseIdentity(identity);
  if (!id) return [];
  const candidates =
    id.kind === 'partner'
      ? [await findPartnerByNamespace(ex, id.namespace)].filter((p) => p !== undefined)
      : await listPartners(ex);
  return candidates.filter((p) => p.events.includes(event));
}

/**
 * Writes one `pendingclickcreate` delivery per receiving partner, inside the tip's transaction.
 * @param tip.tipsTotal total tips on the thing after this one.
 * @param tip.tipperUsername the tipper's username, or '' when they hide their tips.
 * @returns the number of deliveries written.
 */
export async function enqueuePendingClick(
  trx: Executor,
  siteUrl: string,
  tip: { thingId: number; identity: string; tipsTotal: number; tipperUsername: string; now: number },
): Promise<number> {
  const partners = await partnersFor(trx, tip.identity, 'pendingclickcreate');
  const payload = pendingClickCreate({
    thingId: tip.thingId,
    identity: tip.identity,
    tipsTotal: tip.tipsTotal,
    tipperUsername: tip.tipperUsername,
    claimUrl: claimUrl(siteUrl, tip.identity),
  });
  for (const p of partners) {
    await insertDelivery(trx, {
      messageId: newMessageId(),
      partnerId: p.id,
      event: 'pendingclickcreate',
      payload,
      now: tip.now,
    });
  }
  return partners.length;
}
