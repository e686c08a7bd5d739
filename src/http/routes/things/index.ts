/**
 * Things endpoints (api-v2.md "Endpoints / Things", DECISIONS.md "Things").
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  createThing,
  deleteThing,
  getThing,
  getThings,
  listOwnThings,
  listUserThings,
  lookupThing,
  MAX_MULTI_GET,
  ownThing,
  updateThing,
} from '../../../domain/things.ts';
import { InvalidParametersError, InvalidRequestError } from '../../../domain/errors.ts';
import { requireScope, requireToken } from '../../plugins/authenticate.ts';
import { idCount, MAX_ID_DIGITS, pageOf, type ListQuery } from '../../params.ts';
import { methodOverride, presentThingsFor, type RouteContext } from '../../context.ts';
import { newThing, thingChanges, type ThingBody } from '../../../domain/thing-input.ts';
import type { PageRequest, ThingId } from '../../../domain/records.ts';
import { parsed } from '../../schemas/wire.ts';
import { FEED_LIST_FORMATS } from '../../../formats/negotiation.ts';
import { getUser } from '../../../domain/users.ts';
import { pageQuery, sendFeed, thingItems, userAuthor, wantsFeed } from '../../feeds.ts';
import * as docs from './schemas.ts';
import { withConfig } from '../../schemas/common.ts';

/**
 * The longest `:ids` segment of `GET /things/:id,:id` that holds MAX_MULTI_GET ids of the longest
 * accepted form (MAX_ID_DIGITS digits), each with its comma (a trailing one included). The router's
 * `maxParamLength` (app.ts) is at least this; a format suffix is stripped before routing.
 */
export const ID_LIST_MAX_LENGTH = MAX_MULTI_GET * (MAX_ID_DIGITS + 1);

/**
 * The answer to a `GET /things/:ids` path (relative to the API prefix, query string allowed) whose
 * segment the router refused as longer than its `maxParamLength`: such a segment of ids holds more
 * than MAX_MULTI_GET of them → InvalidParametersError, as the route itself would answer. Undefined
 * for any other path (the caller answers 404 `not_found`).
 */
export function overlongIdListError(method: string, path: string): InvalidParametersError | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const m = /^\/things\/([^/?]+)\/?(?:\?|$)/.exec(path);
  if (!m) return undefined;
  let raw: string;
  try {
    raw = decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
  if (raw.length <= ID_LIST_MAX_LENGTH) return undefined;
  const count = idCount(raw);
  return count > MAX_MULTI_GET
    ? new InvalidParametersError(`At most ${MAX_MULTI_GET} ids, comma-separated; ${count} were given`, 'things')
    : undefined;
}

