/**
 * `GET /things/search` (api-v2.md "Things" and "Search result"; DECISIONS.md "Search",
 * "Pagination and `full`"). No token needed; with one, things carry the caller's per-viewer fields
 * and the caller's own hidden things are included. Documented in docs/api.md "Search".
 */
import type { FastifyInstance } from 'fastify';
import { searchThings } from '../../../domain/search.ts';
import { parseFull, parsePage, type Query } from '../../params.ts';
import { presentThingsFor, type RouteContext } from '../../context.ts';
import { presentSearchResult } from '../../presenters.ts';
import * as docs from './schemas.ts';

export function searchRoutes(app: FastifyInstance, ctx: RouteContext): void {
  /**
   * GET /things/search — query `query`, `url`, `tags`, `language`, `category`, `user`, `sort`,
   * `page`, `count` (1–100, default 30), `full`.
   * 200 `{total_items, items, page, things}` with things in the full representation.
   * 400 `invalid_parameters` for a malformed tags expression, an unknown language, category, user
   * or sort, a bad url, count or page (see domain/search.ts).
   */
  app.get<{ Querystring: Query }>('/things/search', { ...docs.searchThings, config: { xmlRoot: 'search' } }, async (request) => {
    const page = parsePage(request.query);
    const full = parseFull(request.query);
    const result = await searchThings(ctx.services, request.query, page, request.principal);
    return presentSearchResult(result.total, result.page, await presentThingsFor(ctx, request, result.things, full));
  });
}
