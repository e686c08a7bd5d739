/**
 * The things service (src/domain/things.ts) called directly, without HTTP, on every engine: what
 * it writes, what it refuses (typed domain errors, nothing written), and what its writes announce
 * after they commit (db/transaction.ts onCommit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServices, ENGINES } from '../helpers/db.ts';
import { fixedClock } from '../helpers/app.ts';
import { buildUser, principalOf, uniqueName, type TestUser } from '../helpers/factories.ts';
import {
  createThing,
  deleteThing,
  getThing,
  getThings,
  listOwnThings,
  listUserThings,
  MAX_MULTI_GET,
  updateThing,
} from '../../src/domain/things.ts';
import { listOwnActivities } from '../../src/domain/activities.ts';
import { parseNewThing } from '../../src/domain/thing-input.ts';
import { parseThingIds } from '../../src/http/params.ts';
import { ForbiddenError, InvalidParametersError, NotFoundError, ValidationError } from '../../src/domain/errors.ts';
import { onCommit, type Change } from '../../src/db/transaction.ts';
import type { Services } from '../../src/domain/services.ts';

const T0 = Date.UTC(2026, 2, 10, 12) / 1000;

describe.each(ENGINES)('the things service on %s', (engine) => {
  const clock = fixedClock(T0);
  let s: Services;
  let drop: () => Promise<void>;
  let owner: TestUser;
  let other: TestUser;
  const url = () => `https://example.com/${uniqueName('thing')}`;

  beforeAll(async () => {
    ({ s, drop } = await createTestServices(engine, { clock }));
    owner = await buildUser(s);
    other = await buildUser(s);
  });
  afterAll(async () => drop());

  it("createThing registers the caller's thing with a `post` activity, and announces it after the commit", async () => {
    const heard: Change[] = [];
    const stop = onCommit(s.database, (changes) => heard.push(...changes));
    try {
      const id = await createThing(
        s,
        principalOf(owner.user),
        parseNewThing({
          url: url(),
          title: 'A title',
          tags: 'one,Two',
          hidden: 'true',
        }),
      );
      const thing = await getThing(s, id);
      expect(thing).toMatchObject({
        id,
        title: 'A title',
        tags: ['one', 'Two'],
        hidden: true,
        owner: { kind: 'user', userId: owner.user.id, username: owner.user.username },
        tips: 0,
        createdAt: T0,
        updatedAt: 0,
      });
      expect(heard).toEqual([{ kind: 'things', ids: [id], matching: true }]);
      const activities = await listOwnActivities(s, principalOf(owner.user), 'outgoing');
      expect(activities[0]).toMatchObject({ verb: 'post', thing: { id } });
    } finally {
      stop();
    }
  });

  it('createThing refuses a bad or already registered url with ValidationError and writes nothing', async () => {
    const before = await listOwnThings(s, principalOf(owner.user), { page: 1, count: 100 });
    expect(() => parseNewThing({ url: 'ftp://example.com/x' })).toThrow(ValidationError);
    const taken = url();
    const first = await createThing(s, principalOf(owner.user), parseNewThing({ url: taken }));
    await expect(createThing(s, principalOf(other.user), parseNewThing({ url: taken }))).rejects.toThrow(
      `already registered as thing ${first}`,
    );
    const after = await listOwnThings(s, principalOf(owner.user), { page: 1, count: 100 });
    expect(after.map((t) => t.id)).toEqual([first, ...before.map((t) => t.id)]);
    expect(await listOwnThings(s, principalOf(other.user), { page: 1, count: 100 })).toEqual([]);
  });

  it('updateThing changes only the given fields and sets updatedAt, for the owner only', async () => {
    const id = await createThing(
      s,
      principalOf(owner.user),
      parseNewThing({ url: url(), title: 'before', description: 'kept' }),
    );
    await expect(updateThing(s, principalOf(other.user), id, { title: 'theirs' })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect((await getThing(s, id)).title).toBe('before');
    clock.advance(60);
    await updateThing(s, principalOf(owner.user), id, { title: 'after', language: 'de_DE' });
    expect(await getThing(s, id)).toMatchObject({
      title: 'after',
      description: 'kept',
      language: 'de_DE',
      updatedAt: clock.now(),
    });
    await expect(updateThing(s, principalOf(owner.user), id, { url: url() })).rejects.toBeInstanceOf(ValidationError);
  });

  it('deleteThing hides the thing from every read; hidden things are listed for their owner only', async () => {
    const visible = await createThing(s, principalOf(owner.user), parseNewThing({ url: url() }));
    const hidden = await createThing(s, principalOf(owner.user), parseNewThing({ url: url(), hidden: true }));
    const page = { page: 1, count: 100 };
    const ids = async (viewer: TestUser | undefined) =>
      (await listUserThings(s, owner.user.username, viewer && principalOf(viewer.user), page)).map((t) => t.id);
    expect(await ids(owner)).toEqual(expect.arrayContaining([visible, hidden]));
    expect(await ids(other)).toContain(visible);
    expect(await ids(other)).not.toContain(hidden);
    expect(await ids(undefined)).not.toContain(hidden);
    await expect(deleteThing(s, principalOf(other.user), visible)).rejects.toBeInstanceOf(ForbiddenError);
    await deleteThing(s, principalOf(owner.user), visible);
    await expect(getThing(s, visible)).rejects.toBeInstanceOf(NotFoundError);
    expect(await ids(owner)).not.toContain(visible);
  });

  it('getThings answers in the order asked, each thing once; one unknown id is NotFoundError; too many ids InvalidParametersError at the edge', async () => {
    const a = await createThing(s, principalOf(owner.user), parseNewThing({ url: url() }));
    const b = await createThing(s, principalOf(owner.user), parseNewThing({ url: url() }));
    expect((await getThings(s, [b, a, b])).map((t) => t.id)).toEqual([b, a]);
    await expect(getThings(s, [a, 999_999_999])).rejects.toBeInstanceOf(NotFoundError);
    await expect(getThings(s, [a, -1])).rejects.toBeInstanceOf(NotFoundError);
    expect(() => parseThingIds(Array.from({ length: MAX_MULTI_GET + 1 }, () => a).join(','))).toThrow(
      InvalidParametersError,
    );
    expect(() => parseThingIds(`${a},x`)).toThrow(NotFoundError);
    expect(parseThingIds(`${b},${a},${b},`)).toEqual([b, a]);
  });
});
