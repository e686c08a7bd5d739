/**
 * Tips endpoints (api-v2.md "Endpoints / Tips", DECISIONS.md "Tips").
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { listOwnTips, listThingTips, listUserTips, tipThing, tipUrl } from '../../../domain/tips.ts';
import type { ThingRecord, TipRecord } from '../../../domain/records.ts';
import { requireScope, requireToken } from '../../plugins/authenticate.ts';
import { pageOf, type ListQuery } from '../../params.ts';
import { fullUsers, type RouteContext } from '../../context.ts';
import { ownerIds, presentThingConfirmation, presentTip } from '../../presenters.ts';
import type { ThingId } from '../../../domain/records.ts';
import { parsed } from '../../schemas/wire.ts';
import { FEED_LIST_FORMATS } from '../../../formats/negotiation.ts';
import { getUser } from '../../../domain/users.ts';
import { getThing, viewerState } from '../../../domain/things.ts';
import { thingPage } from '../../../formats/activitystreams.ts';
import { pageQuery, sendFeed, tipItems, userAuthor, wantsFeed } from '../../feeds.ts';
import * as docs from './schemas.ts';
import { withConfig } from '../../schemas/common.ts';

export function tipRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const s = ctx.services;

  /** Tips as the spec's Tip; with `full`, full things (with the caller's per-viewer fields) and full users. */
  async function presentTips(request: FastifyRequest<{ Querystring: ListQuery }>, tips: TipRecord[]) {
    if (!request.query.full) return tips.map((t) => presentTip(ctx.urls, t));
    const things = tips.map((t) => t.thing);
    const [users, viewer] = await Promise.all([
      fullUsers(ctx, true, [...ownerIds(things), ...tips.map((t) => t.tipper.id)]),
      viewerState(s, request.principal, things),
    ]);
    return tips.map((t) => presentTip(ctx.urls, t, users, viewer));
  }

  const confirmation = (thing: ThingRecord) => ({
    message: 'ok',
    description: 'Thing was successfully tipped',
    thing: presentThingConfirmation(ctx.urls, thing),
  });

  const config = { formats: FEED_LIST_FORMATS, xmlRoot: 'tips' };

  /**
   * GET /users/:username/tips — newest first, paged; 200 [] when the user hides their tips. Tips
   * on hidden things only for the things' owner, in every format (DECISIONS.md "Things").
   * `.as`/`.atom`: the same page of tips as `like` items.
   */
  app.get<{ Params: { username: string }; Querystring: ListQuery }>(
    '/users/:username/tips',
    withConfig(docs.listUserTips, config),
    async (request, reply) => {
      const page = pageOf(parsed(request).query);
      const tips = await listUserTips(s, request.params.username, request.principal, page);
      if (wantsFeed(request)) {
        const { username } = await getUser(s, request.params.username);
        const path = `/users/${encodeURIComponent(username)}/tips`;
        const items = tipItems(tips);
        return sendFeed(ctx, request, reply, items, {
          title: `Tips by ${username}`,
          path,
          query: pageQuery(page),
          author: userAuthor(ctx, username),
        });
      }
      return presentTips(request, tips);
    },
  );

  /** GET /user/tips — the caller's tips (token, any scope), hidden things as above. `.as`/`.atom`: as `like` items. */
  app.get<{ Querystring: ListQuery }>('/user/tips', withConfig(docs.listOwnTips, config), async (request, reply) => {
    const principal = requireToken(request);
    const page = pageOf(parsed(request).query);
    const tips = await listOwnTips(s, principal, page);
    if (wantsFeed(request)) {
      const { username } = principal;
      const path = `/users/${encodeURIComponent(username)}/tips`;
      const items = tipItems(tips);
      return sendFeed(ctx, request, reply, items, {
        title: `Tips by ${username}`,
        path,
        query: pageQuery(page),
        author: userAuthor(ctx, username),
      });
    }
    return presentTips(request, tips);
  });

  /**
   * GET /things/:id/tips — who tipped a thing (token required, any scope); [] for a hidden thing
   * unless the caller owns it. `.as`/`.atom`: as `like` items; the Atom feed's author is the
   * thing's owner.
   */
  app.get<{ Params: { id: ThingId }; Querystring: ListQuery }>(
    '/things/:id/tips',
    withConfig(docs.listThingTips, config),
    async (request, reply) => {
      const principal = requireToken(request);
      const { params, query } = parsed(request);
      const page = pageOf(query);
      const id = params.id;
      const tips = await listThingTips(s, principal, id, page);
      if (wantsFeed(request)) {
        const thing = await getThing(s, id);
        const author =
          thing.owner.kind === 'user' ? userAuthor(ctx, thing.owner.username) : { name: thing.owner.identity };
        const title = `Tips on "${thing.title !== '' ? thing.title : thing.url}"`;
        const feed = {
          title,
          path: `/things/${thing.id}/tips`,
          query: pageQuery(page),
          alternateUrl: thingPage(ctx.urls.site, thing.id),
          author,
        };
        return sendFeed(ctx, request, reply, tipItems(tips), feed);
      }
      return presentTips(request, tips);
    },
  );

  /** POST /things/:id/tip (scope `tip`) — 200 `{message: "ok", description, thing}` (8-field thing). */
  app.post<{ Params: { id: ThingId } }>('/things/:id/tip', docs.tipThing, async (request) => {
    const principal = requireScope(request, 'tip');
    const thing = await tipThing(s, principal, parsed(request).params.id);
    app.countTip();
    return confirmation(thing);
  });

  /** POST /tip (scope `tip`) with `{url}` — a registered URL or an auto-submit URL. */
  app.post<{ Body: { url: string } }>('/tip', docs.tipUrl, async (request) => {
    const principal = requireScope(request, 'tip');
    const thing = await tipUrl(s, principal, parsed(request).body.url);
    app.countTip();
    return confirmation(thing);
  });
}
