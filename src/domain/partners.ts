/**
 * Community partners (api-v2.md "Events" and "Partner verification", DECISIONS.md "Partners,
 * pending things, webhooks", notes §15): operator-managed partners with a namespace, an OAuth
 * client, a webhook URL, their events and a signing secret; verification of identities, which
 * hands every pending thing of the identity, its tips and its held shares to the user.
 */
import { createHash } from 'node:crypto';
import { createClient, deleteClient } from '../auth/oauth/clients.ts';
import { inTransaction, isUniqueViolation } from '../db/transaction.ts';
import {
  claimPendingThings,
  deletePartnerRow,
  findIdentityOwner,
  findPartnerByClientRowId,
  findPartnerByNamespace,
  insertIdentity,
  insertPartner,
  listPartners as listPartnerRows,
  listPendingThings,
  updatePartnerRow,
  type PartnerRecord,
} from '../db/repositories/partners.ts';
import { accountBalance, postTransaction } from '../db/repositories/ledger.ts';
import { assignActivitiesToOwner } from '../db/repositories/activities.ts';
import {
  countPending,
  findDelivery,
  listAttempts,
  listDeliveries,
  requeueDelivery,
  type AttemptRecord,
  type DeliveryRecord,
} from '../db/repositories/webhooks.ts';
import { NotFoundError, UnauthorizedError, ValidationError } from './errors.ts';
import { NAMESPACE, parseIdentity } from './identities.ts';
import type { Principal } from './records.ts';
import type { Services } from './services.ts';
import { parseEventList } from '../webhooks/events.ts';
import { resolveTarget, UnsafeUrlError, type Resolver } from '../webhooks/guard.ts';
import { newSigningSecret } from '../webhooks/signing.ts';
import { MAX_URL_LENGTH } from './urls.ts';

export type { PartnerRecord };

/** A namespace as given: lower-case letters, digits, `-`, `_`. @throws ValidationError */
export function checkNamespace(raw: unknown): string {
  if (typeof raw !== 'string' || !NAMESPACE.test(raw)) {
    throw new ValidationError(
      'namespace: 1–63 lower-case letters, digits, "-" or "_", starting with a letter or digit',
      'api',
    );
  }
  return raw;
}

/**
 * Checks a webhook URL with the URL guard: absolute http(s), at most 2048 characters, and —
 * unless `allowPrivate` — a host whose every address is public.
 * @throws ValidationError with the guard's reason.
 */
export async function checkWebhookUrl(raw: unknown, allowPrivate: boolean, resolver?: Resolver): Promise<string> {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL_LENGTH)
    throw new ValidationError('webhook-url: an absolute http or https URL is required', 'api');
  try {
    const target = await resolveTarget(raw, { allowPrivate, resolver });
    return target.url.href;
  } catch (err) {
    if (err instanceof UnsafeUrlError) {
      throw new ValidationError(
        `webhook-url: ${err.message}${allowPrivate ? '' : ' (an operator may allow it with --allow-private-webhook)'}`,
        'api',
      );
    }
    throw err;
  }
}

/**
 * Creates a partner with its OAuth client (named "Partner <namespace>", callback domain given or
 * the webhook URL's host) and a new signing secret.
 * @returns the partner and, in clear and only here, the client secret and signing secret.
 * @throws ValidationError (namespace taken or malformed, URL refused, unknown event).
 */
export async function createPartner(
  s: Services,
  input: {
    namespace: unknown;
    webhookUrl: unknown;
    events: string;
    allowPrivateWebhook?: boolean;
    callbackDomain?: string;
    resolver?: Resolver;
  },
): Promise<{ partner: PartnerRecord; clientSecret: string; signingSecret: string }> {
  const namespace = checkNamespace(input.namespace);
  const allowPrivate = input.allowPrivateWebhook === true;
  const webhookUrl = await checkWebhookUrl(input.webhookUrl, allowPrivate, input.resolver);
  const events = parseEventList(input.events);
  if (await findPartnerByNamespace(s.database.db, namespace))
    throw new ValidationError(`namespace "${namespace}" is taken`, 'api');
  const client = await createClient(s, {
    name: `Partner ${namespace}`,
    callbackDomain: input.callbackDomain ?? new URL(webhookUrl).hostname,
    ownerUserId: null,
  });
  const signingSecret = newSigningSecret();
  try {
    await insertPartner(s.database.db, {
      namespace,
      clientRowId: client.client.id,
      webhookUrl,
      events,
      signingSecret,
      allowPrivateWebhook: allowPrivate,
      now: s.clock.now(),
    });
  } catch (err) {
    await deleteClient(s, client.clientId);
    if (isUniqueViolation(err)) throw new ValidationError(`namespace "${namespace}" is taken`, 'api');
    throw err;
  }
  const partner = (await findPartnerByNamespace(s.database.db, namespace))!;
  return { partner, clientSecret: client.clientSecret, signingSecret };
}

