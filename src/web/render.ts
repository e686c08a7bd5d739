/**
 * Server-rendered pages with Eta templates from src/web/views (docs/adr: auto-escaping
 * is on, so `<%= … %>` escapes `& < > " '` everywhere; raw `<%~ … %>` is used only for the
 * layout's body). Every page is sent with security headers: no framing (clickjacking on the
 * consent page), no sniffing, a strict Content-Security-Policy (no scripts at all: the site works
 * without JavaScript), same-origin referrers, and `Cache-Control: no-store` (pages carry CSRF
 * tokens, secrets shown once and personal data).
 */
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Eta } from 'eta';
import { csrfToken } from './csrf.ts';
import { clearFlash } from './flash.ts';
import { sourceFile } from '../paths.ts';

const eta = new Eta({ views: fileURLToPath(sourceFile('web/views')), autoEscape: true, cache: true });

/** Headers sent with every HTML page. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' https: http: data:; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

/**
 * Formatting helpers available to templates as `it.h`, for amounts in `currency` (ISO 4217,
 * CURRENCY): `money(cents)` → e.g. `€12.34` (English formatting, always two decimals: Tipjar
 * keeps hundredths of the unit) and `units(cents)` → `12.34`, the value of an amount input.
 * `funding` (default true): whether the site takes money in (PAYMENT_PROVIDER is not `none`), so
 * the header links to `/funds`.
 */
export function makeHelpers(currency: string, opts: { funding?: boolean } = {}) {
  const format = new Intl.NumberFormat('en', {
    style: 'currency',
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
  return {
    /** Unix seconds → `YYYY-MM-DD` (UTC). */
    date: (unixSeconds: number) => (unixSeconds > 0 ? new Date(unixSeconds * 1000).toISOString().slice(0, 10) : ''),
    /** cents → `€12.34` in the site's currency */
    money: (cents: number) => format.format(cents / 100),
    /** cents → `12.34`, for amount inputs in currency units */
    units: (cents: number) =>
      `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`,
    /** the currency's code, e.g. `EUR` */
    currency,
    /** A URL for `href`/`src` only when it is http(s); '' otherwise (no `javascript:` links). */
    safeUrl: (url: string) => (/^https?:\/\//i.test(url) ? url : ''),
    /** The website path of a user's profile. */
    profile: (username: string) => `/profile/${encodeURIComponent(username)}`,
    /** whether the site takes money in: the header links to `/funds` only then */
    funding: opts.funding ?? true,
  };
}

/** The template helpers for pages rendered without the site's configuration (bare error pages). */
export const helpers = makeHelpers('EUR');

/** What every page's template receives besides its own data. */
export interface PageContext {
  title: string;
  /** the logged-in user, for the navigation */
  user: { username: string } | undefined;
  /** a CSRF token for the page's forms */
  csrf: string;
  /** a one-line confirmation to show above the page ("Saved.") */
  notice?: string;
  h: typeof helpers;
}

/** Renders a template to HTML (without sending). */
export function renderTemplate(view: string, data: Record<string, unknown>): string {
  return eta.render(view, data);
}

/**
 * Renders `view` with `data` inside the layout and sends it as `text/html; charset=utf-8` with
 * PAGE_HEADERS and `status`.
 * @param secure whether cookies must be Secure (the site is https): the CSRF cookie may be set.
 * @param h the template helpers (makeHelpers with the site's CURRENCY; default `helpers`).
 */
export function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  view: string,
  data: Record<string, unknown> & { title: string; notice?: string },
  opts: { status?: number; secure: boolean; h?: typeof helpers },
): FastifyReply {
  const session = request.webSession;
  const it: PageContext & Record<string, unknown> = {
    ...data,
    user: session && { username: session.username },
    csrf: csrfToken(request, reply, opts.secure),
    h: opts.h ?? helpers,
  };
  const html = renderTemplate(view, it);
  // A one-time notice is shown by this page (or by none): it must not come back on a reload.
  clearFlash(request, reply, opts.secure);
  return reply
    .code(opts.status ?? 200)
    .headers(PAGE_HEADERS)
    .type('text/html; charset=utf-8')
    .send(html);
}
