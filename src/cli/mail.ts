/**
 * Mail commands of `tipjar`: `mail deliver` (one dispatcher run, for MAIL=off set-ups driven by
 * cron) and `mail list` (the outbox, newest first). Registered by cli/main.ts; each action imports
 * what it runs when it runs.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../config/index.ts';
import type { Services } from '../domain/services.ts';

type WithServices = <T>(fn: (s: Services) => Promise<T>) => Promise<T>;

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');

function positive(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return Number(value);
}

export function registerMailCommands(program: Command, withServices: WithServices): void {
  const mail = program.command('mail').description('mail outbox: deliver, inspect');

  mail
    .command('deliver')
    .description('send every due message once now (what the dispatcher in `serve` does every MAIL_INTERVAL_SECONDS)')
    .action(async () => {
      const cfg = loadConfig(process.env);
      const { deliverDueMail } = await import('../mail/dispatcher.ts');
      const { openTransport } = await import('../mail/transport.ts');
      const transport = openTransport(cfg, (line) => console.log(line));
      try {
        const r = await withServices((s) =>
          deliverDueMail(s, transport, { leaseSeconds: cfg.mailTimeoutSeconds * 4, currency: cfg.currency }),
        );
        console.log(`${r.attempted} attempted: ${r.sent} sent, ${r.retried} to retry, ${r.failed} failed`);
      } finally {
        transport.close();
      }
    });

  mail
    .command('list')
    .description('the latest messages of the outbox, newest first')
    .option('--to <address>', 'only those to this address')
    .option('--limit <n>', 'at most this many', positive, 20)
    .action(async (opts: { to?: string; limit: number }) => {
      const { listMessages } = await import('../domain/mail.ts');
      const rows = await withServices((s) => listMessages(s, { to: opts.to, limit: opts.limit }));
      for (const m of rows) {
        const when = m.sentAt !== null ? `sent ${iso(m.sentAt)}` : `next attempt ${iso(m.nextAttemptAt)}`;
        console.log(
          `${m.id}\t${m.status}\t${m.kind}\t${m.recipient}\t${when}\tattempts ${m.attempts}${m.lastError ? `\t${m.lastError}` : ''}`,
        );
      }
      if (rows.length === 0) console.log('no messages');
    });
}