/** Every partner, by namespace. */
export async function listPartners(s: Services): Promise<PartnerRecord[]> {
  return listPartnerRows(s.database.db);
}

/** The partner of a namespace. @throws NotFoundError */
export async function getPartner(s: Services, namespace: string): Promise<PartnerRecord> {
  const p = await findPartnerByNamespace(s.database.db, namespace);
  if (!p) throw new NotFoundError(`No partner with namespace "${namespace}"`);
  return p;
}

/**
 * Changes a partner's webhook URL, events, private-address allowance, or rotates its signing
 * secret. The URL is checked again with the resulting allowance.
 * @returns the partner, and the new signing secret when rotated (shown once).
 * @throws NotFoundError, ValidationError
 */
export async function updatePartner(
  s: Services,
  namespace: string,
  changes: {
    webhookUrl?: string;
    events?: string;
    allowPrivateWebhook?: boolean;
    rotateSecret?: boolean;
    resolver?: Resolver;
  },
): Promise<{ partner: PartnerRecord; signingSecret?: string }> {
  const p = await getPartner(s, namespace);
  const allowPrivate = changes.allowPrivateWebhook ?? p.allowPrivateWebhook;
  const webhookUrl =
    changes.webhookUrl !== undefined || allowPrivate !== p.allowPrivateWebhook
      ? await checkWebhookUrl(changes.webhookUrl ?? p.webhookUrl, allowPrivate, changes.resolver)
      : undefined;
  const events = changes.events !== undefined ? parseEventList(changes.events) : undefined;
  const signingSecret = changes.rotateSecret ? newSigningSecret() : undefined;
  await updatePartnerRow(
    s.database.db,
    p.id,
    { webhookUrl, events, signingSecret, allowPrivateWebhook: changes.allowPrivateWebhook },
    s.clock.now(),
  );
  return { partner: await getPartner(s, namespace), signingSecret };
}

/**
 * Deletes a partner: its outbox rows and attempt log go, its OAuth client is deleted (its tokens
 * revoked); identities it verified stay with their users; pending things stay pending.
 * @throws NotFoundError
 */
export async function deletePartner(s: Services, namespace: string): Promise<void> {
  const p = await getPartner(s, namespace);
  await inTransaction(s.database, (trx) => deletePartnerRow(trx, p.id));
  await deleteClient(s, p.clientId).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
  });
}

/**
 * `POST /user/verify` and `POST /users/:username/verify` (api-v2.md "Partner verification",
 * DECISIONS.md): the caller's token must have been issued to a partner's OAuth client; for the
 * second form the token's user must be `:username`. The identity must be valid and the partner
 * may verify it: `partner:<ns>:…` only for the partner of namespace `ns`, the global `email:` and
 * `twitter:user:id:` identities for any partner. An identity already verified by another user
 * cannot be taken over. On success, in one transaction: the identities row, every pending thing
 * of the identity owned by the user (tips kept, the incoming activities re-pointed), and the
 * identity's held shares (`held:<identity>`) moved to the user's earnings. Verifying an identity
 * the user already holds is a success that changes nothing more (idempotent).
 * @returns the identity and the ids of the things claimed now.
 * @throws UnauthorizedError (401 `unauthorized`) in every refused case, with the reason.
 */
export async function verifyIdentity(
  s: Services,
  principal: Principal,
  rawIdentity: unknown,
  username?: string,
): Promise<{ identity: string; claimedThingIds: number[] }> {
  if (principal.clientId === null)
    throw new UnauthorizedError('Only a partner application may verify identities', 'verification');
  const partner = await findPartnerByClientRowId(s.database.db, principal.clientId);
  if (!partner) throw new UnauthorizedError('Only a partner application may verify identities', 'verification');
  if (username !== undefined && username.toLowerCase() !== principal.username.toLowerCase()) {
    throw new UnauthorizedError(`The access token does not belong to ${username}`, 'verification');
  }
  const id = parseIdentity(rawIdentity);
  if (!id)
    throw new UnauthorizedError(
      'Invalid identity: expected email:<md5>, twitter:user:id:<digits> or partner:<namespace>:<id>',
      'verification',
    );
  if (id.kind === 'partner' && id.namespace !== partner.namespace) {
    throw new UnauthorizedError(
      `Partner "${partner.namespace}" may not verify identities of namespace "${id.namespace}"`,
      'verification',
    );
  }
  const claimed = await claimIdentity(s, principal.userId, id.identity, partner.id);
  if (claimed === null)
    throw new UnauthorizedError(
      `The identity ${id.identity} has already been verified by another account`,
      'verification',
    );
  return { identity: id.identity, claimedThingIds: claimed };
}

