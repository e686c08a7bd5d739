/**
 * Activities endpoints (api-v2.md "Endpoints / Activities", DECISIONS.md "Activities"): feeds only,
 * `.as` (`application/stream+json`, the default) or `.atom` (`application/atom+xml`); JSON and XML
 * are 406 `not_acceptable`. Query `type`: `outgoing` (default) or `incoming`, else 400
 * `invalid_parameters`. The newest 100 items, not paged.
 */
import type { FastifyInstance } from 'fastify';
import { listOwnActivities, listUserActivities, type ActivityDirection } from '../../../domain/activities.ts';
import { ACTIVITY_FORMATS } from '../../../formats/negotiation.ts';
import { profilePage } from '../../../formats/activitystreams.ts';
import { requireToken } from '../../plugins/authenticate.ts';
import { parsed } from '../../schemas/wire.ts';
import type { RouteContext } from '../../context.ts';
import { activityItems, sendFeed, userAuthor, type FeedDescription } from '../../feeds.ts';
import * as docs from './schemas.ts';
import { withConfig } from '../../schemas/common.ts';

export function activityRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const s = ctx.services;
  const config = { formats: ACTIVITY_FORMATS };

  const describe = (username: string, direction: ActivityDirection): FeedDescription => ({
    title: direction === 'outgoing' ? `Activities of ${username}` : `Activities on things of ${username}`,
    path: `/users/${encodeURIComponent(username)}/activities`,
    query: direction === 'incoming' ? [['type', 'incoming']] : [],
    alternateUrl: profilePage(ctx.urls.site, username),
    author: userAuthor(ctx, username),
  });

  /**
   * GET /users/:username/activities — public. 404 `not_found` for an unknown user. Hidden things
   * appear only when the caller (token) owns them.
   */
  app.get<{ Params: { username: string }; Querystring: { type: ActivityDirection } }>(
    '/users/:username/activities',
    withConfig(docs.userActivities, config),
    async (request, reply) => {
      const direction = parsed(request).query.type;
      const { user, activities } = await listUserActivities(s, request.params.username, request.principal, direction);
      return sendFeed(ctx, request, reply, activityItems(activities), describe(user.username, direction));
    },
  );

  /** GET /user/activities — the caller's activities (token, any scope; else 401 `unauthorized`). */
  app.get<{ Querystring: { type: ActivityDirection } }>(
    '/user/activities',
    withConfig(docs.ownActivities, config),
    async (request, reply) => {
      const principal = requireToken(request);
      const direction = parsed(request).query.type;
      const activities = await listOwnActivities(s, principal, direction);
      return sendFeed(ctx, request, reply, activityItems(activities), describe(principal.username, direction));
    },
  );
}
