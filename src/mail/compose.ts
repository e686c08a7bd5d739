/**
 * Composes a queued message (src/domain/mail.ts MailParams) into what is sent: subject, a
 * plain-text part, an HTML part (every value escaped), and headers. Notices carry
 * `List-Unsubscribe` and `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058).
 * Pure: the same kind and params always give the same message.
 */
import type { MailKind, MailParams, ReceiptLine } from '../domain/mail.ts';

export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/** Where the site lives and how it shows money. */
export interface MailSite {
  /** origin of the website, e.g. `https://tipjar.example` */
  siteUrl: string;
  /** ISO 4217 code amounts are shown in (default EUR) */
  currency?: string;
}

/** A piece of a message body: a paragraph, a call to action, a list of links, or a table of amounts. */
type Block =
  | { p: string }
  | { action: { label: string; href: string } }
  | { links: { label: string; href: string }[] }
  | { amounts: { label: string; href: string; cents: number }[]; total?: number };

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** `cents` as an amount of `currency`, e.g. `€1.50`. */
export function formatMoney(cents: number, currency: string): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(cents / 100);
}

/** Unix seconds as `YYYY-MM-DD HH:MM UTC`. */
function until(expiresAt: number): string {
  return `${new Date(expiresAt * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function amounts(items: ReceiptLine[]) {
  return items.map((l) => ({ label: l.title || l.url, href: l.url, cents: l.cents }));
}

/** Subject and body of each kind. */
function content(kind: MailKind, params: unknown, site: MailSite): { subject: string; body: Block[] } {
  const currency = site.currency ?? 'EUR';
  switch (kind) {
    case 'verify_email': {
      const p = params as MailParams['verify_email'];
      return {
        subject: 'Confirm your e-mail address',
        body: [
          { p: `Hello ${p.username},` },
          { p: `please confirm that ${p.address} is the address of your Tipjar account ${p.username}.` },
          { action: { label: 'Confirm my address', href: p.link } },
          {
            p: `The link works once, until ${until(p.expiresAt)}. Confirm only if the account ${p.username} is yours: a confirmed address lets it claim the things and money registered for this address. If you did not sign up, ignore this message.`,
          },
        ],
      };
    }
    case 'password_reset': {
      const p = params as MailParams['password_reset'];
      return {
        subject: 'Reset your Tipjar password',
        body: [
          { p: `Hello ${p.username},` },
          { p: 'someone (hopefully you) asked to reset the password of your Tipjar account.' },
          { action: { label: 'Choose a new password', href: p.link } },
          {
            p: `The link works once, until ${until(p.expiresAt)}. If you did not ask for it, ignore this message: your password stays as it is.`,
          },
        ],
      };
    }
    case 'email_changed': {
      const p = params as MailParams['email_changed'];
      return {
        subject: 'Your Tipjar e-mail address was changed',
        body: [
          { p: `Hello ${p.username},` },
          { p: `the e-mail address of your Tipjar account was changed to ${p.newAddress}.` },
          {
            p: `If you did not do this, reset your password at ${site.siteUrl}/password/forgot and change the address back in your settings.`,
          },
        ],
      };
    }
    case 'receipt': {
      const p = params as MailParams['receipt'];
      const body: Block[] = [{ p: `Hello ${p.username}, here is your Tipjar receipt for ${p.period}.` }];
      if (p.paid.length) {
        const total = p.paid.reduce((n, l) => n + l.cents, 0);
        const budget = formatMoney(p.budgetCents, currency);
        body.push({
          p:
            total < p.budgetCents
              ? `Your monthly budget was ${budget}; your balance covered ${formatMoney(total, currency)}, which paid:`
              : `Your monthly budget of ${budget} paid:`,
        });
        body.push({ amounts: amounts(p.paid), total });
      }
      if (p.earned.length) {
        body.push({ p: 'Your things earned:' });
        body.push({ amounts: amounts(p.earned), total: p.earned.reduce((n, l) => n + l.cents, 0) });
      }
      body.push({ links: [{ label: 'Your earnings', href: `${site.siteUrl}/earnings` }] });
      return { subject: `Your Tipjar receipt for ${p.period}`, body };
    }
    case 'renewal_skipped': {
      const p = params as MailParams['renewal_skipped'];
      return {
        subject: `Your Tipjar subscriptions were not renewed for ${p.period}`,
        body: [
          { p: `Hello ${p.username},` },
          { p: `you had no means to tip in ${p.period}, so these subscriptions were not renewed this month:` },
          { links: p.things.map((t) => ({ label: t.title || t.url, href: `${site.siteUrl}/thing/${t.thingId}` })) },
          { p: 'Add money or set a monthly budget, and they renew again next month.' },
          { action: { label: 'Your money and budget', href: `${site.siteUrl}/settings` } },
        ],
      };
    }
    case 'thing_created': {
      const p = params as MailParams['thing_created'];
      return {
        subject: `A thing was registered in your name: ${p.title || p.url}`,
        body: [
          { p: `Hello ${p.username},` },
          {
            p: `someone tipped ${p.url} through an auto-submit link naming you, so it is now registered as your thing${p.title ? ` "${p.title}"` : ''}.`,
          },
          { p: 'If you do not want it, log in and hide it or delete it on its page:' },
          { action: { label: 'See the thing', href: `${site.siteUrl}/thing/${p.thingId}` } },
        ],
      };
    }
    case 'application_authorized': {
      const p = params as MailParams['application_authorized'];
      return {
        subject: `You authorized ${p.application} on Tipjar`,
        body: [
          { p: `Hello ${p.username},` },
          { p: `you allowed the application "${p.application}" to act for you (scopes: ${p.scopes || 'none'}).` },
          { p: 'If this was not you, revoke it and change your password:' },
          { action: { label: 'Authorized applications', href: `${site.siteUrl}/authorized` } },
        ],
      };
    }
  }
  throw new Error(`unknown mail kind: ${String(kind)}`);
}

function renderText(body: Block[], currency: string, unsubscribe?: string): string {
  const out: string[] = [];
  for (const b of body) {
    if ('p' in b) out.push(b.p);
    else if ('action' in b) out.push(`${b.action.label}:\n${b.action.href}`);
    else if ('links' in b) out.push(b.links.map((l) => `- ${l.label}: ${l.href}`).join('\n'));
    else {
      const rows = b.amounts.map((a) => `- ${a.label} (${a.href}): ${formatMoney(a.cents, currency)}`);
      if (b.total !== undefined) rows.push(`Total: ${formatMoney(b.total, currency)}`);
      out.push(rows.join('\n'));
    }
  }
  out.push('-- \nTipjar');
  if (unsubscribe) out.push(`To stop these e-mails: ${unsubscribe}`);
  return `${out.join('\n\n')}\n`;
}

function renderHtml(subject: string, body: Block[], currency: string, unsubscribe?: string): string {
  const e = escapeHtml;
  const parts = body.map((b) => {
    if ('p' in b) return `<p>${e(b.p)}</p>`;
    if ('action' in b)
      return (
        `<p><a href="${e(b.action.href)}" style="display:inline-block;padding:10px 16px;background:#2f6f4f;color:#fff;text-decoration:none;border-radius:4px">${e(b.action.label)}</a></p>\n` +
        `<p style="font-size:13px;color:#555;word-break:break-all">Or open this link: ${e(b.action.href)}</p>`
      );
    if ('links' in b)
      return `<ul>${b.links.map((l) => `<li><a href="${e(l.href)}">${e(l.label)}</a></li>`).join('')}</ul>`;
    const rows = b.amounts
      .map(
        (a) =>
          `<tr><td><a href="${e(a.href)}">${e(a.label)}</a></td><td align="right">${e(formatMoney(a.cents, currency))}</td></tr>`,
      )
      .join('');
    const total =
      b.total !== undefined
        ? `<tr><th align="left">Total</th><th align="right">${e(formatMoney(b.total, currency))}</th></tr>`
        : '';
    return `<table cellpadding="4" style="border-collapse:collapse">${rows}${total}</table>`;
  });
  const footer = unsubscribe
    ? `<p style="font-size:12px;color:#777">Tipjar · <a href="${e(unsubscribe)}">Unsubscribe from these e-mails</a></p>`
    : '<p style="font-size:12px;color:#777">Tipjar</p>';
  return (
    `<!doctype html>\n<html><head><meta charset="utf-8"><title>${e(subject)}</title></head>\n` +
    `<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#222;max-width:600px">\n` +
    `${parts.join('\n')}\n${footer}\n</body></html>\n`
  );
}

/**
 * The message of `kind` composed from `params`.
 * @throws Error for an unknown kind (e.g. a row written by a newer version).
 */
export function composeMail<K extends MailKind>(kind: K, params: MailParams[K], site: MailSite): ComposedMail {
  const { subject, body } = content(kind, params, site);
  const currency = site.currency ?? 'EUR';
  const unsubscribe = (params as { unsubscribe?: string }).unsubscribe;
  const headers: Record<string, string> = {};
  if (unsubscribe) {
    headers['List-Unsubscribe'] = `<${unsubscribe}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return {
    subject,
    text: renderText(body, currency, unsubscribe),
    html: renderHtml(subject, body, currency, unsubscribe),
    headers,
  };
}
