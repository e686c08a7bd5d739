/**
 * Where composed messages go (nodemailer): an SMTP server named by `SMTP_URL`
 * (`smtp://user:pass@host:port`, `smtps://…` for implicit TLS), or, without one, `.eml` files in a
 * folder (`MAIL_DIR`, default `data/mail/`), one per Message-ID, with a log line naming the file
 * and the links in the message, so a newcomer can follow a verification link without a mail server.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { ComposedMail } from './compose.ts';

/** One message ready to go. */
export interface OutgoingMail extends ComposedMail {
  /** Message-ID without the angle brackets */
  messageId: string;
  to: string;
}

/** Why a send failed; `permanent` when the server refused for good (an SMTP 5xx reply). */
export class MailSendError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'MailSendError';
  }
}

export interface MailTransport {
  /** Sends one message. @throws MailSendError */
  send(mail: OutgoingMail): Promise<void>;
  /** Closes connections. */
  close(): void;
  /** e.g. `smtp://mail.example:587` (no credentials) or `files in data/mail` */
  readonly description: string;
}

/** The sender and envelope settings shared by both transports. */
export interface TransportOptions {
  /** the From: header, e.g. `Tipjar <no-reply@tipjar.example>` */
  from: string;
  /** deadline of the connection, greeting and each command, in milliseconds (default 10 000) */
  timeoutMs?: number;
}

function messageOf(mail: OutgoingMail, from: string) {
  return {
    from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    headers: mail.headers,
    messageId: `<${mail.messageId}>`,
  };
}

/**
 * The SMTP transport of `url` (`smtp:` or `smtps:`; credentials in the URL): a pool of up to five
 * connections, each reused for up to 100 messages.
 * @throws Error for a URL of another scheme.
 */
export function smtpTransport(url: string, opts: TransportOptions): MailTransport {
  const parsed = new URL(url);
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:')
    throw new Error('SMTP_URL: smtp:// or smtps:// expected');
  const timeout = opts.timeoutMs ?? 10_000;
  // Pooled: up to 5 connections kept open and reused (closed after 4 idle minutes).
  const transporter = nodemailer.createTransport({
    url,
    pool: true,
    maxConnections: 5,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  return {
    description: `${parsed.protocol}//${parsed.host}`,
    async send(mail) {
      try {
        await transporter.sendMail(messageOf(mail, opts.from));
      } catch (err) {
        const e = err as { responseCode?: number; message?: string; code?: string };
        const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
        throw new MailSendError(`${e.code ?? 'error'}: ${e.message ?? String(err)}`.slice(0, 500), permanent);
      }
    },
    close() {
      transporter.close();
    },
  };
}

/** Absolute http(s) links in a text part. */
export function linksIn(text: string): string[] {
  return [...new Set(text.match(/https?:\/\/[^\s<>"]+/g) ?? [])];
}

/**
 * The file transport: each message is written as `<dir>/<Message-ID>.eml` (written to a temporary
 * name, then renamed: a crash leaves no half file; the same message sent again replaces its file),
 * then `log` gets a line with the recipient, subject, file and links.
 */
export function fileTransport(dir: string, opts: TransportOptions & { log: (line: string) => void }): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    description: `files in ${dir}`,
    async send(mail) {
      try {
        const info = await transporter.sendMail(messageOf(mail, opts.from));
        await mkdir(dir, { recursive: true });
        const name = `${mail.messageId.replace(/[^A-Za-z0-9._@-]/g, '_')}.eml`;
        const path = join(dir, name);
        await writeFile(`${path}.tmp`, info.message as Buffer);
        await rename(`${path}.tmp`, path);
        const links = linksIn(mail.text);
        opts.log(
          `mail to ${mail.to}: "${mail.subject}" written to ${path}${links.length ? `; links: ${links.join(' ')}` : ''}`,
        );
      } catch (err) {
        throw new MailSendError(`file: ${(err as Error).message}`, false);
      }
    },
    close() {
      transporter.close();
    },
  };
}

/**
 * The transport the settings name: SMTP when `smtpUrl` is set, else files in `mailDir`.
 * @param log receives the file transport's lines (the links to follow).
 */
export function openTransport(
  settings: { smtpUrl: string | undefined; mailFrom: string; mailDir: string; mailTimeoutSeconds: number },
  log: (line: string) => void,
): MailTransport {
  const opts = { from: settings.mailFrom, timeoutMs: settings.mailTimeoutSeconds * 1000 };
  return settings.smtpUrl ? smtpTransport(settings.smtpUrl, opts) : fileTransport(settings.mailDir, { ...opts, log });
}
