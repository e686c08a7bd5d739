/**
 * The site's icon: GET /favicon.svg (the `<link rel="icon">` of every page) and GET /favicon.ico
 * (what browsers ask for by default; the same SVG). Both are public, cached for a day, and not
 * counted against the page limit (see FAVICON_PATHS).
 */
import type { FastifyInstance } from 'fastify';

/** The paths answered here; the page limit in index.ts skips them like the stylesheet. */
export const FAVICON_PATHS: ReadonlySet<string> = new Set(['/favicon.svg', '/favicon.ico']);

/** The logo as a standalone SVG document: a jar with a coin, on the header's dark background. */
const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="6" fill="#1d2430"/>' +
  '<path d="M7 11h18l-2 15a3 3 0 0 1-3 3h-8a3 3 0 0 1-3-3z" fill="#ffd54f"/>' +
  '<rect x="5" y="7" width="22" height="4" rx="2" fill="#fff"/>' +
  '<circle cx="16" cy="19" r="4" fill="#1d2430"/></svg>';

/** Registers GET /favicon.svg and GET /favicon.ico: `image/svg+xml`, `cache-control: public, max-age=86400`. */
export function siteAssetRoutes(app: FastifyInstance): void {
  for (const path of FAVICON_PATHS) {
    app.get(path, async (_request, reply) =>
      reply
        .type('image/svg+xml')
        .header('cache-control', 'public, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .send(FAVICON_SVG),
    );
  }
}
