/**
 * Feeds on the API: activities, tips and things rendered as JSON Activity Streams (`.as`,
 * `application/stream+json`) or Atom (`.atom`, `application/atom+xml;charset=utf-8`)
 * (api-v2.md conventions 3, DECISIONS.md "Activities"). Routes map their records to ActivityItems
 * here and call sendFeed when the negotiated format is a feed format.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ActivityRecord } from '../domain/activities.ts';
import type { PageRequest, ThingRecord, TipRecord } from '../domain/records.ts';
import { profilePage, renderActivityStream, type ActivityItem } from '../formats/activitystreams.ts';
import { feedUpdated, renderAtomFeed } from '../formats/atom.ts';
import { CONTENT_TYPE } from '../formats/negotiation.ts';
import type { RouteContext } from './context.ts';
import { DEFAULT_COUNT } from './params.ts';

/** True when the request asked for a feed format (`as` or `atom`). */
export const wantsFeed = (request: FastifyRequest): boolean => request.format === 'as' || request.format === 'atom';

/** Activity rows as feed items (verb, time, actor, thing). */
export function activityItems(activities: readonly ActivityRecord[]): ActivityItem[] {
  return activities.map((a) => ({
    id: a.id,
    verb: a.verb,
    published: a.createdAt,
    actor: a.actor.username,
    thing: a.thing,
  }));
}

/** Tips as `like` items: the tipper tipped the thing, at the tip's time. */
export function tipItems(tips: readonly TipRecord[]): ActivityItem[] {
  return tips.map((t) => ({
    id: t.id,
    verb: 'like',
    published: t.createdAt,
    actor: t.tipper.username,
    thing: { id: t.thing.id, title: t.thing.title, url: t.thing.url },
  }));
}

/** Things as `post` items: the owner registered the thing, at its creation time (user-owned things only). */
export function thingItems(things: readonly ThingRecord[]): ActivityItem[] {
  return things.flatMap((t) =>
    t.owner.kind === 'user'
      ? [
          {
            id: t.id,
            verb: 'post' as const,
            published: t.createdAt,
            actor: t.owner.username,
            thing: { id: t.id, title: t.title, url: t.url },
          },
        ]
      : [],
  );
}

/** What a route says about its feed; the rest (self link, updated, entries) is derived. */
export interface FeedDescription {
  title: string;
  /**
   * canonical path of the feed under the API root, without suffix, e.g. `/users/bob/activities`
   * (the `/user/...` forms name the user, so every user's feed has its own id)
   */
  path: string;
  /** query parameters that select what the feed holds (e.g. `type`, `page`, `count`), in order */
  query?: ReadonlyArray<[string, string]>;
  /** the website page the feed is about */
  alternateUrl?: string;
  author: { name: string; uri?: string };
}

/** The paging of a list feed as canonical query parameters (only those that differ from the defaults). */
export function pageQuery(page: PageRequest): Array<[string, string]> {
  const q: Array<[string, string]> = [];
  if (page.count !== DEFAULT_COUNT) q.push(['count', String(page.count)]);
  if (page.page !== 1) q.push(['page', String(page.page)]);
  return q;
}

/** The website profile of a user, as a feed author. */
export const userAuthor = (ctx: RouteContext, username: string) => ({
  name: username,
  uri: profilePage(ctx.urls.site, username),
});

/** The address the request was made at, as a `.atom` URL on the public origin (`jsonp` dropped). */
function selfUrl(ctx: RouteContext, request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  const path = (q === -1 ? request.url : request.url.slice(0, q)).replace(/\/+$/, '');
  const params = new URLSearchParams(q === -1 ? '' : request.url.slice(q + 1));
  params.delete('jsonp');
  const query = params.toString();
  return `${ctx.publicUrl}${path}.atom${query ? `?${query}` : ''}`;
}

/**
 * Sends `items` in the negotiated feed format: `as` → `{items: [...]}` as `application/stream+json`
 * (JSONP-wrapped by the formats plugin when `jsonp` is given); `atom` → an Atom document whose id is
 * the canonical `.atom` address of `feed.path` (+ `feed.query`), whose self link is the address
 * requested, and whose `updated` is the newest item's time (now for an empty feed).
 * Call only when wantsFeed(request).
 */
export function sendFeed(
  ctx: RouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
  items: readonly ActivityItem[],
  feed: FeedDescription,
): FastifyReply {
  const site = ctx.urls.site;
  if (request.format === 'as') return reply.type(CONTENT_TYPE.as).send(renderActivityStream(site, items));
  const query = feed.query?.length ? `?${new URLSearchParams([...feed.query]).toString()}` : '';
  const body = renderAtomFeed(
    site,
    {
      id: `${ctx.urls.api}${feed.path}.atom${query}`,
      title: feed.title,
      selfUrl: selfUrl(ctx, request),
      alternateUrl: feed.alternateUrl,
      updated: feedUpdated(items, ctx.services.clock.now()),
      author: feed.author,
    },
    items,
  );
  return reply.type(CONTENT_TYPE.atom).send(body);
}