/**
 * Records that `userId` owns `identity` (verified by partner `partnerId`, or by the website's
 * claim page when null) and, in the same transaction, gives the user every pending thing of the
 * identity (tips kept, their incoming activities re-pointed) and moves the identity's held shares
 * (`held:<identity>`) to the user's earnings. The caller has checked the user may claim it.
 * @returns the ids of the things claimed now, or null when another user holds the identity
 *   (nothing changed). Of concurrent claims exactly one gets a list (identity is a primary key).
 */
export async function claimIdentity(
  s: Services,
  userId: number,
  identity: string,
  partnerId: number | null,
): Promise<number[] | null> {
  return inTransaction(s.database, async (trx) => {
    const now = s.clock.now();
    if (!(await insertIdentity(trx, { identity, userId, partnerId, now }))) {
      const owner = await findIdentityOwner(trx, identity);
      if (owner?.userId !== userId) return null;
    }
    const thingIds = await claimPendingThings(trx, identity, userId, now);
    await assignActivitiesToOwner(trx, thingIds, userId);
    const held = await accountBalance(trx, { kind: 'held', identity });
    if (held !== 0) {
      await postTransaction(
        trx,
        {
          kind: 'claim',
          reference: `claim:${identity}:${now}:${userId}`,
          description: `held shares of ${identity} claimed by user ${userId}`,
          now,
        },
        [
          { account: { kind: 'held', identity }, amountCents: -held },
          { account: { kind: 'earnings', userId }, amountCents: held },
        ],
      );
    }
    return thingIds;
  });
}

/** A pending thing as the claim page lists it. */
export interface PendingThing {
  id: number;
  url: string;
  title: string;
  tips: number;
}

/**
 * What the website's claim page shows for an identity: its pending things (newest first, at most
 * `limit`) and who has verified it, if anyone.
 */
export async function getIdentityClaim(
  s: Services,
  identity: string,
  limit: number,
): Promise<{ pendingThings: PendingThing[]; holder?: { userId: number } }> {
  const [pendingThings, holder] = await Promise.all([
    listPendingThings(s.database.db, identity, limit),
    findIdentityOwner(s.database.db, identity),
  ]);
  return { pendingThings, ...(holder ? { holder: { userId: holder.userId } } : {}) };
}

/** Webhook deliveries waiting in the outbox, over all partners (`GET /metrics`). */
export async function countPendingWebhooks(s: Services): Promise<number> {
  return countPending(s.database.db);
}

/** True when `email` (trimmed, lower-cased) has the MD5 of an `email:<md5>` identity. */
export function emailMatchesIdentity(email: string, identity: string): boolean {
  const m = /^email:([0-9a-f]{32})$/.exec(identity);
  return (
    m !== null && email.trim() !== '' && createHash('md5').update(email.trim().toLowerCase()).digest('hex') === m[1]
  );
}

/** One delivery with its attempts, for `tipjar webhooks log`. */
export interface DeliveryLog extends DeliveryRecord {
  attemptLog: AttemptRecord[];
}

/** A partner's latest deliveries (newest first) with every attempt of each. @throws NotFoundError */
export async function webhookLog(s: Services, namespace: string, limit = 50): Promise<DeliveryLog[]> {
  const p = await getPartner(s, namespace);
  const deliveries = await listDeliveries(s.database.db, p.id, limit);
  const attempts = await listAttempts(
    s.database.db,
    deliveries.map((d) => d.id),
  );
  return deliveries.map((d) => ({ ...d, attemptLog: attempts.filter((a) => a.deliveryId === d.id) }));
}

/**
 * Queues a delivery (any status) for an immediate attempt with its original `webhook-id`.
 * @throws NotFoundError
 */
export async function redeliver(s: Services, deliveryId: number): Promise<DeliveryRecord> {
  if (
    !Number.isSafeInteger(deliveryId) ||
    deliveryId <= 0 ||
    !(await requeueDelivery(s.database.db, deliveryId, s.clock.now()))
  ) {
    throw new NotFoundError(`No webhook delivery ${deliveryId}`);
  }
  return (await findDelivery(s.database.db, deliveryId))!;
}
