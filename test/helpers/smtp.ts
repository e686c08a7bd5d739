/**
 * A real SMTP server for tests (the `smtp-server` package) on 127.0.0.1: it accepts every message
 * (or refuses them with `refuseWith`), parses each with `mailparser`, and keeps them in order.
 * `stop()` closes it (connections refused, as in an outage); `start()` again listens on the same
 * port; `hold` leaves messages unanswered (a sender that dies meanwhile never got an acceptance). Never a stub of the mailer: Tipjar's nodemailer transport talks real SMTP to it.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  messageId: string;
  subject: string;
  text: string;
  html: string;
  headers: Map<string, unknown>;
  parsed: ParsedMail;
}

export class TestSmtpServer {
  private server: SMTPServer | undefined;
  port = 0;
  readonly received: ReceivedMail[] = [];
  /** when set, every message is refused with this SMTP reply code (e.g. 550 or 451) */
  refuseWith: number | undefined;
  /**
   * When true, a message's data is read but never answered (the sender waits, as with a server
   * that hangs after DATA) and it is not counted as received; `held` counts them.
   */
  hold = false;
  held = 0;
  private waiters: { count: number; resolve: () => void }[] = [];

  /** `smtp://127.0.0.1:<port>` (no TLS, no authentication) */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Listens on 127.0.0.1 (the same port as before after a stop, else an ephemeral one). */
  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      disableReverseLookup: true,
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (this.hold) {
            this.held++;
            return;
          }
          if (this.refuseWith !== undefined) {
            const err = Object.assign(new Error('refused by the test server'), { responseCode: this.refuseWith });
            return callback(err);
          }
          simpleParser(Buffer.concat(chunks))
            .then((parsed) => {
              this.received.push({
                to: session.envelope.rcptTo.map((r) => r.address).join(','),
                messageId: parsed.messageId ?? '',
                subject: parsed.subject ?? '',
                text: parsed.text ?? '',
                html: typeof parsed.html === 'string' ? parsed.html : '',
                headers: parsed.headers,
                parsed,
              });
              callback();
              this.notify();
            })
            .catch((err: Error) => callback(err));
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops open connections. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The messages received for `address`, oldest first. */
  to(address: string): ReceivedMail[] {
    return this.received.filter((m) => m.to.split(',').includes(address));
  }

  /**
   * The newest message to `address` whose subject starts with `subject`, waiting for one to arrive.
   * @throws after `timeoutMs` without such a message
   */
  async latest(address: string, subject: string, timeoutMs = 10_000): Promise<ReceivedMail> {
    for (const end = Date.now() + timeoutMs; ;) {
      const found = this.to(address).filter((m) => m.subject.startsWith(subject));
      if (found.length) return found.at(-1)!;
      if (Date.now() > end) throw new Error(`no "${subject}" message to ${address}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Resolves once `count` messages in all have been received. @throws after `timeoutMs` */
  async waitFor(count: number, timeoutMs = 10_000): Promise<void> {
    if (this.received.length >= count) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`expected ${count} messages, got ${this.received.length}`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  private notify() {
    this.waiters = this.waiters.filter((w) => {
      if (this.received.length < w.count) return true;
      w.resolve();
      return false;
    });
  }
}

/** The first link in a message's text part that starts with `prefix`. @throws when there is none */
export function linkIn(mail: ReceivedMail, prefix: string): string {
  const link = (mail.text.match(/https?:\/\/[^\s<>"]+/g) ?? []).find((l) => l.startsWith(prefix));
  if (!link) throw new Error(`no link starting with ${prefix} in:\n${mail.text}`);
  return link;
}
