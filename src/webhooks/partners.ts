/**
 * Managing community partners (api-v2.md "Events", DECISIONS.md "Partners, pending things,
 * webhooks", notes §15; the operator's `tipjar partners …` and `tipjar webhooks log|redeliver`):
 * a partner has a namespace, an OAuth client (src/auth/oauth/clients.ts), a webhook URL checked
 * by the URL guard, the events it receives (src/domain/events.ts) and a Standard Webhooks signing
 * secret. Verifying identities for a partner's users is src/domain/partners.ts.
 */
import { createClient, deleteClient } from '../auth/oauth/clients.ts';
import { inTransaction, isUniqueViolation } from '../db/transaction.ts';
import {
  deletePartnerRow,
  findPartnerByNamespace,
  insertPartner,
  listPartners as listPartnerRows,
  updatePartnerRow,
  type PartnerRecord,
} from '../db/repositories/partners.ts';
import {
  findDelivery,
  listAttempts,
  listDeliveries,
  requeueDelivery,
  type AttemptRecord,
  type DeliveryRecord,
} from '../db/repositories/webhooks.ts';
import { NotFoundError, ValidationError } from '../domain/errors.ts';
import { parseEventList } from '../domain/events.ts';
import { NAMESPACE } from '../domain/identities.ts';
import type { Services } from '../domain/services.ts';
import { MAX_URL_LENGTH } from '../domain/urls.ts';
import { resolveTarget, UnsafeUrlError, type Resolver } from './guard.ts';
import { newSigningSecret } from './signing.ts';

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
 * Changes a partner's webhook URL, events, private-address allowance or trust, or rotates its
 * signing secret. The URL is checked again with the resulting allowance. `trusted` (operator):
 * the partner may assign the global identities `email:` and `twitter:` to its users through
 * `POST /user/verify` (src/domain/partners.ts verifyIdentity); untrusted partners only their own
 * namespace's.
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
    trusted?: boolean;
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
    { webhookUrl, events, signingSecret, allowPrivateWebhook: changes.allowPrivateWebhook, trusted: changes.trusted },
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
