/**
 * `npm run bench:mail`: messages per second through the mail dispatcher (src/mail/dispatcher.ts)
 * into a real SMTP server on 127.0.0.1 (smtp-server, accepting everything) and into .eml files.
 * Queues BENCH_MAIL_MESSAGES (default 2000) verification messages on a fresh SQLite database in a
 * temporary folder (and on PostgreSQL when BENCH_DATABASE_URL is set, in a schema of its own),
 * then times `deliverDueMail` until the outbox is empty, for batch sizes 10 (the default) and 50.
 * Prints one line per engine × transport × batch size; writes bench/results/mail.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { openDatabase, type Database } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { countPendingMail } from '../src/db/repositories/mail.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { systemClock } from '../src/domain/clock.ts';
import { queueMail } from '../src/domain/mail.ts';
import type { Services } from '../src/domain/services.ts';
import { unboundedHashing } from '../src/auth/passwords.ts';
import { deliverDueMail } from '../src/mail/dispatcher.ts';
import { fileTransport, smtpTransport, type MailTransport } from '../src/mail/transport.ts';

const MESSAGES = Number(process.env.BENCH_MAIL_MESSAGES || 2000);
const SITE = 'http://tipjar.bench';

/** An SMTP sink on 127.0.0.1 that accepts and counts every message. */
async function smtpSink(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        n++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, count: () => n, close: () => new Promise((r) => server.close(() => r())) };
}

async function queue(s: Services, count: number): Promise<void> {
  const now = s.clock.now();
  for (let i = 0; i < count; i += 100) {
    await inTransaction(s.database, async (trx) => {
      for (let j = i; j < Math.min(count, i + 100); j++) {
        await queueMail(trx, {
          kind: 'verify_email',
          userId: null,
          to: `reader${j}@example.com`,
          params: {
            username: `reader${j}`,
            address: `reader${j}@example.com`,
            link: `${SITE}/verify-email/t${j}`,
            expiresAt: now + 86400,
          },
          now,
          siteUrl: SITE,
        });
      }
    });
  }
}

interface Row {
  engine: string;
  transport: string;
  batchSize: number;
  messages: number;
  seconds: number;
  perSecond: number;
}

async function measure(
  database: Database,
  engine: string,
  transport: MailTransport,
  name: string,
  batchSize: number,
): Promise<Row> {
  const s: Services = { database, clock: systemClock, siteUrl: SITE, passwordHashing: unboundedHashing };
  await queue(s, MESSAGES);
  const started = performance.now();
  const report = await deliverDueMail(s, transport, { batchSize });
  const seconds = (performance.now() - started) / 1000;
  if (report.sent !== MESSAGES || (await countPendingMail(database.db)) !== 0)
    throw new Error(`${engine} ${name}: sent ${report.sent} of ${MESSAGES}`);
  return { engine, transport: name, batchSize, messages: MESSAGES, seconds, perSecond: MESSAGES / seconds };
}

const rows: Row[] = [];
const sink = await smtpSink();
const dir = await mkdtemp(join(tmpdir(), 'tipjar-bench-mail-'));
try {
  const engines: { name: string; url: string }[] = [{ name: 'sqlite', url: `sqlite:${join(dir, 'mail.db')}` }];
  const pgBase = process.env.BENCH_DATABASE_URL;
  const pgSchema = `bench_mail_${process.pid}`;
  const admin = async (statement: string) => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: pgBase });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  if (pgBase) {
    await admin(`create schema ${pgSchema}`);
    engines.push({ name: 'postgres', url: `${pgBase}${pgBase.includes('?') ? '&' : '?'}schema=${pgSchema}` });
  }
  for (const e of engines) {
    const database = await openDatabase(e.url);
    try {
      await migrateToLatest(database);
      for (const batchSize of [10, 50]) {
        const smtp = smtpTransport(sink.url, { from: 'Tipjar <no-reply@tipjar.bench>' });
        rows.push(await measure(database, e.name, smtp, 'smtp', batchSize));
        smtp.close();
        const files = fileTransport(join(dir, `eml-${e.name}-${batchSize}`), {
          from: 'Tipjar <no-reply@tipjar.bench>',
          log: () => {},
        });
        rows.push(await measure(database, e.name, files, 'files', batchSize));
        files.close();
      }
    } finally {
      await database.close();
      if (e.name === 'postgres') await admin(`drop schema if exists ${pgSchema} cascade`);
    }
  }
} finally {
  await sink.close();
  await rm(dir, { recursive: true, force: true });
}
for (const r of rows)
  console.log(
    `${r.engine.padEnd(8)} ${r.transport.padEnd(5)} batch ${String(r.batchSize).padStart(2)}: ${r.messages} messages in ${r.seconds.toFixed(2)} s = ${Math.round(r.perSecond)} messages/s`,
  );
await mkdir(new URL('./results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('./results/mail.json', import.meta.url),
  `${JSON.stringify({ at: new Date().toISOString(), rows }, null, 2)}\n`,
);
