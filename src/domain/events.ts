/**
 * Partner events (api-v2.md "Events", DECISIONS.md "Partners, pending things, webhooks", notes
 * §15): the catalog — the kinds a partner may subscribe to and the form parameters each one
 * sends — and the outbox: an event is a webhook_deliveries row written in the transaction of what
 * caused it, so it is never lost and never sent for something rolled back. Delivering the rows
 * (signing, the URL guard, retries) is src/webhooks/.
 */
import { randomBytes } from 'node:crypto';
import type { Executor } from '../db/transaction.ts';
import { findPartnerByNamespace, listPartners, type PartnerRecord } from '../db/repositories/partners.ts';
import { countPending, insertDelivery } from '../db/repositories/webhooks.ts';
import { ValidationError } from './errors.ts';
import { claimUrl, parseIdentity } from './identities.ts';
import type { Services } from './services.ts';

/** Every event kind, with what it means and its parameters in the order they are sent. */
export const EVENT_CATALOG = {
  pendingclickcreate: {
    description: 'an unclaimed (pending) thing received a tip',
    parameters: ['_event', 'thing_id', 'thing_owner_id', 'thing_clicks_total', 'tipper_username', 'claim_url'],
  },
} as const;

export type EventKind = keyof typeof EVENT_CATALOG;

export const EVENT_KINDS = Object.keys(EVENT_CATALOG) as EventKind[];

/**
 * Parses an event selection: kinds separated by commas or spaces, each from the catalog, at least
 * one; duplicates dropped.
 * @throws ValidationError naming the unknown kind.
 */
export function parseEventList(raw: string): EventKind[] {
  const kinds = [...new Set(raw.split(/[\s,]+/).filter((k) => k !== ''))];
  if (kinds.length === 0) throw new ValidationError(`events: name at least one of ${EVENT_KINDS.join(', ')}`, 'api');
  for (const k of kinds) {
    if (!(k in EVENT_CATALOG))
      throw new ValidationError(`events: unknown event "${k}" (known: ${EVENT_KINDS.join(', ')})`, 'api');
  }
  return kinds as EventKind[];
}

/** The form parameters of `pendingclickcreate` (all strings, as they are form-encoded). */
export function pendingClickCreate(p: {
  thingId: number;
  identity: string;
  /** total tips on the thing after this one */
  tipsTotal: number;
  /** empty when the tipper hides their tips */
  tipperUsername: string;
  claimUrl: string;
}): Record<string, string> {
  return {
    _event: 'pendingclickcreate',
    thing_id: String(p.thingId),
    thing_owner_id: p.identity,
    thing_clicks_total: String(p.tipsTotal),
    tipper_username: p.tipperUsername,
    claim_url: p.claimUrl,
  };
}

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

/** Webhook deliveries waiting in the outbox, over all partners (`GET /metrics`: tipjar_webhook_outbox_pending). */
export async function countPendingWebhooks(s: Services): Promise<number> {
  return countPending(s.database.db);
}
