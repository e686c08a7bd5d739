/**
 * searchThingIds (db/repositories/search.ts) for the tip sorts of a word search, read straight
 * from the repository on every engine: the page, its total, and for the windowed sorts and
 * `trend` the second at which the clock alone may first reorder it (`changesAt`: the oldest tip
 * in the window leaving it, or a tip dated after the search entering it; absent without either).
 * A page past the end still tells the total. A word of more things than PostgreSQL scores one by
 * one (its scored things are then read first) orders the same way, filtered, with its owner's
 * hidden match, or with a second word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { urlKey, parseHttpUrl } from '../../src/domain/urls.ts';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, uniqueName, type TestUser } from '../helpers/factories.ts';
import { searchThingIds, SORT_WINDOWS, TREND_WINDOW, type SearchSort } from '../../src/db/repositories/search.ts';

const NOW = Date.UTC(2026, 8, 1, 9) / 1000;

describe.each(ENGINES)('tip sorts of a word search, from the repository, on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser;
  let tipper: TestUser;
  const clock = fixedClock(NOW);

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
    owner = await buildUser(t.services);
    tipper = await buildUser(t.services);
  });
  afterAll(async () => t.close());

  const freshWord = () => uniqueName('edge').replace(/[^a-z0-9]/g, '');
  const tip = async (id: number) =>
    expect(
      (await t.app.inject({ method: 'POST', url: `${API}/things/${id}/tip`, headers: bearer(tipper.token) }))
        .statusCode,
    ).toBe(200);
  const search = (word: string, sort: SearchSort, now: number, page = 1, count = 10) =>
    searchThingIds(t.db.database, { words: [word], sort, now, page, count });

  it('orders by the tips in the window and tells when the oldest of them leaves it', async () => {
    const word = freshWord();
    const older = await buildThing(t.services, owner, { title: `${word} older` });
    const tipped = await buildThing(t.services, owner, { title: `${word} tipped` });
    const newer = await buildThing(t.services, owner, { title: `${word} newer` });
    const tippedAt = clock.now();
    await tip(tipped);
    const now = tippedAt + 60;
    for (const [sort, window] of [
      ['tips_day', SORT_WINDOWS.tips_day],
      ['tips_week', SORT_WINDOWS.tips_week],
      ['tips_month', SORT_WINDOWS.tips_month],
      ['trend', TREND_WINDOW],
    ] as const) {
      // Every tip of the database counts for the edge, not only the matches': this one is the oldest.
      expect(await search(word, sort, now), sort).toEqual({
        total: 3,
        ids: [tipped, newer, older],
        changesAt: tippedAt + window,
      });
    }
    expect(await search(word, 'tips', now)).toEqual({ total: 3, ids: [tipped, newer, older] });
    // Second page of two: the rest; a page past the end: no ids, the total still told.
    expect(await search(word, 'tips_week', now, 2, 2)).toMatchObject({ total: 3, ids: [older] });
    expect(await search(word, 'tips_week', now, 3, 2)).toMatchObject({ total: 3, ids: [] });
    expect(await search(freshWord(), 'tips_week', now)).toMatchObject({ total: 0, ids: [] });
    clock.advance(SORT_WINDOWS.tips_month + 1);
  });

  it('a word of thousands of things: the tipped ones first, by their tips, then the newest', async () => {
    const word = freshWord();
    const many = 2_600;
    for (let from = 0; from < many; from += 500) {
      await t.db.database.db
        .insertInto('things')
        .values(
          Array.from({ length: Math.min(500, many - from) }, (_, k) => {
            const url = `https://example.org/${word}/${from + k}`;
            return {
              url,
              url_key: urlKey(parseHttpUrl(url)!),
              title: `${word} number ${from + k}`,
              category: 'other',
              language: 'en',
              owner_user_id: owner.user.id,
              created_at: clock.now(),
            };
          }),
        )
        .execute();
    }
    const ids = (
      await t.db.database.db
        .selectFrom('things')
        .select('id')
        .where('url', 'like', `https://example.org/${word}/%`)
        .execute()
    )
      .map((r) => r.id)
      .sort((a, b) => b - a);
    expect(ids).toHaveLength(many);
    const [once, twice] = [ids[1_000]!, ids[2_000]!];
    const hidden = await buildThing(t.services, owner, { title: `${word} hidden`, tags: word, hidden: true });
    const other = await buildUser(t.services);
    await tip(once);
    await tip(twice);
    expect(
      (await t.app.inject({ method: 'POST', url: `${API}/things/${twice}/tip`, headers: bearer(other.token) }))
        .statusCode,
    ).toBe(200);
    const now = clock.now() + 1;
    for (const sort of ['tips', 'tips_day', 'trend'] as const) {
      const first = await search(word, sort, now, 1, 5);
      expect(first, sort).toMatchObject({ total: many, ids: [twice, once, ...ids.slice(0, 3)] });
      expect(await search(word, sort, now, 2, 5), sort).toMatchObject({ total: many, ids: ids.slice(3, 8) });
      // Pages of one: each part of the page is read only as far as the page reaches.
      for (const [page, id] of [twice, once, ids[0]].entries())
        expect(await search(word, sort, now, page + 1, 1), sort).toMatchObject({ total: many, ids: [id] });
      // A filter every match passes, and the owner's own hidden match (the newest), counted too.
      const criteria = { words: [word], sort, now, page: 1, count: 5 };
      expect(await searchThingIds(t.db.database, { ...criteria, categories: ['other'] }), sort).toMatchObject({
        total: many,
        ids: [twice, once, ...ids.slice(0, 3)],
      });
      expect(
        await searchThingIds(t.db.database, {
          ...criteria,
          viewerUserId: owner.user.id,
          tags: { kind: 'tag', tag: word },
        }),
        sort,
      ).toMatchObject({ total: 1, ids: [hidden] });
      expect(await searchThingIds(t.db.database, { ...criteria, viewerUserId: owner.user.id }), sort).toMatchObject({
        total: many + 1,
        ids: [twice, once, hidden, ...ids.slice(0, 2)],
      });
      // Two words, each held by thousands of things: on PostgreSQL their bound (the rarer word's
      // things) also sends the search to the scored things first; the owner's hidden thing lacks
      // the second word.
      const both = { ...criteria, words: [word, 'number'], viewerUserId: owner.user.id };
      expect(await searchThingIds(t.db.database, both), sort).toMatchObject({
        total: many,
        ids: [twice, once, ...ids.slice(0, 3)],
      });
      expect(await searchThingIds(t.db.database, { ...both, page: 2 }), sort).toMatchObject({
        total: many,
        ids: ids.slice(3, 8),
      });
    }
    clock.advance(TREND_WINDOW + 1);
  });

  it('tells when a tip dated after the search enters its window', async () => {
    const word = freshWord();
    const a = await buildThing(t.services, owner, { title: `${word} a` });
    const b = await buildThing(t.services, owner, { title: `${word} b` });
    const tippedAt = clock.now();
    await tip(a);
    expect(await search(word, 'tips_day', tippedAt - 100)).toEqual({ total: 2, ids: [b, a], changesAt: tippedAt });
    clock.advance(TREND_WINDOW + 1);
    // Every tip out of every window and none ahead: only a write can change the page.
    expect(await search(word, 'tips_day', clock.now())).toEqual({ total: 2, ids: [b, a] });
  });
});
