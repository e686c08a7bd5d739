/**
 * Mail across an outage and a crash of the real server (`tipjar serve` as `npm start` runs it),
 * on every engine: messages queued while the SMTP server is down wait in the outbox and are sent
 * once it is back; a server killed with SIGKILL while its messages are in flight (the SMTP server
 * holds them unanswered) leaves them queued, and after a restart every message arrives exactly
 * once with the Message-ID it was queued with.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { listMail } from '../../src/db/repositories/mail.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { queueMail } from '../../src/domain/mail.ts';
import { createDatabaseUrl, ENGINES } from '../helpers/db.ts';
import { exited, startTipjar, until, waitForExit } from '../helpers/processes.ts';
import { TestSmtpServer } from '../helpers/smtp.ts';

const SITE = 'http://tipjar.test';

describe.each(ENGINES)('mail across an outage and a crash of the real server on %s', (engine) => {
  const children = new Set<ChildProcess>();
  const smtp = new TestSmtpServer();
  let database: { url: string; remove(): Promise<void> };
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createDatabaseUrl(engine);
    await smtp.start();
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: database.url,
      PUBLIC_URL: SITE,
      LOG_LEVEL: 'warn',
      SCHEDULER: 'off',
      WEBHOOKS: 'off',
      DISCOVERY: 'off',
      WARMUP_SECONDS: '0',
      SMTP_URL: smtp.url,
      MAIL: 'on',
      MAIL_INTERVAL_SECONDS: '1',
      // the claim of a dead server's message expires after 4 × this
      MAIL_TIMEOUT_SECONDS: '1',
    };
  });
  afterAll(async () => {
    for (const child of children) {
      if (!exited(child)) child.kill('SIGKILL');
      await waitForExit(child);
    }
    await smtp.stop();
    await database.remove();
  });

  /** Queues `count` messages to `prefix<i>@example.com`; @returns their Message-IDs. */
  async function queue(prefix: string, count: number): Promise<string[]> {
    const db = await openDatabase(database.url);
    try {
      await migrateToLatest(db);
      const now = Math.floor(Date.now() / 1000);
      for (let i = 0; i < count; i++) {
        await inTransaction(db, (trx) =>
          queueMail(trx, {
            kind: 'password_reset',
            userId: null,
            to: `${prefix}${i}@example.com`,
            params: { username: `${prefix}${i}`, link: `${SITE}/password/reset/${prefix}${i}`, expiresAt: now + 3600 },
            now,
            siteUrl: SITE,
          }),
        );
      }
      const rows = await listMail(db.db, { limit: 1000 });
      return rows.filter((r) => r.recipient.startsWith(prefix)).map((r) => `<${r.messageId}>`);
    } finally {
      await db.close();
    }
  }

  async function statuses(prefix: string): Promise<string[]> {
    const db = await openDatabase(database.url);
    try {
      const rows = await listMail(db.db, { limit: 1000 });
      return rows.filter((r) => r.recipient.startsWith(prefix)).map((r) => r.status);
    } finally {
      await db.close();
    }
  }

  const receivedFrom = (prefix: string) => smtp.received.filter((m) => m.to.startsWith(prefix));

  it(
    'keeps messages queued while SMTP is down, across a kill -9, and sends each once when it is back',
    { timeout: 120_000 },
    async () => {
      await smtp.stop();
      const ids = await queue('outage', 3);
      const first = await startTipjar(env, children);
      try {
        await until('a failed attempt on every message', async () => {
          const db = await openDatabase(database.url);
          try {
            const rows = (await listMail(db.db, { limit: 1000 })).filter((r) => r.recipient.startsWith('outage'));
            return rows.length === 3 && rows.every((r) => r.attempts >= 1 && r.status === 'pending');
          } finally {
            await db.close();
          }
        });
        first.child.kill('SIGKILL');
        await waitForExit(first.child);
      } finally {
        await smtp.start();
      }
      expect(await statuses('outage')).toEqual(['pending', 'pending', 'pending']);
      // A new server sends them once their retry is due (30 s after the failure at most).
      const second = await startTipjar(env, children);
      await until('every message to arrive', () => receivedFrom('outage').length >= 3, 60_000);
      await until('every message to be marked sent', async () => (await statuses('outage')).every((s) => s === 'sent'));
      second.child.kill('SIGTERM');
      await waitForExit(second.child);
      expect(
        receivedFrom('outage')
          .map((m) => m.messageId)
          .sort(),
      ).toEqual([...ids].sort());
    },
  );

  it(
    'sends every message exactly once, with its Message-ID, after kill -9 mid-send and a restart',
    { timeout: 120_000 },
    async () => {
      const ids = await queue('crash', 4);
      // The SMTP server reads the messages but never answers: the first server dies waiting.
      smtp.hold = true;
      const first = await startTipjar(env, children);
      await until('a message to be in flight', () => smtp.held > 0);
      first.child.kill('SIGKILL');
      await waitForExit(first.child);
      expect(receivedFrom('crash')).toHaveLength(0);
      expect(await statuses('crash')).toEqual(['pending', 'pending', 'pending', 'pending']);

      smtp.hold = false;
      const second = await startTipjar(env, children);
      await until('every message to arrive', () => receivedFrom('crash').length >= 4, 60_000);
      await until('every message to be marked sent', async () => (await statuses('crash')).every((s) => s === 'sent'));
      second.child.kill('SIGTERM');
      await waitForExit(second.child);
      const got = receivedFrom('crash').map((m) => m.messageId);
      expect(got.sort()).toEqual([...ids].sort());
    },
  );
});
