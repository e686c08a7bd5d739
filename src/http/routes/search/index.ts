/**
 * `GET /things/search` (api-v2.md "Things" and "Search result"; DECISIONS.md "Search",
 * "Pagination and `full`"). No token needed; with one, things carry the caller's per-viewer fields
 * and the caller's own hidden things are included. Documented in docs/api.md "Search".
 */
import type { FastifyInstance } from 'fastify';
import { CONTENT_TYPE } from '../../../formats/negotiation.ts';
import { pageOf, type ListQuery } from '../../params.ts';
import type { SearchFilters } from '../../../domain/search/index.ts';
import { parsed } from '../../schemas/wire.ts';
import { presentThingsFor, type RouteContext } from '../../context.ts';
import { presentSearchResult } from '../../presenters.ts';
import * as docs from './schemas.ts';
import { withConfig } from '../../schemas/common.ts';

export function searchRoutes(app: FastifyInstance, ctx: RouteContext): void {
  /**
   * GET /things/search — query `query`, `url`, `tags`, `language`, `category`, `user`, `sort`,
   * `page`, `count` (1–100, default 30), `full`.
   * 200 `{total_items, items, page, things}` with things in the full representation.
   * 400 `invalid_parameters` for a malformed tags expression, an unknown language, category, user
   * or sort, a bad url, count or page (see src/domain/search).
   */
  app.get<{ Querystring: ListQuery & SearchFilters }>(
    '/things/search',
    withConfig(docs.searchThings, { xmlRoot: 'search' }),
    async (request, reply) => {
      const { query } = parsed(request);
      const page = pageOf(query);
      const full = query.full;
      const search = ctx.services.search;
      if (!search) throw new Error('the search module is not configured');
      const answer = await search.find(query, page, request.principal, { full });
      if (answer.keptJson !== undefined) {
        // The bytes go out as they are for JSON; XML and JSONP are made from the JSON text (formats plugin).
        const plainJson = request.format === 'json' && request.jsonp === undefined;
        return reply.type(CONTENT_TYPE.json).send(plainJson ? answer.keptJson : answer.keptJson.toString('utf8'));
      }
      const things = await answer.things();
      const body = presentSearchResult(answer.total, page.page, await presentThingsFor(ctx, request, things, full));
      if (!answer.canKeepJson) return body;
      // JSON.stringify writes the same bytes as the route's compiled serializer: the SearchResult
      // schema is exact (src/http/schemas/representations.ts).
      const json = JSON.stringify(body);
      answer.keepJson(json);
      return reply.type(CONTENT_TYPE.json).send(json);
    },
  );
}
