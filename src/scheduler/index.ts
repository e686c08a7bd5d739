/**
 * The scheduler inside `npm start` (SCHEDULER=on|off, SCHEDULER_INTERVAL_SECONDS).
 * Every interval it checks whether a month has ended: it settles every ended period that has tips
 * and is not settled (oldest first), and once all are settled it renews the subscriptions of the
 * current period (once per period: `periods.renewed_at`). It also deletes OAuth authorization
 * codes never exchanged that expired more than CODE_RETENTION_SECONDS ago.
 *
 * Several instances may run it at once: settlement claims the period (only one does the work, the
 * others see `busy`) and is idempotent per tipper; renewal is idempotent per subscription and
 * period. A crash at any point is completed by the next check of any instance.
 */
import type { Services } from '../domain/services.ts';
import { settlePeriod, unsettledPeriods, type SettlementReport } from '../domain/money/settlement.ts';
import { markRenewed, renewSubscriptions, wasRenewed, type RenewalReport } from '../domain/subscriptions.ts';
import { periodOf } from '../domain/periods.ts';
import { describeRenewal, describeSettlement } from '../domain/money/describe.ts';
import { purgeExpiredCodes } from '../auth/oauth/authorize.ts';

/** How long an expired, never-exchanged authorization code is kept (for support questions), in seconds. */
export const CODE_RETENTION_SECONDS = 86400;

export interface TickReport {
  /** authorization codes deleted (never exchanged, expired over CODE_RETENTION_SECONDS ago) */
  purgedCodes: number;
  settlements: SettlementReport[];
  /** set when this check renewed the current period's subscriptions */
  renewal?: RenewalReport;
}

export type SchedulerLog = (line: string) => void;

/**
 * One check (see the module comment).
 * @returns what was done; nothing when every ended period is settled and the current one renewed.
 */
export async function runSchedulerTick(s: Services, log: SchedulerLog = () => {}): Promise<TickReport> {
  const report: TickReport = {
    purgedCodes: await purgeExpiredCodes(s, CODE_RETENTION_SECONDS),
    settlements: [],
  };
  for (const period of await unsettledPeriods(s)) {
    const r = await settlePeriod(s, { period });
    report.settlements.push(r);
    log(`scheduler: ${describeSettlement(r)}`);
    if (r.status === 'busy') return report; // another instance settles; renew after it is done
  }
  const period = periodOf(s.clock.now());
  if (await wasRenewed(s, period)) return report;
  report.renewal = await renewSubscriptions(s, { period });
  for (const line of await describeRenewal(s, report.renewal)) log(`scheduler: ${line}`);
  await markRenewed(s, period);
  return report;
}

export interface Scheduler {
  /** stops the timer and waits for a running check to finish */
  stop(): Promise<void>;
}

/**
 * Starts checking now and then every `intervalSeconds`. Checks never overlap; a failed check is
 * logged and retried at the next interval.
 */
export function startScheduler(
  s: Services,
  opts: { intervalSeconds: number; log: SchedulerLog; logError: SchedulerLog },
): Scheduler {
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = runSchedulerTick(s, opts.log)
      .then(() => undefined)
      .catch((err: unknown) =>
        opts.logError(`scheduler: check failed: ${err instanceof Error ? err.message : String(err)}`),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, opts.intervalSeconds * 1000);
  timer.unref();
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
