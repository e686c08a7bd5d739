/**
 * What a creator puts on their own site for a thing: an SVG badge with its tip count, a small
 * button page meant for an `<iframe>` (the one page of the site any other site may frame), and a
 * script that turns marked links into buttons with counts; and the copy-paste snippets for the
 * three, shown to the thing's owner on the thing page (views/thing-embed.eta).
 *
 * None of these sets a cookie or needs one: they are the same for every visitor, so they are
 * cacheable (`Cache-Control: public`, a strong `ETag`, `If-None-Match` → 304). A hidden, deleted or
 * unknown thing is a 404 that tells nothing of which it is.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/index.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { ThingRecord } from '../../domain/records.ts';
import { getThing } from '../../domain/things.ts';
import { xmlSafe } from '../../formats/xml.ts';
import { sourceFile } from '../../paths.ts';
import type { WebContext } from '../context.ts';

/** Seconds a badge or a button page may be cached by browsers and proxies (counts may lag this much). */
export const EMBED_MAX_AGE = 300;
/** Seconds button.js may be cached. */
export const SCRIPT_MAX_AGE = 3600;
/** Longest thing title (in code points) a badge or button names before it is cut with `…`. */
const TITLE_MAX = 100;

/** A thing that may be shown on other sites: known, not deleted, not hidden; else undefined. */
async function embeddableThing(ctx: WebContext, rawId: string): Promise<ThingRecord | undefined> {
  if (!/^\d{1,15}$/.test(rawId)) return undefined;
  try {
    const thing = await getThing(ctx.services, Number(rawId));
    return thing.hidden ? undefined : thing;
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** Escapes `& < > " '` for XML and HTML text and attribute values, dropping what XML 1.0 cannot carry. */
export function escapeMarkup(text: string): string {
  return xmlSafe(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** The thing's name for others: its title, or its URL when untitled, cut to TITLE_MAX code points. */
function thingName(thing: ThingRecord): string {
  const chars = Array.from((thing.title || thing.url).replace(/\s+/g, ' ').trim());
  return chars.length > TITLE_MAX ? `${chars.slice(0, TITLE_MAX - 1).join('')}…` : chars.join('');
}

/** "1 tip", "1,234 tips". */
export function tipsText(count: number): string {
  return `${new Intl.NumberFormat('en').format(count)} tip${count === 1 ? '' : 's'}`;
}

/** Rough width in px of `text` in 11 px Verdana (digits and most letters ≈ 7 px). */
function textWidth(text: string): number {
  let w = 0;
  for (const c of text) w += /[ilj.,:;!|' ]/.test(c) ? 3.5 : /[mwMW]/.test(c) ? 10 : 7;
  return Math.ceil(w);
}

/**
 * The badge of `thing`: a 20 px high SVG "tipjar | N tips" whose `<title>` (and `aria-label`)
 * names the thing and the count. Well-formed XML; every text escaped.
 */
export function badgeSvg(thing: ThingRecord): string {
  const label = 'tipjar';
  const value = tipsText(thing.tips);
  const lw = textWidth(label) + 12;
  const vw = textWidth(value) + 12;
  const w = lw + vw;
  const name = escapeMarkup(`“${thingName(thing)}” on Tipjar: ${value}`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" viewBox="0 0 ${w} 20" role="img" aria-label="${name}">`,
    `<title>${name}</title>`,
    '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>',
    `<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>`,
    `<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="#1d2430"/><rect x="${lw}" width="${vw}" height="20" fill="#0b5fff"/><rect width="${w}" height="20" fill="url(#s)"/></g>`,
    '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">',
    `<text x="${lw / 2}" y="14">${label}</text><text x="${lw + vw / 2}" y="14">${escapeMarkup(value)}</text>`,
    '</g></svg>',
    '',
  ].join('\n');
}

/** The button page's only style (allowed by its hash in the page's CSP). */
const BUTTON_CSS =
  'html,body{margin:0;padding:0;background:transparent}' +
  'a{display:inline-flex;align-items:stretch;height:28px;border-radius:14px;overflow:hidden;text-decoration:none;' +
  'font:600 14px/28px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;border:1px solid #0b5fff;box-sizing:border-box}' +
  'a:focus-visible{outline:3px solid #ffb000;outline-offset:-3px}' +
  '.t{background:#0b5fff;color:#fff;padding:0 10px}' +
  '.n{background:#fff;color:#1d2430;padding:0 10px}' +
  'a:hover .t{background:#0049d1}';
const BUTTON_CSP =
  "default-src 'none'; style-src 'sha256-" +
  createHash('sha256').update(BUTTON_CSS).digest('base64') +
  "'; img-src 'none'; frame-ancestors *; base-uri 'none'; form-action 'none'";

/**
 * The button page of `thing`: a link "♥ Tip | N" to the thing page on `siteUrl`, opening in a new
 * tab (`target="_blank" rel="noopener"`), named for screen readers with the thing and the count.
 */
export function buttonHtml(thing: ThingRecord, siteUrl: string): string {
  const name = thingName(thing);
  const count = new Intl.NumberFormat('en').format(thing.tips);
  const label = escapeMarkup(`Tip “${name}” on Tipjar (${tipsText(thing.tips)}; opens in a new tab)`);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${escapeMarkup(`Tip “${name}” on Tipjar`)}</title>`,
    `<style>${BUTTON_CSS}</style>`,
    '</head><body>',
    `<a href="${escapeMarkup(`${siteUrl}/thing/${thing.id}`)}" target="_blank" rel="noopener" aria-label="${label}" title="${label}">` +
      `<span class="t" aria-hidden="true">♥ Tip</span><span class="n" aria-hidden="true">${count}</span></a>`,
    '</body></html>',
    '',
  ].join('\n');
}

/** A strong ETag of `body`. */
function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** Whether `If-None-Match` names `etag` (weak comparison, RFC 9110 §13.1.2) or is `*`. */
function notModified(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/**
 * Sends `body` with `type`, public caching for `maxAge` seconds and a strong ETag, or an empty 304
 * (same validators) when the request's `If-None-Match` names it. `headers` are sent with both.
 */
function sendCacheable(
  request: FastifyRequest,
  reply: FastifyReply,
  type: string,
  body: string,
  maxAge: number,
  headers: Record<string, string>,
): FastifyReply {
  const etag = etagOf(body);
  reply
    .headers(headers)
    .header('cache-control', `public, max-age=${maxAge}`)
    .header('etag', etag)
    .header('x-content-type-options', 'nosniff');
  if (notModified(request, etag)) return reply.code(304).send();
  return reply.code(200).type(type).send(body);
}

/** The one sentence of an embed's 404. */
export const NOT_FOUND_TEXT = 'This thing is not on Tipjar.';
const NOT_FOUND_HTML = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><p>${NOT_FOUND_TEXT}</p></body></html>\n`;

/**
 * The 404 of an embed: a bare HTML page (no layout, so no cookie), the same for unknown, deleted
 * and hidden things; framable, so a frame shows the sentence.
 */
function notFound(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; frame-ancestors *")
    .type('text/html; charset=utf-8')
    .send(NOT_FOUND_HTML);
}

/** The copy-paste snippets of a thing's badge, button and script (views/thing-embed.eta). */
export interface EmbedSnippets {
  badgeHtml: string;
  badgeMarkdown: string;
  buttonHtml: string;
  /** a Markdown link to the thing page: Markdown has no frames and no scripts */
  linkMarkdown: string;
  scriptHtml: string;
}

/**
 * The snippets a thing's owner copies into their site or README, all with absolute addresses on
 * SITE_URL: the badge (HTML and Markdown, linking to the thing page), the button page in an
 * iframe, and a `tipjar-button` link with `data-tipjar-thing` plus the one script tag.
 */
export function embedSnippets(config: Config, thing: ThingRecord): EmbedSnippets {
  const page = `${config.siteUrl}/thing/${thing.id}`;
  const badgeUrl = `${page}/badge.svg`;
  return {
    badgeHtml: `<a href="${page}"><img src="${badgeUrl}" alt="Tip on Tipjar" height="20"></a>`,
    badgeMarkdown: `[![Tip on Tipjar](${badgeUrl})](${page})`,
    buttonHtml: `<iframe src="${page}/button" title="Tip on Tipjar" width="150" height="28" style="border:0" loading="lazy"></iframe>`,
    linkMarkdown: `[Tip on Tipjar](${page})`,
    scriptHtml:
      `<a class="tipjar-button" data-tipjar-thing="${thing.id}" href="${page}">Tip on Tipjar</a>\n` +
      `<script src="${config.siteUrl}/js/button.js" async></script>`,
  };
}

/** button.js with the site's and the API's addresses filled in (src/web/static/button.js). */
function buttonScript(config: Config): string {
  return readFileSync(sourceFile('web/static/button.js'), 'utf8')
    .replace("'__TIPJAR_SITE__'", JSON.stringify(config.siteUrl))
    .replace("'__TIPJAR_API__'", JSON.stringify(`${config.publicUrl}/rest/v2`));
}

/** Registers GET /thing/:id/badge.svg, GET /thing/:id/button and GET /js/button.js on the website plugin. */
export function embedRoutes(app: FastifyInstance, ctx: WebContext): void {
  const script = buttonScript(ctx.config);

  /**
   * GET /thing/:id/badge.svg — the thing's badge (`image/svg+xml`): its tip count (all time, as
   * `tips` in the API's thing), `role="img"` with a `<title>` naming the thing. Cached publicly for
   * EMBED_MAX_AGE seconds, strong ETag, `If-None-Match` → 304. Hidden, deleted or unknown → 404.
   */
  app.get<{ Params: { id: string } }>('/thing/:id/badge.svg', async (request, reply) => {
    const thing = await embeddableThing(ctx, request.params.id);
    if (!thing) return notFound(reply);
    return sendCacheable(request, reply, 'image/svg+xml; charset=utf-8', badgeSvg(thing), EMBED_MAX_AGE, {
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    });
  });

  /**
   * GET /thing/:id/button — the button page for an `<iframe>` on any site: "♥ Tip | N" linking to
   * the thing page in a new tab. The one website page any site may frame (CSP
   * `frame-ancestors *`, no `X-Frame-Options`); no script, no cookie set, the same for every
   * visitor (cached publicly for EMBED_MAX_AGE seconds, ETag, 304). Hidden, deleted or unknown → 404.
   */
  app.get<{ Params: { id: string } }>('/thing/:id/button', async (request, reply) => {
    const thing = await embeddableThing(ctx, request.params.id);
    if (!thing) return notFound(reply);
    return sendCacheable(
      request,
      reply,
      'text/html; charset=utf-8',
      buttonHtml(thing, ctx.config.siteUrl),
      EMBED_MAX_AGE,
      { 'content-security-policy': BUTTON_CSP, 'referrer-policy': 'strict-origin-when-cross-origin' },
    );
  });

  /**
   * GET /js/button.js — the script a creator includes once on their own pages (`text/javascript`,
   * cached publicly for SCRIPT_MAX_AGE seconds, ETag, 304). It turns `a.tipjar-button` links to
   * `{SITE_URL}/submit/auto?url=…` and elements with `data-tipjar-thing="id"` into buttons with
   * the thing's tip count, read from the public API (CORS: any origin). The site's own pages load
   * no script.
   */
  app.get('/js/button.js', async (request, reply) =>
    sendCacheable(request, reply, 'text/javascript; charset=utf-8', script, SCRIPT_MAX_AGE, {}),
  );
}
