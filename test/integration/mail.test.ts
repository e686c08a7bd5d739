/**
 * The mail outbox and dispatcher against a real SMTP server on 127.0.0.1 (smtp-server), on every
 * engine: a queued message is sent once with its Message-ID, both parts and the notice headers;
 * nothing is queued for a rolled-back transaction; while the server is down messages stay queued
 * and go once it is back; a 5xx refusal fails a message at once, a 4xx one is retried; the
 * dispatcher in `serve` sends right after the commit; without SMTP the message is an .eml file
 * and its links are logged.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listMail } from '../../src/db/repositories/mail.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { queueMail, queueNotice } from '../../src/domain/mail.ts';
import { fixedClock } from '../../src/domain/clock.ts';
import { registerUser } from '../../src/domain/users.ts';
import type { Services } from '../../src/domain/services.ts';
import { deliverDueMail, startMailDispatcher } from '../../src/mail/dispatcher.ts';
import { fileTransport, smtpTransport, type MailTransport } from '../../src/mail/transport.ts';
import { createTestServices, ENGINES } from '../helpers/db.ts';
import { uniqueName } from '../helpers/factories.ts';
import { linkIn, TestSmtpServer, type ReceivedMail } from '../helpers/smtp.ts';

const FROM = 'Tipjar <no-reply@tipjar.test>';

/** The value of a header as sent (unfolded), or undefined. */
const headerOf = (mail: ReceivedMail, name: string) => {
  const line = mail.parsed.headerLines.find((h) => h.key === name)?.line;
  return line
    ?.slice(line.indexOf(':') + 1)
    .replace(/\r?\n\s+/g, ' ')
    .trim();
};

