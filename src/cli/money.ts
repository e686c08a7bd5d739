/**
 * Money commands of `tipjar`: `settle`, `ledger check`, `ledger report`, `subscriptions renew`.
 * Registered on the program by cli/main.ts; each action imports the domain modules it runs when it
 * runs, so that `tipjar --help` loads none of them.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { Services } from '../domain/services.ts';
import { isPeriod } from '../domain/periods.ts';

type WithServices = <T>(fn: (s: Services) => Promise<T>) => Promise<T>;

/**
 * Test hook for crash tests: with `TIPJAR_SETTLE_PAUSE_AFTER=N`, `tipjar settle` prints
 * `paused after N tippers` once N tippers are committed and then waits forever, so a test can
 * kill -9 it between two tippers. Unset in production.
 */
const PAUSE_AFTER = 'TIPJAR_SETTLE_PAUSE_AFTER';

function period(value: string): string {
  if (!isPeriod(value)) throw new InvalidArgumentError('expected a period YYYY-MM');
  return value;
}

export function registerMoneyCommands(program: Command, withServices: WithServices): void {
  program
    .command('settle')
    .description(
      "settle a period: split each tipper's budget over their tips and credit the owners (idempotent, resumable)",
    )
    .option('--period <YYYY-MM>', 'the period to settle (default: the last closed period)', period)
    .action(async (opts: { period?: string }) => {
      const { settlePeriod } = await import('../domain/money/settlement.ts');
      const { describeSettlement } = await import('../domain/money/describe.ts');
      const pauseAfter = process.env[PAUSE_AFTER] ? Number(process.env[PAUSE_AFTER]) : undefined;
      const report = await withServices((s) =>
        settlePeriod(s, {
          period: opts.period,
          onTipperSettled: async (n) => {
            if (pauseAfter !== undefined && n >= pauseAfter) {
              process.stdout.write(`paused after ${n} tippers\n`);
              await new Promise(() => setInterval(() => {}, 1 << 30));
            }
          },
        }),
      );
      console.log(describeSettlement(report));
    });

  const ledger = program.command('ledger').description('the double-entry ledger');
  ledger
    .command('check')
    .description('verify every ledger invariant; exits 1 and prints each breach')
    .action(async () => {
      const { checkLedger } = await import('../domain/money/ledger.ts');
      const breaches = await withServices((s) => checkLedger(s));
      if (breaches.length === 0) {
        console.log('ledger check: OK');
        return;
      }
      for (const b of breaches) console.log(`BREACH [${b.invariant}] ${b.message}`);
      console.log(`ledger check: ${breaches.length} breach${breaches.length === 1 ? '' : 'es'}`);
      process.exitCode = 1;
    });
  ledger
    .command('report')
    .description("a user's earnings per period, in cents")
    .requiredOption('--user <username>', 'the owner whose earnings to report')
    .action(async (opts: { user: string }) => {
      const { getUser } = await import('../domain/users.ts');
      const { getEarningsByPeriod } = await import('../domain/money/account.ts');
      await withServices(async (s) => {
        const user = await getUser(s, opts.user);
        const rows = await getEarningsByPeriod(s, user.id);
        console.log(`earnings of ${user.username}`);
        console.log(`${'period'.padEnd(8)} ${'tips'.padStart(6)} ${'cents'.padStart(10)}`);
        for (const r of rows)
          console.log(
            `${(r.period ?? 'claimed').padEnd(8)} ${String(r.tips).padStart(6)} ${String(r.cents).padStart(10)}`,
          );
        const tips = rows.reduce((n, r) => n + r.tips, 0);
        const cents = rows.reduce((n, r) => n + r.cents, 0);
        console.log(`${'total'.padEnd(8)} ${String(tips).padStart(6)} ${String(cents).padStart(10)}`);
      });
    });

  program
    .command('subscriptions')
    .description('subscriptions')
    .command('renew')
    .description('tip the thing of every active subscription for the current period (idempotent)')
    .option('--period <YYYY-MM>', 'must be the current period (the default)', period)
    .action(async (opts: { period?: string }) => {
      const { renewSubscriptions } = await import('../domain/subscriptions.ts');
      const { describeRenewal } = await import('../domain/money/describe.ts');
      await withServices(async (s) => {
        for (const line of await describeRenewal(s, await renewSubscriptions(s, { period: opts.period })))
          console.log(line);
      });
    });
}
