/**
 * Discovery (DECISIONS.md "Discovery", notes §14): an unregistered URL given to `POST /tip` is
 * fetched — GET, 5 s overall, at most 1 MiB, at most 3 redirects, through the URL guard (private,
 * loopback and link-local addresses refused, every redirect hop checked too) — and its HTML or
 * RSS/Atom feed is searched with a real parser (htmlparser2) for
 * `<link rel="payment" href="{site_url}/submit/auto?…">` (in feeds also `<atom:link rel="payment">`).
 * The first such link that is an auto-submit URL of this site is the answer; `POST /tip` then
 * treats it as if it had been given.
 *
 * Results (found or not, failures included) are kept for an hour (cache.ts): in the process's
 * memory, or in Redis when `REDIS_URL` is set, so that every instance uses what one fetched;
 * concurrent look-ups of one URL in a process share one fetch. A document larger than 1 MiB is not
 * searched.
 */
import { Parser } from 'htmlparser2';
import { parseAutoSubmit, parseHttpUrl, urlKey } from '../domain/urls.ts';
import { FetchError, guardedRequest } from '../webhooks/fetch.ts';
import type { Resolver } from '../webhooks/guard.ts';
import type { Discovery } from '../domain/services.ts';
import { memoryDiscoveryCache, type DiscoveryCache } from './cache.ts';

export interface DiscoveryOptions {
  /** origin of this site: only auto-submit URLs at `{siteUrl}/submit/auto` count */
  siteUrl: string;
  /** let private/loopback addresses through (DISCOVERY_ALLOW_PRIVATE; tests only) */
  allowPrivate?: boolean;
  /** overall deadline per look-up, ms (default 5000) */
  timeoutMs?: number;
  /** largest document searched, bytes (default 1 MiB) */
  maxBytes?: number;
  /** redirects followed (default 3) */
  maxRedirects?: number;
  /** how long a result is kept, seconds (default 3600) */
  cacheSeconds?: number;
  /** most results kept by the default cache (this process's memory); the oldest goes first (default 10 000) */
  cacheEntries?: number;
  /** where results are kept (default: this process's memory, `cacheEntries` of them); Redis: cache.ts */
  cache?: DiscoveryCache;
  /** current time in ms (default Date.now), for the cache */
  now?: () => number;
  resolver?: Resolver;
}

export type { Discovery };

const ACCEPT =
  'text/html, application/xhtml+xml, application/atom+xml, application/rss+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1';

/** True when a document should be parsed as XML (a feed) rather than HTML. */
function isXml(contentType: string, body: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/xhtml+xml' || type === 'text/html') return false;
  if (type.endsWith('+xml') || type === 'application/xml' || type === 'text/xml') return true;
  return /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<(rss|feed|rdf:RDF)[\s>]/i.test(body);
}

/**
 * The `href` of every `<link>` (in feeds also any `<prefix:link>`, e.g. `atom:link`) whose `rel`
 * contains the token `payment`, in document order, entities decoded.
 * @param xml parse as XML (feeds: case and prefixes kept) instead of HTML.
 */
export function findPaymentLinks(document: string, xml: boolean): string[] {
  const found: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const local = name.toLowerCase().replace(/^.*:/, '');
        if (local !== 'link' || attribs.href === undefined) return;
        const rel = (attribs.rel ?? '').toLowerCase().split(/\s+/);
        if (rel.includes('payment')) found.push(attribs.href.trim());
      },
    },
    { xmlMode: xml, decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.write(document);
  parser.end();
  return found;
}

/** The first payment link of a document that is an auto-submit URL of `siteUrl`, absolute. */
export function findAutoSubmitLink(
  document: string,
  contentType: string,
  baseUrl: string,
  siteUrl: string,
): string | null {
  for (const href of findPaymentLinks(document, isXml(contentType, document))) {
    let absolute: string;
    try {
      absolute = new URL(href, baseUrl).href;
    } catch {
      continue;
    }
    if (parseAutoSubmit(absolute, siteUrl)) return absolute;
  }
  return null;
}

/** A Discovery with its cache (one per process; built by buildApp from the settings). */
export function createDiscovery(opts: DiscoveryOptions): Discovery {
  const now = opts.now ?? Date.now;
  const ttlMs = (opts.cacheSeconds ?? 3600) * 1000;
  const cache = opts.cache ?? memoryDiscoveryCache(opts.cacheEntries ?? 10_000);
  const inFlight = new Map<string, Promise<string | null>>();

  async function fetchAndFind(url: string): Promise<string | null> {
    try {
      const res = await guardedRequest({
        url,
        method: 'GET',
        headers: { accept: ACCEPT, 'user-agent': 'Tipjar-Discovery/1' },
        timeoutMs: opts.timeoutMs ?? 5000,
        maxBytes: opts.maxBytes ?? 1024 * 1024,
        maxRedirects: opts.maxRedirects ?? 3,
        allowPrivate: opts.allowPrivate,
        resolver: opts.resolver,
      });
      if (res.status < 200 || res.status >= 300 || res.tooLarge) return null;
      const contentType = String(res.headers['content-type'] ?? '');
      return findAutoSubmitLink(res.body.toString('utf8'), contentType, res.finalUrl, opts.siteUrl);
    } catch (err) {
      if (err instanceof FetchError) return null;
      throw err;
    }
  }

  /** The kept result of `key`, else the page fetched and searched, its result then kept for the TTL. */
  async function lookUp(key: string, href: string): Promise<string | null> {
    const hit = await cache.get(key, now());
    if (hit) return hit.value;
    const value = await fetchAndFind(href);
    const at = now();
    await cache.set(key, value, at, at + ttlMs);
    return value;
  }

  return {
    async discover(url) {
      const parsed = parseHttpUrl(url);
      if (!parsed) return null;
      const key = urlKey(parsed);
      const running = inFlight.get(key);
      if (running) return running;
      const p = lookUp(key, parsed.href).finally(() => inFlight.delete(key));
      inFlight.set(key, p);
      return p;
    },
  };
}
