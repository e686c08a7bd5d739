/**
 * The mail dispatcher: claims due messages from the outbox (src/domain/mail.ts), composes each
 * (compose.ts), sends it through the transport (SMTP or files), and records the outcome; a failed
 * send is retried with exponential backoff and jitter for up to 3 days (src/domain/outbox.ts), an
 * SMTP 5xx refusal fails the message at once.
 *
 * A message leaves the queue only once the transport accepted it and that was recorded. A
 * dispatcher that dies mid-send leaves its claim to expire (`leaseSeconds`) and the message is
 * sent again with the same Message-ID. Several instances may run on one database: each message is
 * claimed by one at a time. Inside `serve` the dispatcher also runs right after every commit that
 * queued a message, not only every `intervalSeconds`.
 */
import { claimDueMail, finishMailAttempt, type MailRecord } from '../db/repositories/mail.ts';
import { inTransaction, onCommit } from '../db/transaction.ts';
import type { MailKind, MailParams } from '../domain/mail.ts';
import { dispatcherId, RETRY_WINDOW_SECONDS, retryDelaySeconds } from '../domain/outbox.ts';
import type { Services } from '../domain/services.ts';
import { composeMail, type MailSite } from './compose.ts';
import { MailSendError, type MailTransport } from './transport.ts';

export interface MailDispatchOptions {
  /** this instance's name in claimed_by (default host:pid:random) */
  worker?: string;
  /** messages claimed (and sent concurrently) per round; default 10 */
  batchSize?: number;
  /** how long a claim holds, in seconds; must exceed the transport's deadline; default 60 */
  leaseSeconds?: number;
  /** delay after the n-th failed attempt, in seconds (default retryDelaySeconds) */
  retryDelay?: (attempts: number) => number;
  /** how amounts are shown (default EUR) */
  currency?: string;
}

export interface MailDispatchReport {
  attempted: number;
  sent: number;
  /** sends that failed and were scheduled again */
  retried: number;
  /** messages given up on (refused for good, or the retry window is over) */
  failed: number;
}

/** Sends one claimed message and records the outcome. @returns the outcome; 'lost' when the claim was lost meanwhile. */
async function attempt(
  s: Services,
  transport: MailTransport,
  m: MailRecord,
  worker: string,
  opts: MailDispatchOptions,
): Promise<'sent' | 'retried' | 'failed' | 'lost'> {
  let error: string | null = null;
  let permanent = false;
  try {
    const site: MailSite = { siteUrl: s.siteUrl, currency: opts.currency };
    const composed = composeMail(m.kind as MailKind, m.params as unknown as MailParams[MailKind], site);
    await transport.send({ ...composed, messageId: m.messageId, to: m.recipient });
  } catch (err) {
    permanent = !(err instanceof MailSendError) || err.permanent;
    error = err instanceof Error ? err.message : String(err);
  }
  const now = s.clock.now();
  const attempts = m.attempts + 1;
  let outcome: 'sent' | 'retried' | 'failed';
  let nextAttemptAt: number | undefined;
  if (error === null) outcome = 'sent';
  else {
    nextAttemptAt = now + (opts.retryDelay ?? retryDelaySeconds)(attempts);
    outcome = permanent || nextAttemptAt > m.createdAt + RETRY_WINDOW_SECONDS ? 'failed' : 'retried';
  }
  const held = await inTransaction(s.database, (trx) =>
    finishMailAttempt(trx, m.id, worker, {
      status: outcome === 'retried' ? 'pending' : outcome,
      now,
      nextAttemptAt: outcome === 'retried' ? nextAttemptAt : undefined,
      error,
      attempts,
    }),
  );
  return held ? outcome : 'lost';
}

/**
 * One dispatcher run: claims due messages in batches and sends each batch concurrently, until
 * nothing is due. Used by the loop in `serve` and by `tipjar mail deliver`.
 */
export async function deliverDueMail(
  s: Services,
  transport: MailTransport,
  opts: MailDispatchOptions = {},
): Promise<MailDispatchReport> {
  const worker = opts.worker ?? dispatcherId();
  const report: MailDispatchReport = { attempted: 0, sent: 0, retried: 0, failed: 0 };
  for (;;) {
    const claimed = await inTransaction(s.database, (trx) =>
      claimDueMail(trx, s.database.engine, worker, s.clock.now(), opts.leaseSeconds ?? 60, opts.batchSize ?? 10),
    );
    if (claimed.length === 0) return report;
    const outcomes = await Promise.all(claimed.map((m) => attempt(s, transport, m, worker, opts)));
    for (const o of outcomes) {
      report.attempted++;
      if (o !== 'lost') report[o]++;
    }
  }
}

export interface RunningMailDispatcher {
  /** Stops the loop, waits for the round in flight, and closes the transport. */
  stop(): Promise<void>;
}

/**
 * Runs `deliverDueMail` every `intervalSeconds`, and soon after every commit on this process that
 * queued a message. Errors of a round are logged and the loop goes on.
 */
export function startMailDispatcher(
  s: Services,
  transport: MailTransport,
  opts: MailDispatchOptions & { intervalSeconds: number; logError?: (line: string) => void },
): RunningMailDispatcher {
  const worker = opts.worker ?? dispatcherId();
  let stopped = false;
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const round = () => {
    clearTimeout(timer);
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    inFlight = deliverDueMail(s, transport, { ...opts, worker })
      .then(() => undefined)
      .catch((err: unknown) => opts.logError?.(`mail: ${String((err as Error)?.stack ?? err)}`))
      .finally(() => {
        running = false;
        if (stopped) return;
        if (again) {
          again = false;
          timer = setTimeout(round, 0);
        } else timer = setTimeout(round, opts.intervalSeconds * 1000);
      });
  };
  const unsubscribe = onCommit(s.database, (changes) => {
    if (changes.some((c) => c.kind === 'mail')) setImmediate(round);
  });
  timer = setTimeout(round, 0);
  return {
    async stop() {
      stopped = true;
      unsubscribe();
      clearTimeout(timer);
      await inFlight;
      transport.close();
    },
  };
}
