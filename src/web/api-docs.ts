/**
 * `GET /docs/api`: the API's wire-format document, docs/api.md (DECISIONS.md "Wire format": every
 * `error_uri` points at an anchor of this page as a browser renders it; docs/adr/0017-api-docs-page.md).
 * HTML for browsers (src/web/markdown-page.ts: GitHub-style heading ids, the website's stylesheet,
 * no scripts), the markdown itself for `Accept: text/markdown`. The file is read when the route is
 * registered; the HTML is rendered once, at the first request that wants it (the renderer is only
 * loaded then, so start-up does not pay for it).
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { sourceFile } from '../paths.ts';

/** Where the page is served. */
export const API_DOCS_PATH = '/docs/api';

/** Headers of the HTML page: the stylesheet from this origin, no scripts, no framing. */
export const API_DOCS_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';

/**
 * Registers `GET /docs/api` (and HEAD) on `app`: reads `file` now, renders it to HTML once, at the
 * first request for HTML.
 * Answers the HTML page when the request prefers `text/html` (browsers), the markdown itself
 * (`text/markdown; charset=utf-8`) when it prefers `text/markdown` or sends no Accept or `*\/*`
 * (tools, and what this route always sent); an Accept that names neither gets the markdown too
 * (RFC 9110 §12.1 lets a server disregard Accept rather than answer 406). `Vary: Accept`.
 * @param file the markdown document, docs/api.md by default
 */
export function registerApiDocs(app: FastifyInstance, file: URL = sourceFile('../docs/api.md')): void {
  const markdown = readFileSync(file, 'utf8');
  let html: Promise<string> | undefined;
  app.get(API_DOCS_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('vary', 'Accept');
    // Offered with the charset sent, so `text/markdown;charset=utf-8` matches (RFC 9110 §12.5.1).
    const wanted = new Negotiator({ headers: { accept: request.headers.accept ?? '*/*' } }).mediaType([
      'text/markdown;charset=utf-8',
      'text/html;charset=utf-8',
    ]);
    if (wanted === 'text/html;charset=utf-8') {
      html ??= import('./markdown-page.ts')
        .then((m) => m.renderDocsPage(markdown).html)
        .catch((err: unknown) => {
          html = undefined; // a failed load is tried again by the next request
          throw err;
        });
      return reply
        .headers(API_DOCS_HEADERS)
        .type(HTML_TYPE)
        .send(await html);
    }
    return reply.type(MARKDOWN_TYPE).send(markdown);
  });
}
