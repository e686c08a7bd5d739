/**
 * Partners (community partners, DECISIONS.md "Partners, pending things, webhooks") and the
 * identities users have verified through them.
 */
import { recordChange, type Executor } from '../transaction.ts';

/** A partner as the domain sees it. */
export interface PartnerRecord {
  id: number;
  namespace: string;
  /** oauth_clients.id of the partner's OAuth client (access_tokens.client_id points there too) */
  clientRowId: number;
  /** the public `client_id` of that client */
  clientId: string;
  webhookUrl: string;
  events: string[];
  /** Standard Webhooks secret, `whsec_…` */
  signingSecret: string;
  allowPrivateWebhook: boolean;
  /** the operator trusts the partner to assign global identities (`email:`, `twitter:`) to its users */
  trusted: boolean;
  /** Unix seconds */
  createdAt: number;
  /** Unix seconds, 0 when never updated */
  updatedAt: number;
}

function selectPartners(ex: Executor) {
  return ex
    .selectFrom('partners')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'partners.client_id')
    .select([
      'partners.id',
      'partners.namespace',
      'partners.client_id as client_row_id',
      'oauth_clients.client_id as public_client_id',
      'partners.webhook_url',
      'partners.events',
      'partners.signing_secret',
      'partners.allow_private_webhook',
      'partners.trusted',
      'partners.created_at',
      'partners.updated_at',
    ]);
}

type PartnerRow = Awaited<ReturnType<ReturnType<typeof selectPartners>['executeTakeFirstOrThrow']>>;

function toPartner(r: PartnerRow): PartnerRecord {
  return {
    id: r.id,
    namespace: r.namespace,
    clientRowId: r.client_row_id,
    clientId: r.public_client_id,
    webhookUrl: r.webhook_url,
    events: r.events ? r.events.split(',') : [],
    signingSecret: r.signing_secret,
    allowPrivateWebhook: r.allow_private_webhook === 1,
    trusted: r.trusted === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Inserts a partner. @throws a unique violation when the namespace is taken. */
export async function insertPartner(
  ex: Executor,
  p: {
    namespace: string;
    clientRowId: number;
    webhookUrl: string;
    events: string[];
    signingSecret: string;
    allowPrivateWebhook: boolean;
    now: number;
  },
): Promise<number> {
  const r = await ex
    .insertInto('partners')
    .values({
      namespace: p.namespace,
      client_id: p.clientRowId,
      webhook_url: p.webhookUrl,
      events: p.events.join(','),
      signing_secret: p.signingSecret,
      allow_private_webhook: p.allowPrivateWebhook ? 1 : 0,
      created_at: p.now,
      updated_at: 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function findPartnerById(ex: Executor, id: number): Promise<PartnerRecord | undefined> {
  const r = await selectPartners(ex).where('partners.id', '=', id).executeTakeFirst();
  return r && toPartner(r);
}

export async function findPartnerByNamespace(ex: Executor, namespace: string): Promise<PartnerRecord | undefined> {
  const r = await selectPartners(ex).where('partners.namespace', '=', namespace).executeTakeFirst();
  return r && toPartner(r);
}

/** The partner whose OAuth client has this oauth_clients.id (a token's client_id). */
export async function findPartnerByClientRowId(ex: Executor, clientRowId: number): Promise<PartnerRecord | undefined> {
  const r = await selectPartners(ex).where('partners.client_id', '=', clientRowId).executeTakeFirst();
  return r && toPartner(r);
}

/** Every partner, by namespace. */
export async function listPartners(ex: Executor): Promise<PartnerRecord[]> {
  return (await selectPartners(ex).orderBy('partners.namespace').execute()).map(toPartner);
}

/** Applies changes (only the given fields) and sets updated_at. */
export async function updatePartnerRow(
  ex: Executor,
  id: number,
  changes: {
    webhookUrl?: string;
    events?: string[];
    signingSecret?: string;
    allowPrivateWebhook?: boolean;
    trusted?: boolean;
  },
  now: number,
): Promise<void> {
  await ex
    .updateTable('partners')
    .set({
      updated_at: now,
      ...(changes.webhookUrl !== undefined ? { webhook_url: changes.webhookUrl } : {}),
      ...(changes.events !== undefined ? { events: changes.events.join(',') } : {}),
      ...(changes.signingSecret !== undefined ? { signing_secret: changes.signingSecret } : {}),
      ...(changes.allowPrivateWebhook !== undefined
        ? { allow_private_webhook: changes.allowPrivateWebhook ? 1 : 0 }
        : {}),
      ...(changes.trusted !== undefined ? { trusted: changes.trusted ? 1 : 0 } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Deletes a partner with its outbox rows and their attempts; identities it verified stay (they
 * belong to users) with partner_id cleared.
 */
export async function deletePartnerRow(ex: Executor, id: number): Promise<void> {
  await ex
    .deleteFrom('webhook_attempts')
    .where('delivery_id', 'in', ex.selectFrom('webhook_deliveries').select('id').where('partner_id', '=', id))
    .execute();
  await ex.deleteFrom('webhook_deliveries').where('partner_id', '=', id).execute();
  await ex.updateTable('identities').set({ partner_id: null }).where('partner_id', '=', id).execute();
  await ex.deleteFrom('partners').where('id', '=', id).execute();
}

/** The user who verified `identity`, or undefined when nobody has. */
export async function findIdentityOwner(
  ex: Executor,
  identity: string,
): Promise<{ userId: number; partnerId: number | null; claimedAt: number } | undefined> {
  const r = await ex
    .selectFrom('identities')
    .select(['user_id', 'partner_id', 'claimed_at'])
    .where('identity', '=', identity)
    .executeTakeFirst();
  return r && { userId: r.user_id, partnerId: r.partner_id, claimedAt: r.claimed_at };
}

/**
 * Records that `userId` verified `identity` through `partnerId` (null: the website's claim page).
 * @returns false when the identity is already recorded (for this or another user): the primary
 *   key makes concurrent claims of one identity end with exactly one row.
 */
export async function insertIdentity(
  ex: Executor,
  r: { identity: string; userId: number; partnerId: number | null; now: number },
): Promise<boolean> {
  const inserted = await ex
    .insertInto('identities')
    .values({ identity: r.identity, user_id: r.userId, partner_id: r.partnerId, claimed_at: r.now })
    .onConflict((oc) => oc.column('identity').doNothing())
    .returning('identity')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Gives every pending thing of `identity` to `userId` (owner_user_id set, owner_identity cleared).
 * @returns the ids of the things claimed.
 */
export async function claimPendingThings(
  ex: Executor,
  identity: string,
  userId: number,
  now: number,
): Promise<number[]> {
  const rows = await ex
    .updateTable('things')
    .set({ owner_user_id: userId, owner_identity: null, updated_at: now })
    .where('owner_identity', '=', identity)
    .returning('id')
    .execute();
  if (rows.length) recordChange(ex, { kind: 'things', ids: rows.map((r) => r.id), matching: true });
  return rows.map((r) => r.id);
}

/** Pending things of an identity (not deleted), newest first, at most `limit`. */
export async function listPendingThings(
  ex: Executor,
  identity: string,
  limit: number,
): Promise<{ id: number; url: string; title: string; tips: number }[]> {
  return ex
    .selectFrom('things')
    .select(['id', 'url', 'title', 'tips'])
    .where('owner_identity', '=', identity)
    .where('deleted_at', 'is', null)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
