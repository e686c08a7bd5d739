/**
 * The webhook dispatcher (DECISIONS.md "Partners, pending things, webhooks"): claims due
 * deliveries from the outbox, POSTs each form-encoded with Standard Webhooks headers through the
 * URL guard, logs every attempt, and retries with exponential backoff and jitter for up to 3 days.
 *
 * Delivery is at least once: a delivery leaves the queue only after a 2xx answer was recorded; a
 * dispatcher that dies mid-attempt leaves its claim to expire (`leaseSeconds`) and another (or
 * the restarted) instance sends it again with the same `webhook-id`, so receivers dedupe by it.
 * Several instances may run on one database: each delivery is claimed by one at a time.
 */
import { inTransaction } from '../db/transaction.ts';
import { findPartnerById, type PartnerRecord } from '../db/repositories/partners.ts';
import { claimDueDeliveries, finishAttempt, insertAttempt, type DeliveryRecord } from '../db/repositories/webhooks.ts';
import { dispatcherId, RETRY_WINDOW_SECONDS, retryDelaySeconds } from '../domain/outbox.ts';
import type { Services } from '../domain/services.ts';
import { FetchError, guardedRequest } from './fetch.ts';
import type { Resolver } from './guard.ts';
import { signatureHeaders } from './signing.ts';

export {
  dispatcherId,
  RETRY_BASE_SECONDS,
  RETRY_MAX_SECONDS,
  RETRY_WINDOW_SECONDS,
  retryDelaySeconds,
} from '../domain/outbox.ts';

export interface DispatchOptions {
  /** this instance's name in claimed_by (default host:pid:random) */
  worker?: string;
  /** deliveries claimed (and sent concurrently) per round; default 10 */
  batchSize?: number;
  /** how long a claim holds, in seconds; must exceed `timeoutMs`; default 60 */
  leaseSeconds?: number;
  /** per-attempt deadline in milliseconds; default 10 000 */
  timeoutMs?: number;
  /** delay after the n-th failed attempt, in seconds (default `retryDelaySeconds`) */
  retryDelay?: (attempts: number) => number;
  /** DNS resolver for the URL guard (tests) */
  resolver?: Resolver;
}

export interface DispatchReport {
  attempted: number;
  delivered: number;
  /** attempts that failed and were scheduled again */
  retried: number;
  /** deliveries given up on (retry window over) */
  failed: number;
}

/** Longest response body read from a receiver, in bytes (the body is not used). */
const RESPONSE_LIMIT = 64 * 1024;

/**
 * Sends one claimed delivery and records the attempt and its outcome in one transaction.
 * @returns 'delivered', 'retried' or 'failed'; 'lost' when the claim was lost meanwhile.
 */
async function attempt(
  s: Services,
  d: DeliveryRecord,
  partner: PartnerRecord | undefined,
  worker: string,
  opts: DispatchOptions,
): Promise<'delivered' | 'retried' | 'failed' | 'lost'> {
  const started = Date.now();
  const attemptedAt = s.clock.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  if (!partner) {
    error = 'partner no longer exists';
  } else {
    const body = new URLSearchParams(d.payload).toString();
    try {
      const res = await guardedRequest({
        url: partner.webhookUrl,
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': 'Tipjar-Webhooks/1',
          ...signatureHeaders(partner.signingSecret, d.messageId, attemptedAt, body),
        },
        body,
        timeoutMs: opts.timeoutMs ?? 10_000,
        maxBytes: RESPONSE_LIMIT,
        maxRedirects: 0,
        allowPrivate: partner.allowPrivateWebhook,
        resolver: opts.resolver,
      });
      statusCode = res.status;
      if (res.status < 200 || res.status >= 300)
        error = `HTTP ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''}`;
    } catch (err) {
      error = err instanceof FetchError ? `${err.kind}: ${err.message.replace(/^refused: /, '')}` : String(err);
    }
  }
  const now = s.clock.now();
  const durationMs = Date.now() - started;
  let outcome: 'delivered' | 'retried' | 'failed';
  let nextAttemptAt: number | undefined;
  if (error === null) outcome = 'delivered';
  else {
    nextAttemptAt = now + (opts.retryDelay ?? retryDelaySeconds)(d.attempts + 1);
    outcome = !partner || nextAttemptAt > d.createdAt + RETRY_WINDOW_SECONDS ? 'failed' : 'retried';
  }
  return inTransaction(s.database, async (trx) => {
    await insertAttempt(trx, { deliveryId: d.id, attemptedAt, statusCode, error, durationMs });
    const held = await finishAttempt(trx, d.id, worker, {
      status: outcome === 'retried' ? 'pending' : outcome,
      now,
      nextAttemptAt: outcome === 'retried' ? nextAttemptAt : undefined,
      error,
    });
    return held ? outcome : 'lost';
  });
}

/**
 * One dispatcher run: claims due deliveries in batches and sends each batch concurrently, until
 * nothing is due. Used by the loop in `serve` and by `tipjar webhooks deliver`.
 */
export async function deliverDue(s: Services, opts: DispatchOptions = {}): Promise<DispatchReport> {
  const worker = opts.worker ?? dispatcherId();
  const report: DispatchReport = { attempted: 0, delivered: 0, retried: 0, failed: 0 };
  const partners = new Map<number, PartnerRecord | undefined>();
  for (;;) {
    const claimed = await inTransaction(s.database, (trx) =>
      claimDueDeliveries(trx, s.database.engine, worker, s.clock.now(), opts.leaseSeconds ?? 60, opts.batchSize ?? 10),
    );
    if (claimed.length === 0) return report;
    for (const d of claimed) {
      if (!partners.has(d.partnerId)) partners.set(d.partnerId, await findPartnerById(s.database.db, d.partnerId));
    }
    const outcomes = await Promise.all(claimed.map((d) => attempt(s, d, partners.get(d.partnerId), worker, opts)));
    for (const o of outcomes) {
      report.attempted++;
      if (o !== 'lost') report[o]++;
    }
  }
}

export interface RunningDispatcher {
  /** Stops the loop and waits for the round in flight. */
  stop(): Promise<void>;
}

/**
 * Runs `deliverDue` every `intervalSeconds` (inside `serve`). Errors of a round are logged and the
 * loop goes on.
 */
export function startDispatcher(
  s: Services,
  opts: DispatchOptions & { intervalSeconds: number; logError?: (line: string) => void },
): RunningDispatcher {
  const worker = opts.worker ?? dispatcherId();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const round = () => {
    inFlight = deliverDue(s, { ...opts, worker })
      .then(() => undefined)
      .catch((err: unknown) => opts.logError?.(`webhooks: ${String((err as Error)?.stack ?? err)}`))
      .finally(() => {
        if (!stopped) timer = setTimeout(round, opts.intervalSeconds * 1000);
      });
  };
  timer = setTimeout(round, 0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