describe.each(ENGINES)('mail outbox (%s)', (engine) => {
  let s: Services;
  let drop: () => Promise<void>;
  const smtp = new TestSmtpServer();
  let transport: MailTransport;
  const clock = fixedClock(1_800_000_000);

  beforeAll(async () => {
    ({ s, drop } = await createTestServices(engine, { clock }));
    await smtp.start();
    transport = smtpTransport(smtp.url, { from: FROM, timeoutMs: 2000 });
  });
  afterAll(async () => {
    transport.close();
    await smtp.stop();
    await drop();
  });
  afterEach(() => {
    smtp.refuseWith = undefined;
  });

  const reset = (to: string, link = `${s.siteUrl}/password/reset/abc`) =>
    inTransaction(s.database, (trx) =>
      queueMail(trx, {
        kind: 'password_reset',
        userId: null,
        to,
        params: { username: 'ada', link, expiresAt: clock.now() + 3600 },
        now: clock.now(),
        siteUrl: s.siteUrl,
      }),
    );
  const rowsTo = (to: string) => listMail(s.database.db, { recipient: to, limit: 10 });

  it('sends a queued message once, with its Message-ID, a text and an HTML part, and empties its params', async () => {
    const to = `${uniqueName()}@example.com`;
    await reset(to);
    const [queued] = await rowsTo(to);
    expect(queued!.status).toBe('pending');

    const report = await deliverDueMail(s, transport);
    expect(report).toMatchObject({ sent: 1, failed: 0, retried: 0 });
    const [mail] = smtp.to(to);
    expect(mail!.messageId).toBe(`<${queued!.messageId}>`);
    expect(mail!.subject).toBe('Reset your Tipjar password');
    expect(mail!.parsed.from?.value).toEqual([{ name: 'Tipjar', address: 'no-reply@tipjar.test' }]);
    expect(linkIn(mail!, `${s.siteUrl}/password/reset/`)).toBe(`${s.siteUrl}/password/reset/abc`);
    expect(mail!.html).toContain('href="http://tipjar.test/password/reset/abc"');
    expect(headerOf(mail!, 'list-unsubscribe')).toBeUndefined();

    const [sent] = await rowsTo(to);
    expect(sent).toMatchObject({ status: 'sent', attempts: 1, params: {} });
    expect((await deliverDueMail(s, transport)).attempted).toBe(0);
    expect(smtp.to(to)).toHaveLength(1);
  });

  it('queues nothing for a transaction that rolls back', async () => {
    const to = `${uniqueName()}@example.com`;
    await expect(
      inTransaction(s.database, async (trx) => {
        await queueMail(trx, {
          kind: 'email_changed',
          userId: null,
          to,
          params: { username: 'ada', newAddress: 'x@example.com' },
          now: clock.now(),
          siteUrl: s.siteUrl,
        });
        throw new Error('the cause failed');
      }),
    ).rejects.toThrow('the cause failed');
    expect(await rowsTo(to)).toEqual([]);
  });

  it('keeps messages queued while the SMTP server is down and sends each once when it is back', async () => {
    const to = `${uniqueName()}@example.com`;
    await reset(to);
    await reset(to, `${s.siteUrl}/password/reset/second`);
    await smtp.stop();
    try {
      const down = await deliverDueMail(s, transport);
      expect(down).toMatchObject({ attempted: 2, sent: 0, retried: 2 });
      const rows = await rowsTo(to);
      expect(rows.map((r) => r.status)).toEqual(['pending', 'pending']);
      expect(rows.every((r) => r.attempts === 1 && r.nextAttemptAt > clock.now() && r.lastError)).toBe(true);
    } finally {
      await smtp.start();
    }
    // Not yet due: nothing is sent before the backoff has passed.
    expect((await deliverDueMail(s, transport)).attempted).toBe(0);
    clock.advance(3600);
    expect(await deliverDueMail(s, transport)).toMatchObject({ sent: 2 });
    expect(smtp.to(to)).toHaveLength(2);
    expect(new Set(smtp.to(to).map((m) => m.messageId)).size).toBe(2);
  });

  it('fails a message the server refuses for good (5xx) and retries one it defers (4xx)', async () => {
    const refused = `${uniqueName()}@example.com`;
    await reset(refused);
    smtp.refuseWith = 550;
    expect(await deliverDueMail(s, transport)).toMatchObject({ failed: 1 });
    expect((await rowsTo(refused))[0]).toMatchObject({ status: 'failed', attempts: 1 });

    const deferred = `${uniqueName()}@example.com`;
    await reset(deferred);
    smtp.refuseWith = 451;
    expect(await deliverDueMail(s, transport)).toMatchObject({ retried: 1 });
    smtp.refuseWith = undefined;
    clock.advance(3600);
    expect(await deliverDueMail(s, transport)).toMatchObject({ sent: 1 });
    expect(smtp.to(deferred)).toHaveLength(1);
    expect(smtp.to(refused)).toHaveLength(0);
  });

  it('gives notices a one-click unsubscription (RFC 8058) and sends them only to verified addresses', async () => {
    const username = uniqueName();
    const user = await registerUser(s, { username, email: `${username}@example.com` });
    const notice = (u: typeof user) =>
      inTransaction(s.database, (trx) =>
        queueNotice(trx, {
          kind: 'application_authorized',
          user: u,
          params: { application: 'Reader <3', scopes: 'tip' },
          now: clock.now(),
          siteUrl: s.siteUrl,
        }),
      );
    expect(await notice(user)).toBe(false);
    expect(await notice({ ...user, emailVerifiedAt: clock.now() })).toBe(true);
    expect(
      await notice({
        ...user,
        emailVerifiedAt: clock.now(),
        notices: { ...user.notices, application_authorized: false },
      }),
    ).toBe(false);
    await deliverDueMail(s, transport);
    // Besides the verification link queued at sign-up (an account message, without List-Unsubscribe):
    const notices = smtp.to(user.email).filter((m) => m.subject !== 'Confirm your e-mail address');
    expect(notices).toHaveLength(1);
    const [mail] = notices;
    const link = linkIn(mail!, `${s.siteUrl}/notices/unsubscribe/`);
    expect(headerOf(mail!, 'list-unsubscribe')).toBe(`<${link}>`);
    expect(headerOf(mail!, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(mail!.html).toContain('Reader &lt;3');
    expect(smtp.to(user.email)).toHaveLength(2);
  });

  it('inside serve, sends right after the commit that queued the message', async () => {
    const to = `${uniqueName()}@example.com`;
    const before = smtp.received.length;
    const running = startMailDispatcher(s, smtpTransport(smtp.url, { from: FROM }), { intervalSeconds: 3600 });
    try {
      await new Promise((r) => setTimeout(r, 100)); // the first round finds nothing
      await reset(to);
      await smtp.waitFor(before + 1, 5000);
      expect(smtp.to(to)).toHaveLength(1);
    } finally {
      await running.stop();
    }
  });

  it('without SMTP writes one .eml file per message and logs its links', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tipjar-mail-'));
    const lines: string[] = [];
    const files = fileTransport(dir, { from: FROM, log: (l) => lines.push(l) });
    try {
      const to = `${uniqueName()}@example.com`;
      await reset(to, `${s.siteUrl}/password/reset/from-a-file`);
      // Only this message is due now: the others of this file were sent or failed above.
      expect(await deliverDueMail(s, files)).toMatchObject({ sent: 1 });
      const [row] = await rowsTo(to);
      const names = await readdir(dir);
      expect(names).toEqual([`${row!.messageId}.eml`]);
      const eml = await readFile(join(dir, names[0]!), 'utf8');
      expect(eml).toContain(`Message-ID: <${row!.messageId}>`);
      expect(eml).toContain(`To: ${to}`);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${s.siteUrl}/password/reset/from-a-file`);
      expect(lines[0]).toContain(join(dir, names[0]!));
    } finally {
      files.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
