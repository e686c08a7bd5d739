/**
 * The edge (docs/adr/0022-edge-parsing-and-serialization.md): input parsed once by the routes'
 * compiled validators (`x-wire` parsers, src/http/schemas/wire.ts) and responses serialized by
 * their representation schemas, byte for byte what the presenters build.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { ENGINES } from '../helpers/db.ts';
import { API, bearer, buildTestApp, fixedClock, PUBLIC_URL, type TestApp } from '../helpers/app.ts';
import { buildThing, buildUser, principalOf, type TestUser } from '../helpers/factories.ts';
import { expectError } from '../helpers/errors.ts';
import { wireValidatorCompiler } from '../../src/http/schemas/wire.ts';
import { documented, LIST_PARAMS } from '../../src/http/schemas/common.ts';
import { WIRE } from '../../src/http/params.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { getThing, viewerState } from '../../src/domain/things.ts';
import { getUserById, getUsersByIds } from '../../src/domain/users.ts';
import { presentThing, presentUser, type Urls } from '../../src/http/presenters.ts';
import { getBudget } from '../../src/domain/money/account.ts';

const START = 1_700_000_000;

type Outcome = boolean | { value?: unknown; error?: unknown };

/** Runs the compiled validator of `schema` for `httpPart` over `data`. */
function run(schema: unknown, httpPart: string, data: unknown): Outcome {
  const validate = wireValidatorCompiler({ schema, httpPart, method: 'GET', url: '/x' } as never) as (
    d: unknown,
  ) => Outcome;
  return validate(data);
}

describe('x-wire parsers in the compiled validator', () => {
  const list = Type.Object({ ...LIST_PARAMS, jsonp: Type.Optional(Type.String()) });

  it('turns the lenient list forms into typed values: defaults, empty count, bare and cased flags, repeats', () => {
    expect(run(list, 'querystring', {})).toEqual({ value: { count: 30, page: 1, full: false } });
    expect(run(list, 'querystring', { count: '', page: '2', full: '' })).toEqual({
      value: { count: 30, page: 2, full: true },
    });
    expect(run(list, 'querystring', { count: ['5', 'abc'], full: 'False', unknown: 'x', jsonp: 'cb' })).toEqual({
      value: { count: 5, page: 1, full: false, unknown: 'x', jsonp: 'cb' },
    });
    expect(run(list, 'querystring', { full: 'FULL' })).toMatchObject({ value: { full: true } });
  });

  it("answers a bad value with the parser's DomainError: code, message and docs section", () => {
    const bad = run(list, 'querystring', { count: '0' }) as { error: DomainError };
    expect(bad.error).toBeInstanceOf(DomainError);
    expect(bad.error.code).toBe('invalid_parameters');
    expect(bad.error.message).toBe('count must be a whole number from 1 to 100');
    const flag = run(list, 'querystring', { full: 'maybe' }) as { error: DomainError };
    expect(flag.error.message).toBe('full must be a flag: full, 1, true, 0 or false');
  });

  it("a required property that is absent fails with its parser's error for undefined; a non-object body is {}", () => {
    const body = Type.Object({
      url: Type.String({ 'x-wire': WIRE.thingId }),
      other: Type.Optional(Type.String()),
    });
    const missing = run(body, 'body', undefined) as { error: DomainError };
    expect(missing.error.code).toBe('not_found');
    expect(missing.error.message).toBe('Thing not found');
    expect(run(body, 'body', { url: '7', other: 'kept' })).toEqual({ value: { url: 7, other: 'kept' } });
  });

  it('passes a part without x-wire properties through unchanged', () => {
    expect(run(Type.Object({ jsonp: Type.Optional(Type.String()) }), 'querystring', { jsonp: 1 })).toBe(true);
  });

  it('documented() keeps the schema as written for OpenAPI and aliases bare media types for serialization', () => {
    const route = documented({
      response: {
        200: { description: 'ok', content: { 'application/json;charset=utf-8': { schema: Type.String() } } },
      },
    });
    const content = (route.schema.response as Record<string, { content: Record<string, unknown> }>)[200]!.content;
    expect(Object.keys(content)).toEqual(['application/json;charset=utf-8', 'application/json']);
    const shown = route.config.swaggerTransform({ schema: route.schema, url: '/x' }).schema;
    const shownContent = (shown.response as Record<string, { content: Record<string, unknown> }>)[200]!.content;
    expect(Object.keys(shownContent)).toEqual(['application/json;charset=utf-8']);
  });
});

