/**
 * The event catalog (api-v2.md "Events", DECISIONS.md "Partners, pending things, webhooks",
 * notes §15): the kinds a partner may subscribe to and the form parameters each one sends.
 */
import { ValidationError } from '../domain/errors.ts';

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
