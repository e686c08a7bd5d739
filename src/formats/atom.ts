/**
 * Atom 1.0 (RFC 4287) with the Activity Streams 1.0 Atom extensions (namespace
 * `http://activitystrea.ms/spec/1.0/`, verbs and object types as
 * `http://activitystrea.ms/schema/1.0/<name>`): the `application/atom+xml` rendering of
 * activities, tips and things (api-v2.md conventions 3, DECISIONS.md "Activities"). Built with
 * fast-xml-parser's XMLBuilder (docs/adr/0010-activity-feeds.md), which escapes text and attribute values; characters
 * XML 1.0 cannot carry are dropped first. Pure functions: no database, no clock, no request.
 */
import { XMLBuilder } from 'fast-xml-parser';
import {
  activityId,
  activityTitle,
  isoWithOffset,
  profilePage,
  thingName,
  thingPage,
  type ActivityItem,
} from './activitystreams.ts';
import { xmlSafe } from './xml.ts';

export const ATOM_NS = 'http://www.w3.org/2005/Atom';
export const ACTIVITY_NS = 'http://activitystrea.ms/spec/1.0/';
export const ACTIVITY_SCHEMA = 'http://activitystrea.ms/schema/1.0/';

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: true,
  indentBy: '  ',
  suppressEmptyNode: true,
  processEntities: true,
});

/** What describes a feed as a whole. */
export interface AtomFeedMeta {
  /** permanent, unique IRI of the feed (the canonical address of its first page) */
  id: string;
  title: string;
  /** the address this document was fetched from (`rel="self"`) */
  selfUrl: string;
  /** the website page the feed is about (`rel="alternate"`), e.g. a profile page */
  alternateUrl?: string;
  /** Unix seconds; the newest entry's `published` when there are entries */
  updated: number;
  /** the feed's author: whose activities, tips or things these are */
  author: { name: string; uri?: string };
}

const link = (rel: string, type: string, href: string) => ({ '@_rel': rel, '@_type': type, '@_href': xmlSafe(href) });

function entry(siteUrl: string, item: ActivityItem): Record<string, unknown> {
  const page = thingPage(siteUrl, item.thing.id);
  const published = isoWithOffset(item.published);
  return {
    id: xmlSafe(activityId(siteUrl, item)),
    title: xmlSafe(activityTitle(item)),
    published,
    updated: published,
    link: link('alternate', 'text/html', page),
    author: {
      name: xmlSafe(item.actor),
      uri: xmlSafe(profilePage(siteUrl, item.actor)),
      'activity:object-type': `${ACTIVITY_SCHEMA}person`,
    },
    'activity:verb': `${ACTIVITY_SCHEMA}${item.verb}`,
    'activity:object': {
      'activity:object-type': `${ACTIVITY_SCHEMA}bookmark`,
      id: page,
      title: xmlSafe(thingName(item.thing)),
      link: link('alternate', 'text/html', page),
    },
  };
}

/**
 * Renders an Atom feed document (UTF-8, with XML declaration).
 * @param siteUrl website origin, for profile and thing pages and the entries' tag URIs
 * @param meta the feed's id, title, self link, optional alternate link, updated time and author
 * @param items entries in the order given (newest first by convention)
 * @returns the document text, for `application/atom+xml;charset=utf-8`
 */
export function renderAtomFeed(siteUrl: string, meta: AtomFeedMeta, items: readonly ActivityItem[]): string {
  const links = [link('self', 'application/atom+xml', meta.selfUrl)];
  if (meta.alternateUrl !== undefined) links.push(link('alternate', 'text/html', meta.alternateUrl));
  const author: Record<string, string> = { name: xmlSafe(meta.author.name) };
  if (meta.author.uri !== undefined) author.uri = xmlSafe(meta.author.uri);
  const feed = {
    '@_xmlns': ATOM_NS,
    '@_xmlns:activity': ACTIVITY_NS,
    id: xmlSafe(meta.id),
    title: xmlSafe(meta.title),
    updated: isoWithOffset(meta.updated),
    link: links,
    author,
    entry: items.map((i) => entry(siteUrl, i)),
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({ feed }) as string}`;
}

/** The feed's `updated`: the newest entry's time, or `fallback` (Unix seconds) for an empty feed. */
export function feedUpdated(items: readonly ActivityItem[], fallback: number): number {
  return items.length === 0 ? fallback : Math.max(...items.map((i) => i.published));
}
