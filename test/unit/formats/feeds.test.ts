/**
 * The pure feed renderers (src/formats/activitystreams.ts, src/formats/atom.ts): ISO times with
 * offset, tag URIs (host without port), titles per verb, escaping and XML-invalid characters.
 */
import { describe, expect, it } from 'vitest';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import {
  activityId,
  activityTitle,
  isoWithOffset,
  presentActivityStream,
  type ActivityItem,
} from '../../../src/formats/activitystreams.ts';
import { feedUpdated, renderAtomFeed } from '../../../src/formats/atom.ts';

const SITE = 'http://localhost:3000';
const item = (over: Partial<ActivityItem> = {}): ActivityItem => ({
  id: 7,
  verb: 'like',
  published: Date.UTC(2012, 0, 4, 23, 59, 59) / 1000,
  actor: 'pthulin',
  thing: { id: 459394, title: 'Acoustid', url: 'https://acoustid.org/' },
  ...over,
});

describe('activity streams', () => {
  it('writes times as ISO 8601 with a +00:00 offset, to the second', () => {
    expect(isoWithOffset(0)).toBe('1970-01-01T00:00:00+00:00');
    expect(isoWithOffset(Date.UTC(2012, 0, 4, 10, 7, 12) / 1000)).toBe('2012-01-04T10:07:12+00:00');
  });

  it('builds the tag URI from the site host without port and the UTC day of publication', () => {
    expect(activityId(SITE, item())).toBe('tag:localhost,2012-01-04:pthulin/like/459394/7');
    expect(activityId('https://tips.example.org', item({ id: 8, verb: 'post', published: item().published + 1 }))).toBe(
      'tag:tips.example.org,2012-01-05:pthulin/post/459394/8',
    );
  });

  it('gives items that differ only by their stored id different tag URIs (RFC 4287 §4.2.6)', () => {
    expect(activityId(SITE, item({ id: 1 }))).not.toBe(activityId(SITE, item({ id: 2 })));
  });

  it('titles each verb; a thing without a title is named by its URL', () => {
    expect(activityTitle(item())).toBe('pthulin tipped "Acoustid"');
    expect(activityTitle(item({ verb: 'post' }))).toBe('pthulin registered "Acoustid"');
    expect(activityTitle(item({ verb: 'follow' }))).toBe('pthulin subscribed to "Acoustid"');
    expect(activityTitle(item({ thing: { id: 1, title: '', url: 'https://x.example/' } }))).toBe(
      'pthulin tipped "https://x.example/"',
    );
  });

  it('presents {items} with the keys in the original order and escaped profile URLs', () => {
    const body = presentActivityStream(SITE, [item({ actor: 'a-b_c' })]);
    expect(Object.keys(body)).toEqual(['items']);
    expect(body.items[0]).toEqual({
      published: '2012-01-04T23:59:59+00:00',
      title: 'a-b_c tipped "Acoustid"',
      actor: { displayName: 'a-b_c', url: `${SITE}/profile/a-b_c`, objectType: 'person' },
      verb: 'like',
      object: { displayName: 'Acoustid', url: `${SITE}/thing/459394`, objectType: 'bookmark' },
      id: 'tag:localhost,2012-01-04:a-b_c/like/459394/7',
    });
    expect(Object.keys(body.items[0]!)).toEqual(['published', 'title', 'actor', 'verb', 'object', 'id']);
  });
});

describe('atom', () => {
  const meta = {
    id: `${SITE}/rest/v2/users/x/activities.atom`,
    title: 'T & <t>',
    selfUrl: `${SITE}/a.atom?x=1&y=2`,
    updated: 0,
    author: { name: 'x' },
  };
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    isArray: (n) => n === 'entry' || n === 'link',
  });

  it('escapes markup and drops characters XML 1.0 cannot carry, staying well-formed', () => {
    const doc = renderAtomFeed(SITE, meta, [
      item({ thing: { id: 1, title: 'A\u0000B\u0008C <i>&amp;\uFFFE "q"', url: 'https://x/' } }),
    ]);
    expect(XMLValidator.validate(doc)).toBe(true);
    expect(doc).not.toMatch(/[\u0000\u0008\uFFFE]/);
    const feed = parser.parse(doc).feed;
    expect(feed.title).toBe('T & <t>');
    expect(feed.link[0]['@_href']).toBe(`${SITE}/a.atom?x=1&y=2`);
    expect(feed.entry[0]['activity:object'].title).toBe('ABC <i>&amp; "q"');
    expect(feed.author).toEqual({ name: 'x' });
  });

  it('an empty feed has no entries and the fallback time; updated is the newest entry otherwise', () => {
    const feed = parser.parse(renderAtomFeed(SITE, { ...meta, updated: feedUpdated([], 86400) }, [])).feed;
    expect(feed.entry).toBeUndefined();
    expect(feed.updated).toBe('1970-01-02T00:00:00+00:00');
    expect(feedUpdated([item({ published: 5 }), item({ published: 9 }), item({ published: 7 })], 0)).toBe(9);
  });
});
