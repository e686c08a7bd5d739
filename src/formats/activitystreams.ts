/**
 * JSON Activity Streams 1.0 (api-v2.md "Activity stream", DECISIONS.md "Activities"): the
 * `application/stream+json` rendering of activities, tips and things, and the small ActivityItem
 * model every feed format (this one and Atom, src/formats/atom.ts) renders from. Pure functions:
 * no database, no clock, no request.
 */

/** What happened: `like` (a tip), `post` (a thing registered), `follow` (a subscription started). */
export type ActivityVerb = 'like' | 'post' | 'follow';

/** One feed entry, independent of the format it is rendered in. */
export interface ActivityItem {
  /** the stored id of the record the item stands for: the activity row, the tip or the thing */
  id: number;
  verb: ActivityVerb;
  /** when it happened, Unix seconds */
  published: number;
  /** the actor's username */
  actor: string;
  /** the thing acted on; `url` is the URL the thing stands for (shown when it has no title) */
  thing: { id: number; title: string; url: string };
}

/** The JSON Activity Streams item, keys in the order of the original API's example. */
export interface StreamItem {
  published: string;
  title: string;
  actor: { displayName: string; url: string; objectType: 'person' };
  verb: ActivityVerb;
  object: { displayName: string; url: string; objectType: 'bookmark' };
  id: string;
}

/**
 * ISO 8601 date-time with an explicit offset, always UTC: `2012-01-04T10:07:12+00:00`.
 * @param unix Unix seconds
 */
export function isoWithOffset(unix: number): string {
  return new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** The website's profile page of a user: `{site}/profile/<username>`. */
export function profilePage(siteUrl: string, username: string): string {
  return `${siteUrl}/profile/${encodeURIComponent(username)}`;
}

/** The website's page of a thing: `{site}/thing/<id>` (the same address as a thing's `link`). */
export function thingPage(siteUrl: string, thingId: number): string {
  return `${siteUrl}/thing/${thingId}`;
}

/** How a thing is named in feeds: its title, or its URL when it has none. */
export function thingName(thing: ActivityItem['thing']): string {
  return thing.title !== '' ? thing.title : thing.url;
}

const TITLE_VERB: Record<ActivityVerb, string> = { like: 'tipped', post: 'registered', follow: 'subscribed to' };

/** `{username} tipped "{title}"`, `{username} registered "{title}"`, `{username} subscribed to "{title}"`. */
export function activityTitle(item: ActivityItem): string {
  return `${item.actor} ${TITLE_VERB[item.verb]} "${thingName(item.thing)}"`;
}

/**
 * The item's tag URI (RFC 4151), unique per item (RFC 4287 §4.2.6, DECISIONS.md "Activities"):
 * `tag:{site_host},{YYYY-MM-DD}:{username}/{verb}/{thing_id}/{item id}`, the date being the UTC
 * day of `published`, the host the website's host name (without port, which a tag URI cannot
 * carry) and the item id its stored record's id (ActivityItem.id).
 */
export function activityId(siteUrl: string, item: ActivityItem): string {
  const host = new URL(siteUrl).hostname;
  const day = isoWithOffset(item.published).slice(0, 10);
  return `tag:${host},${day}:${item.actor}/${item.verb}/${item.thing.id}/${item.id}`;
}

/** One item in the JSON Activity Streams representation. */
export function presentStreamItem(siteUrl: string, item: ActivityItem): StreamItem {
  return {
    published: isoWithOffset(item.published),
    title: activityTitle(item),
    actor: { displayName: item.actor, url: profilePage(siteUrl, item.actor), objectType: 'person' },
    verb: item.verb,
    object: { displayName: thingName(item.thing), url: thingPage(siteUrl, item.thing.id), objectType: 'bookmark' },
    id: activityId(siteUrl, item),
  };
}

/** The activity stream body `{items: [...]}` (no other top-level fields), items in the order given. */
export function presentActivityStream(siteUrl: string, items: readonly ActivityItem[]): { items: StreamItem[] } {
  return { items: items.map((i) => presentStreamItem(siteUrl, i)) };
}

/** The activity stream as the `application/stream+json` response text. */
export function renderActivityStream(siteUrl: string, items: readonly ActivityItem[]): string {
  return JSON.stringify(presentActivityStream(siteUrl, items));
}
