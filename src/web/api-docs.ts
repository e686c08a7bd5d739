/**
 * `GET /docs/api`: the API's wire-format document, docs/api.md (DECISIONS.md "Wire format": every
 * `error_uri` points at an anchor of this page as a browser renders it; docs/adr/0017-api-docs-page.md).
 * HTML for browsers, inside the website's layout (src/web/markdown-page.ts: GitHub-style heading
 * ids, no scripts), the markdown itself for `Accept: text/markdown`. The file is read when the
 * route is registered; its HTML is rendered once, at the first request that wants it (the
 * renderer is only loaded then, so start-up does not pay for it).
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import Negotiator from 'negotiator';
import { sourceFile } from '../paths.ts';
import type { WebContext } from './context.ts';
import type { RenderedDocs } from './markdown-page.ts';

/** Where the page is served. */
export const API_DOCS_PATH = '/docs/api';

const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';

/**
 * Registers `GET /docs/api` (and HEAD) on the website plugin: reads `file` now, renders it to HTML
 * once, at the first request for HTML.
 * Answers the HTML page (the site's layout and headers, src/web/render.ts) when the request
 * prefers `text/html` (browsers), the markdown itself (`text/markdown; charset=utf-8`) when it
 * prefers `text/markdown` or sends no Accept or `*\/*` (tools, and what this route always sent);
 * an Accept that names neither gets the markdown too (RFC 9110 §12.1 lets a server disregard
 * Accept rather than answer 406). `Vary: Accept`.
 * @param file the markdown document, docs/api.md by default
 */
export function apiDocsRoutes(app: FastifyInstance, ctx: WebContext, file: URL = sourceFile('../docs/api.md')): void {
  const markdown = readFileSync(file, 'utf8');
  let rendered: Promise<RenderedDocs> | undefined;
  app.get(API_DOCS_PATH, async (request, reply) => {
    reply.header('vary', 'Accept');
    // Offered with the charset sent, so `text/markdown;charset=utf-8` matches (RFC 9110 §12.5.1).
    const wanted = new Negotiator({ headers: { accept: request.headers.accept ?? '*/*' } }).mediaType([
      'text/markdown;charset=utf-8',
      'text/html;charset=utf-8',
    ]);
    if (wanted !== 'text/html;charset=utf-8') return reply.type(MARKDOWN_TYPE).send(markdown);
    rendered ??= import('./markdown-page.ts')
      .then((m) => m.renderDocs(markdown))
      .catch((err: unknown) => {
        rendered = undefined; // a failed load is tried again by the next request
        throw err;
      });
    const docs = await rendered;
    return ctx.page(request, reply, './docs', { title: docs.title, docs: docs.html, mainClass: 'doc' });
  });
}