describe.each(ENGINES)('the edge on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;
  let urls: Urls;
  const clock = fixedClock(START);

  beforeAll(async () => {
    t = await buildTestApp(engine, { clock });
    owner = await buildUser(t.services);
    other = await buildUser(t.services);
    urls = { api: `${PUBLIC_URL}${API}`, site: t.config.siteUrl };
  });
  afterAll(async () => t.close());

  const get = (url: string, token?: string) =>
    t.app.inject({ method: 'GET', url: `${API}${url}`, headers: token ? bearer(token) : {} });

  it('GET /things/:id is byte for byte JSON.stringify of the presenter: anonymous, another user, the owner, full', async () => {
    const id = await buildThing(t.services, owner, { tags: 'a,b', description: 'line\nbreak "quoted" \u2028' });
    const thing = await getThing(t.services, id);
    const owners = await getUsersByIds(t.services, [owner.user.id]);
    const cases: [string | undefined, boolean, TestUser | undefined][] = [
      [undefined, false, undefined],
      [other.token, false, other],
      [owner.token, false, owner],
      [owner.token, true, owner],
    ];
    for (const [token, full, viewer] of cases) {
      const res = await get(`/things/${id}${full ? '?full' : ''}`, token);
      expect(res.statusCode).toBe(200);
      const state = await viewerState(t.services, viewer && principalOf(viewer.user), [thing]);
      expect(res.body).toBe(JSON.stringify(presentThing(urls, thing, state, full ? owners : undefined)));
    }
    const many = await get(`/things/${id},${id}`);
    expect(many.body).toBe(JSON.stringify([presentThing(urls, thing)]));
  });

  it('GET /user with extendedread is byte for byte the presenter, budget fields included', async () => {
    const res = await get('/user', owner.token);
    const user = await getUserById(t.services, owner.user.id);
    expect(res.body).toBe(JSON.stringify(presentUser(urls, user, await getBudget(t.services, user.id))));
  });

  it('token checks come before input errors: 401 without a token even when the query is bad', async () => {
    expectError(await get('/user/things?count=0'), 401, 'unauthorized');
    expectError(await get('/user/things?count=0', owner.token), 400, 'invalid_parameters');
    const noScope = await t.app.inject({ method: 'POST', url: `${API}/things`, payload: { url: 42 } });
    expectError(noScope, 401, 'unauthorized');
  });

  it('path ids are parsed once: not an id → 404 in the route’s docs section; too many → 400', async () => {
    const tips = await t.app.inject({ method: 'POST', url: `${API}/things/abc/tip`, headers: bearer(owner.token) });
    expect(expectError(tips, 404, 'not_found').error_uri).toBe(`${PUBLIC_URL}/docs/api#tips`);
    const sub = await t.app.inject({
      method: 'DELETE',
      url: `${API}/things/0/subscriptions`,
      headers: bearer(owner.token),
    });
    expect(expectError(sub, 404, 'not_found').error_uri).toBe(`${PUBLIC_URL}/docs/api#subscriptions`);
    expectError(
      await get(`/things/${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`),
      400,
      'invalid_parameters',
    );
    expectError(await get('/things/1,x'), 404, 'not_found');
  });

  it("an update checks the thing and its owner before the body's fields: 404, 403, then 400", async () => {
    const id = await buildThing(t.services, owner);
    const patch = (thingId: number | string, token: string) =>
      t.app.inject({
        method: 'PATCH',
        url: `${API}/things/${thingId}`,
        headers: bearer(token),
        payload: { title: 'x'.repeat(101) },
      });
    expectError(await patch(999_999_999, owner.token), 404, 'not_found');
    expectError(await patch(id, other.token), 403, 'forbidden');
    const own = expectError(await patch(id, owner.token), 400, 'validation');
    expect(own.error_description).toBe('Invalid title: at most 100 characters');
  });
});