export function thingRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const s = ctx.services;
  const thingUrl = (id: number) => `${ctx.urls.api}/things/${id}`;

  const feedConfig = { formats: FEED_LIST_FORMATS, xmlRoot: 'things' };
  const thingsFeed = (username: string, page: PageRequest) => ({
    title: `Things by ${username}`,
    path: `/users/${encodeURIComponent(username)}/things`,
    query: pageQuery(page),
    author: userAuthor(ctx, username),
  });

  /**
   * GET /users/:username/things — a user's things, newest first, paged; hidden ones only for the
   * owner. `.as`/`.atom`: the same things as `post` items by their owner (src/http/feeds.ts).
   */
  app.get<{ Params: { username: string }; Querystring: ListQuery }>(
    '/users/:username/things',
    withConfig(docs.listUserThings, feedConfig),
    async (request, reply) => {
      const { query } = parsed(request);
      const page = pageOf(query);
      const full = query.full;
      const things = await listUserThings(s, request.params.username, request.principal, page);
      if (wantsFeed(request)) {
        const { username } = await getUser(s, request.params.username);
        return sendFeed(ctx, request, reply, thingItems(things), thingsFeed(username, page));
      }
      return presentThingsFor(ctx, request, things, full);
    },
  );

  /** GET /user/things — the caller's things (token, any scope), hidden included. `.as`/`.atom`: as `post` items. */
  app.get<{ Querystring: ListQuery }>(
    '/user/things',
    withConfig(docs.listOwnThings, feedConfig),
    async (request, reply) => {
      const principal = requireToken(request);
      const { query } = parsed(request);
      const page = pageOf(query);
      const full = query.full;
      const things = await listOwnThings(s, principal, page);
      if (wantsFeed(request))
        return sendFeed(ctx, request, reply, thingItems(things), thingsFeed(principal.username, page));
      return presentThingsFor(ctx, request, things, full);
    },
  );

  /**
   * GET /things/lookup/?url= — 302 with Location and `{message: "found", location}`, or 404 with
   * `{message: "not_found", description}` (the spec's own body, not the error shape).
   */
  app.get<{ Querystring: { url: string } }>('/things/lookup', docs.lookupThing, async (request, reply) => {
    const thing = await lookupThing(s, parsed(request).query.url);
    if (!thing) return reply.code(404).send({ message: 'not_found', description: 'No thing was found' });
    const location = thingUrl(thing.id);
    return reply.code(302).header('location', location).send({ message: 'found', location });
  });

  /**
   * GET /things/:id and GET /things/:id,:id — one thing, or an array in the order asked
   * (DECISIONS.md "Things"). Errors: 404 `not_found` when any id is unknown or not an id; more than
   * MAX_MULTI_GET ids → 400 `invalid_parameters`.
   */
  app.get<{ Params: { ids: ThingId | ThingId[] }; Querystring: { full: boolean } }>(
    '/things/:ids',
    withConfig(docs.getThings, { xmlRoot: 'things' }),
    async (request) => {
      const { params, query } = parsed(request);
      if (Array.isArray(params.ids)) return presentThingsFor(ctx, request, await getThings(s, params.ids), query.full);
      const thing = await getThing(s, params.ids);
      return (await presentThingsFor(ctx, request, [thing], query.full))[0];
    },
  );

  /** POST /things (scope `thing`) — 201 `{id, link, message: "ok", description}`; `link` is the API URL. */
  app.post<{ Body: ThingBody & { url: { url: string; key: string } } }>(
    '/things',
    docs.createThing,
    async (request, reply) => {
      const principal = requireScope(request, 'thing');
      const { body } = parsed(request);
      const id = await createThing(s, principal, newThing(body.url, body));
      return reply
        .code(201)
        .send({ id, link: thingUrl(id), message: 'ok', description: 'Thing was created successfully' });
    },
  );

  type Update = FastifyRequest<{ Params: { ids: ThingId }; Body: ThingBody & { url?: string } }>;
  const update = async (request: Update) => {
    const principal = requireScope(request, 'thing');
    // The thing and its owner are checked before the body's fields (404, 403, then 400).
    if (request.validationError?.validationContext === 'body')
      await ownThing(s, principal, request.params.ids, 'update');
    const { params, body } = parsed(request);
    await updateThing(s, principal, params.ids, thingChanges(body.url, body));
    return { message: 'ok', description: 'Thing was updated correctly' };
  };

  /** PATCH /things/:id (scope `thing`, owner only) — 200 `{message: "ok", description}`. */
  app.patch<{ Params: { ids: ThingId }; Body: ThingBody & { url?: string } }>(
    '/things/:ids',
    docs.updateThing,
    (request) => update(request),
  );

  /** POST /things/:id with `_method=patch` (query, form or JSON body) — the PATCH workaround. */
  app.post<{ Params: { ids: ThingId }; Body: ThingBody & { url?: string } }>(
    '/things/:ids',
    docs.updateThingOverride,
    async (request) => {
      if (methodOverride(request) !== 'patch') {
        throw new InvalidRequestError('POST on a thing needs _method=patch (the PATCH workaround)', 'things');
      }
      return update(request);
    },
  );

  /** DELETE /things/:id (scope `thing`, owner only) — 204, empty body. */
  app.delete<{ Params: { ids: ThingId } }>('/things/:ids', docs.deleteThing, async (request, reply) => {
    const principal = requireScope(request, 'thing');
    await deleteThing(s, principal, parsed(request).params.ids);
    return reply.code(204).send();
  });
}
