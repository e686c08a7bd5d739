/**
 * `Tipjar`: one method per endpoint of the micro-tipping REST API v2 (api-v2.md "Endpoints"),
 * grouped by resource, each returning the spec's representation as typed by the server's OpenAPI
 * document (openapi.ts, generated). Requests go through openapi-fetch; every refusal is thrown as
 * a `TipjarError` (errors.ts); paged lists are `Paged` async iterables (paging.ts).
 *
 * Times are Unix seconds, money cents; requests and answers are JSON (Activity Streams JSON for
 * activities). The client keeps no state between calls beyond its options.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './openapi.ts';
import { errorFromResponse } from './errors.ts';
import { DEFAULT_COUNT, Paged } from './paging.ts';
import { OAuth } from './oauth.ts';

type Schemas = components['schemas'];
/** Thing, full representation (api-v2.md "Resources / Thing (full representation)"). */
export type Thing = Schemas['Thing'];
/** Thing, short representation, inside a Tip (api-v2.md "Thing (short representation)"). */
export type ThingShort = Schemas['ThingShort'];
/** Thing, confirmation representation (api-v2.md "Thing (confirmation representation)"). */
export type ThingConfirmation = Schemas['ThingConfirmation'];
/** A thing's owner: a User summary, the full User with `full`, or a pending thing's identity. */
export type Owner = Schemas['Owner'];
/** User summary (api-v2.md "User summary"). */
export type UserSummary = Schemas['UserSummary'];
/** User (api-v2.md "User"). */
export type User = Schemas['User'];
/** Tip (api-v2.md "Tip"). */
export type Tip = Schemas['Tip'];
/** Subscription (api-v2.md "Subscription"). */
export type Subscription = Schemas['Subscription'];
/** Category (api-v2.md "Category"). */
export type Category = Schemas['Category'];
/** Language (api-v2.md "Language"). */
export type Language = Schemas['Language'];
/** Search result (api-v2.md "Search result"). */
export type SearchResult = Schemas['SearchResult'];
/** Activity stream (api-v2.md "Activity stream"). */
export type ActivityStream = Schemas['ActivityStream'];
/** Message body (api-v2.md "Other response bodies"). */
export type Message = Schemas['Message'];
/** Creation body (api-v2.md "Other response bodies"). */
export type Creation = Schemas['Creation'];
/** `{message, description, thing}` of a tip or a subscription (api-v2.md "Tips", "Subscriptions"). */
export type Confirmation = Schemas['Confirmation'];
/** Rate-limit body (api-v2.md "Other response bodies"). */
export type RateLimit = Schemas['RateLimit'];

/** The fields of a new thing (`POST /things`; DECISIONS.md "Things"): `url` and optional metadata. */
export type NewThing = paths['/rest/v2/things']['post']['requestBody']['content']['application/json'];
/** The fields to change on a thing (`PATCH /things/:id`; DECISIONS.md "Things"), all optional. */
export type ThingChanges = Omit<
  NonNullable<paths['/rest/v2/things/{ids}']['patch']['requestBody']>['content']['application/json'],
  '_method'
>;
/**
 * Search criteria (`GET /things/search`; DECISIONS.md "Search"): `query`, `url`, `tags` (a tag
 * expression), `language`, `category` (comma lists), `user`, `sort`.
 */
export type SearchCriteria = Omit<
  NonNullable<paths['/rest/v2/things/search']['get']['parameters']['query']>,
  'count' | 'page' | 'full' | 'jsonp'
>;
/** Which activities: what the user did (`outgoing`, the default) or what others did to their things. */
export type ActivityType = 'outgoing' | 'incoming';

/** `full`: owners (and the thing inside a Tip) in full (DECISIONS.md "Pagination and `full`"). */
export interface FullOption {
  full?: boolean;
}
/** Options of a paged list: `count` items per request (1–100, default 30) and `full`. */
export interface ListOptions extends FullOption {
  count?: number;
}

/** What `new Tipjar` takes. */
export interface TipjarOptions {
  /**
   * The server's address, e.g. `https://tipjar.example` (its PUBLIC_URL, the `servers` of its
   * `/openapi.json`); the API root `{base_url}` ending in `/rest/v2` is accepted too.
   */
  baseUrl: string;
  /** The authorization server `{auth_url}` (the OAuth endpoints); default: the server's address. */
  authUrl?: string;
  /** An access token, sent as `Authorization: Bearer <token>` on every API request. */
  accessToken?: string;
  /** The fetch to use (default `globalThis.fetch`); it must follow redirects, as fetch does by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** The answers the client reads: JSON (never XML or JSONP) … */
type JsonMedia = `application/json${string}`;
/** … and Activity Streams JSON, the default format of activities. */
type StreamMedia = 'application/stream+json';
type Api = Client<paths, JsonMedia>;
type StreamApi = Client<paths, StreamMedia>;

/** The data of a successful answer; a `TipjarError` for any other. */
async function answer<R extends { data?: unknown; error?: unknown; response: Response }>(
  call: Promise<R>,
): Promise<NonNullable<R['data']>> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromResponse(response, error);
  return data as NonNullable<R['data']>;
}

/** Resolves when the answer is a success (e.g. 204); a `TipjarError` for any other. */
async function success(call: Promise<{ error?: unknown; response: Response }>): Promise<void> {
  const { error, response } = await call;
  if (!response.ok) throw errorFromResponse(response, error);
}

/** `full=1` when asked for, else nothing. */
const full = (opts: FullOption | undefined): { full?: string } => (opts?.full ? { full: '1' } : {});

/** A page of a JSON list: more may follow while it is full. */
const listPage = <T>(items: T[], count: number) => ({ items, more: items.length === count });

/** Things (api-v2.md "Endpoints / Things"). */
export class Things {
  readonly #api: Api;
  /** @internal */
  constructor(api: Api) {
    this.#api = api;
  }

  /**
   * One thing, full representation (api-v2.md "Endpoints / Things": `GET /things/:id`). Without
   * a token `tipped`, `subscribed`, `last_tip_at` and `updated_at` are absent; with one `tipped` and
   * `subscribed`; the last two for the owner only.
   * @throws TipjarError `not_found` (404) for an unknown or deleted thing
   */
  async get(id: number, opts?: FullOption): Promise<Thing> {
    const data = await answer(
      this.#api.GET('/rest/v2/things/{ids}', { params: { path: { ids: String(id) }, query: full(opts) } }),
    );
    return Array.isArray(data) ? data[0]! : data;
  }

  /**
   * Several things by id, in the order asked, duplicates once (api-v2.md "Endpoints / Things":
   * `GET /things/:id,:id`); up to 100 ids. No ids: `[]` without a request.
   * @throws TipjarError `not_found` (404) when any id is unknown; `invalid_parameters` (400) for more than 100
   */
  async getMany(ids: readonly number[], opts?: FullOption): Promise<Thing[]> {
    if (ids.length === 0) return [];
    const data = await answer(
      this.#api.GET('/rest/v2/things/{ids}', { params: { path: { ids: ids.join(',') }, query: full(opts) } }),
    );
    return Array.isArray(data) ? data : [data];
  }

  /**
   * One page of a search (api-v2.md "Endpoints / Things": `GET /things/search`; DECISIONS.md
   * "Search"): `{total_items, items, page, things}`. No token needed; with one, the things carry
   * the caller's per-viewer fields.
   * @param criteria `query`, `tags`, `category`, `language`, `url`, `user`, `sort`
   * @param opts `page` (from 1), `count` (1–100, default 30), `full`
   * @throws TipjarError `invalid_parameters` (400) for a bad value (a malformed tag expression, an unknown category, …)
   */
  async search(criteria: SearchCriteria = {}, opts: ListOptions & { page?: number } = {}): Promise<SearchResult> {
    const query = { ...criteria, ...full(opts), count: opts.count, page: opts.page };
    return answer(this.#api.GET('/rest/v2/things/search', { params: { query } }));
  }

  /**
   * Every thing a search finds, page after page (`GET /things/search`, DECISIONS.md "Search"), as
   * an async iterable: `for await (const thing of tipjar.things.searchAll({query: 'parser'}))`.
   * @param opts `count` things per request (1–100, default 30), `full`
   * @throws TipjarError while iterating, as `search`
   */
  searchAll(criteria: SearchCriteria = {}, opts: ListOptions = {}): Paged<Thing> {
    return new Paged(async (page, count) => {
      const result = await this.search(criteria, { ...opts, page, count });
      return { items: result.things, more: page * count < result.total_items };
    }, opts.count ?? DEFAULT_COUNT);
  }

  /**
   * The thing a URL is registered as (api-v2.md "Endpoints / Things": `GET /things/lookup/?url=`):
   * the API answers 302 to the thing's address, which is followed, so this resolves to the thing
   * itself (full representation); `null` when no thing has the URL (the 404 `not_found` body).
   * An auto-submit URL resolves to the thing of its inner `url`.
   * @throws TipjarError `validation` (400) for an auto-submit URL whose `user_id` or `owner` is not
   *   the thing's owner; `invalid_parameters` (400) without a URL
   */
  async lookup(url: string): Promise<Thing | null> {
    const { data, error, response } = await this.#api.GET('/rest/v2/things/lookup', {
      params: { query: { url } },
    });
    if (response.ok) return data as unknown as Thing;
    const body = error as { message?: unknown; location?: unknown } | undefined;
    if (response.status === 404 && body?.message === 'not_found') return null;
    // A fetch that does not follow redirects hands back the 302 itself: follow its location.
    const id = typeof body?.location === 'string' ? /\/things\/(\d+)$/.exec(body.location)?.[1] : undefined;
    if (response.status === 302 && id !== undefined) return this.get(Number(id));
    throw errorFromResponse(response, error);
  }

  /**
   * Registers a thing (api-v2.md "Endpoints / Things": `POST /things`, scope `thing`;
   * DECISIONS.md "Things"): `url` required; `title`, `description`, `category` (default `rest`),
   * `language` (default `en_GB`), `tags` (an array or a comma-separated string), `hidden`.
   * @returns the creation body `{id, link, message: "ok", description}`
   * @throws TipjarError `validation` (400: a bad field, a URL already registered), `unauthorized`
   *   (401), `insufficient_scope` (403)
   */
  async create(input: NewThing): Promise<Creation> {
    return answer(this.#api.POST('/rest/v2/things', { body: input }));
  }

  /**
   * Changes a thing's fields (api-v2.md "Endpoints / Things": `PATCH /things/:id`, scope `thing`;
   * DECISIONS.md "Things"): any of `title`, `description`, `category`, `language`, `tags`, `hidden`.
   * @returns the message body `{message, description}`
   * @throws TipjarError `forbidden` (403: not the owner), `not_found` (404), `validation` (400),
   *   `unauthorized` (401), `insufficient_scope` (403)
   */
  async update(id: number, changes: ThingChanges): Promise<Message> {
    return answer(this.#api.PATCH('/rest/v2/things/{ids}', { params: { path: { ids: String(id) } }, body: changes }));
  }

  /**
   * Deletes a thing (api-v2.md "Endpoints / Things": `DELETE /things/:id`, scope `thing`): 204.
   * @throws TipjarError `forbidden` (403: not the owner), `not_found` (404), `unauthorized` (401),
   *   `insufficient_scope` (403)
   */
  async delete(id: number): Promise<void> {
    return success(this.#api.DELETE('/rest/v2/things/{ids}', { params: { path: { ids: String(id) } } }));
  }

  /**
   * The tips a thing received, newest first, paged (api-v2.md "Endpoints / Tips": `GET
   * /things/:id/tips`, a token of any scope). Iterate it with `for await`, or read one `page(n)`.
   * @throws TipjarError while iterating: `unauthorized` (401) without a token, `not_found` (404)
   */
  tips(id: number, opts: ListOptions = {}): Paged<Tip> {
    return new Paged(
      async (page, count) =>
        listPage(
          await answer(
            this.#api.GET('/rest/v2/things/{id}/tips', {
              params: { path: { id: String(id) }, query: { ...full(opts), page, count } },
            }),
          ),
          count,
        ),
      opts.count ?? DEFAULT_COUNT,
    );
  }
}

/** Tipping (api-v2.md "Endpoints / Tips"). */
export class Tips {
  readonly #api: Api;
  /** @internal */
  constructor(api: Api) {
    this.#api = api;
  }

  /**
   * Tips a thing once in the current period (api-v2.md "Endpoints / Tips": `POST /things/:id/tip`,
   * scope `tip`; DECISIONS.md "Tips").
   * @returns `{message: "ok", description, thing}`, the thing in its confirmation representation
   * @throws TipjarError `tip_once` (403: tipped this period), `tip_owner` (403: your own thing),
   *   `no_means` (401), `not_found` (404), `unauthorized` (401), `insufficient_scope` (403)
   */
  async tip(thingId: number): Promise<Confirmation> {
    return answer(this.#api.POST('/rest/v2/things/{id}/tip', { params: { path: { id: String(thingId) } } }));
  }

  /**
   * Tips a URL (api-v2.md "Endpoints / Tips": `POST /tip`, scope `tip`): a registered thing's URL,
   * an auto-submit URL (whose thing is created on its first tip) or a URL whose owner the server
   * discovers.
   * @returns `{message: "ok", description, thing}`, as `tip`
   * @throws TipjarError as `tip`, plus `invalid_request` (400: not an http(s) URL) and `not_found`
   *   (404: nothing tippable at the URL)
   */
  async tipUrl(url: string): Promise<Confirmation> {
    return answer(this.#api.POST('/rest/v2/tip', { body: { url } }));
  }
}

/** Users (api-v2.md "Endpoints / Users"), their things and tips, and partner verification. */
export class Users {
  readonly #api: Api;
  /** @internal */
  constructor(api: Api) {
    this.#api = api;
  }

  /**
   * A user's public profile (api-v2.md "Endpoints / Users": `GET /users/:username`).
   * @throws TipjarError `not_found` (404)
   */
  async get(username: string): Promise<User> {
    return answer(this.#api.GET('/rest/v2/users/{username}', { params: { path: { username } } }));
  }

  /**
   * A user's things, newest first, paged (api-v2.md "Endpoints / Things": `GET
   * /users/:username/things`): `for await (const thing of tipjar.users.things('npm'))`. Hidden
   * things are left out for everyone but their owner.
   * @throws TipjarError while iterating: `not_found` (404) for an unknown user
   */
  things(username: string, opts: ListOptions = {}): Paged<Thing> {
    return new Paged(
      async (page, count) =>
        listPage(
          await answer(
            this.#api.GET('/rest/v2/users/{username}/things', {
              params: { path: { username }, query: { ...full(opts), page, count } },
            }),
          ),
          count,
        ),
      opts.count ?? DEFAULT_COUNT,
    );
  }

  /**
   * A user's tips, newest first, paged (api-v2.md "Endpoints / Tips": `GET /users/:username/tips`):
   * none when the user hides their tips.
   * @throws TipjarError while iterating: `not_found` (404) for an unknown user
   */
  tips(username: string, opts: ListOptions = {}): Paged<Tip> {
    return new Paged(
      async (page, count) =>
        listPage(
          await answer(
            this.#api.GET('/rest/v2/users/{username}/tips', {
              params: { path: { username }, query: { ...full(opts), page, count } },
            }),
          ),
          count,
        ),
      opts.count ?? DEFAULT_COUNT,
    );
  }

  /**
   * Verifies a partner-side identity (`partner:<namespace>:<id>`, `email:<md5>`,
   * `twitter:user:id:<id>`) for `username`, whose token this client carries (api-v2.md "Partner
   * verification": `POST /users/:username/verify`; DECISIONS.md "Partners"). The token must have
   * been issued to the partner's OAuth client. The user then owns the identity's pending things.
   * @returns `{message: "ok", description}`
   * @throws TipjarError `unauthorized` (401: not a partner's token, another user, an identity the partner may not verify)
   */
  async verify(username: string, identity: string): Promise<Message> {
    return answer(
      this.#api.POST('/rest/v2/users/{username}/verify', { params: { path: { username } }, body: { identity } }),
    );
  }
}

/** The current user: the one the access token belongs to (api-v2.md `/user` endpoints). */
export class Me {
  readonly #api: Api;
  /** @internal */
  constructor(api: Api) {
    this.#api = api;
  }

  /**
   * The current user (api-v2.md "Endpoints / Users": `GET /user`); with scope `extendedread` also
   * `email`, `registered_at` and the budget fields (cents).
   * @throws TipjarError `unauthorized` (401) without a valid token
   */
  async get(): Promise<User> {
    return answer(this.#api.GET('/rest/v2/user'));
  }

  /**
   * The current user's things, newest first, paged, hidden ones included (api-v2.md "Endpoints /
   * Things": `GET /user/things`).
   * @throws TipjarError while iterating: `unauthorized` (401) without a valid token
   */
  things(opts: ListOptions = {}): Paged<Thing> {
    return new Paged(
      async (page, count) =>
        listPage(
          await answer(this.#api.GET('/rest/v2/user/things', { params: { query: { ...full(opts), page, count } } })),
          count,
        ),
      opts.count ?? DEFAULT_COUNT,
    );
  }

  /**
   * The current user's tips, newest first, paged (api-v2.md "Endpoints / Tips": `GET /user/tips`).
   * @throws TipjarError while iterating: `unauthorized` (401) without a valid token
   */
  tips(opts: ListOptions = {}): Paged<Tip> {
    return new Paged(
      async (page, count) =>
        listPage(
          await answer(this.#api.GET('/rest/v2/user/tips', { params: { query: { ...full(opts), page, count } } })),
          count,
        ),
      opts.count ?? DEFAULT_COUNT,
    );
  }

  /**
   * Verifies a partner-side identity for the current user (api-v2.md "Partner verification":
   * `POST /user/verify`); as `users.verify`.
   * @returns `{message: "ok", description}`
   * @throws TipjarError `unauthorized` (401)
   */
  async verify(identity: string): Promise<Message> {
    return answer(this.#api.POST('/rest/v2/user/verify', { body: { identity } }));
  }
}

/** Subscriptions, all with scope `tip` (api-v2.md "Endpoints / Subscriptions"). */
export class Subscriptions {
  readonly #api: Api;
  /** @internal */
  constructor(api: Api) {
    this.#api = api;
  }

  /**
   * The current user's subscriptions, active and paused, newest first (api-v2.md "Endpoints /
   * Subscriptions": `GET /user/subscriptions`; not paged).
   * @throws TipjarError `unauthorized` (401), `insufficient_scope` (403)
   */
  async list(): Promise<Subscription[]> {
    return answer(this.#api.GET('/rest/v2/user/subscriptions'));
  }

  /**
   * Subscribes to a thing, which also tips it for the current period unless already tipped
   * (api-v2.md "Endpoints / Subscriptions": `POST /things/:id/subscriptions`; DECISIONS.md
   * "Subscriptions").
   * @returns `{message: "ok", description, thing}`, the thing in its confirmation representation
   * @throws TipjarError `subscribed` (403: already), `thing_owner` (403: your own thing),
   *   `not_found` (404), `unauthorized` (401), `insufficient_scope` (403)
   */
  async subscribe(thingId: number): Promise<Confirmation> {
    return answer(this.#api.POST('/rest/v2/things/{id}/subscriptions', { params: { path: { id: String(thingId) } } }));
  }

  /**
   * Pauses an active subscription or starts a paused one (api-v2.md "States and transitions":
   * `PUT /things/:id/subscriptions`).
   * @returns `{message: "paused" | "started", description}`
   * @throws TipjarError `not_found` (404: no such thing or subscription), `unauthorized` (401), `insufficient_scope` (403)
   */
  async toggle(thingId: number): Promise<Message> {
    return answer(this.#api.PUT('/rest/v2/things/{id}/subscriptions', { params: { path: { id: String(thingId) } } }));
  }

  /**
   * Ends a subscription (api-v2.md "Endpoints / Subscriptions": `DELETE /things/:id/subscriptions`): 204.
   * @throws TipjarError `not_found` (404: no subscription), `unauthorized` (401), `insufficient_scope` (403)
   */
  async unsubscribe(thingId: number): Promise<void> {
    return success(
      this.#api.DELETE('/rest/v2/things/{id}/subscriptions', { params: { path: { id: String(thingId) } } }),
    );
  }
}

/** Activity streams (api-v2.md "Endpoints / Activities"), as Activity Streams JSON. */
export class Activities {
  readonly #api: StreamApi;
  /** @internal */
  constructor(api: StreamApi) {
    this.#api = api;
  }

  /**
   * A user's activities, the newest 100 (api-v2.md "Endpoints / Activities": `GET
   * /users/:username/activities`): what they did (`outgoing`, the default) or what others did to
   * their things (`incoming`).
   * @returns `{items: [{published, title, actor, verb, object, id}]}`
   * @throws TipjarError `not_found` (404) for an unknown user
   */
  async user(username: string, opts: { type?: ActivityType } = {}): Promise<ActivityStream> {
    return answer(
      this.#api.GET('/rest/v2/users/{username}/activities', {
        params: { path: { username }, query: opts.type ? { type: opts.type } : {} },
      }),
    );
  }

  /**
   * The current user's activities (api-v2.md "Endpoints / Activities": `GET /user/activities`), as `user`.
   * @throws TipjarError `unauthorized` (401) without a valid token
   */
  async me(opts: { type?: ActivityType } = {}): Promise<ActivityStream> {
    return answer(
      this.#api.GET('/rest/v2/user/activities', { params: { query: opts.type ? { type: opts.type } : {} } }),
    );
  }
}

/** The server's address without a trailing slash and without the API prefix `/rest/v2`. */
function serverAddress(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/rest/v2') ? trimmed.slice(0, -'/rest/v2'.length) : trimmed;
}

/**
 * A client of one Tipjar server: `new Tipjar({baseUrl: 'https://tipjar.example', accessToken})`.
 * Its methods are grouped by resource: `things`, `tips`, `users`, `me` (the token's user),
 * `subscriptions`, `activities`, `oauth`; and `categories()`, `languages()`, `rateLimit()`.
 */
export class Tipjar {
  readonly #api: Api;
  /** Things: get, getMany, search, searchAll, lookup, create, update, delete, tips. */
  readonly things: Things;
  /** Tipping: tip (a thing), tipUrl (a URL). */
  readonly tips: Tips;
  /** Users: get, things, tips, verify. */
  readonly users: Users;
  /** The token's user: get, things, tips, verify. */
  readonly me: Me;
  /** The token's user's subscriptions: list, subscribe, toggle, unsubscribe. */
  readonly subscriptions: Subscriptions;
  /** Activity streams: user, me. */
  readonly activities: Activities;
  /** The OAuth 2 code flow with PKCE: authorizationUrl, callbackCode, exchangeCode, revoke, metadata. */
  readonly oauth: OAuth;

  constructor(options: TipjarOptions) {
    const baseUrl = serverAddress(options.baseUrl);
    const authUrl = serverAddress(options.authUrl ?? baseUrl);
    const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    const bearer: Record<string, string> = options.accessToken
      ? { Authorization: `Bearer ${options.accessToken}` }
      : {};
    this.#api = createClient<paths, JsonMedia>({ baseUrl, fetch, headers: bearer });
    this.things = new Things(this.#api);
    this.tips = new Tips(this.#api);
    this.users = new Users(this.#api);
    this.me = new Me(this.#api);
    this.subscriptions = new Subscriptions(this.#api);
    this.activities = new Activities(createClient<paths, StreamMedia>({ baseUrl, fetch, headers: bearer }));
    // The OAuth endpoints take client credentials, never the user's bearer token.
    this.oauth = new OAuth(authUrl, createClient<paths, JsonMedia>({ baseUrl: authUrl, fetch }));
  }

  /**
   * The categories, `[{id, name}]` (api-v2.md "Reference data and limits": `GET /categories`).
   */
  async categories(): Promise<Category[]> {
    return answer(this.#api.GET('/rest/v2/categories'));
  }

  /**
   * The languages, `[{id, text}]` (api-v2.md "Reference data and limits": `GET /languages`).
   */
  async languages(): Promise<Language[]> {
    return answer(this.#api.GET('/rest/v2/languages'));
  }

  /**
   * The caller's rate-limit window (api-v2.md "Reference data and limits": `GET /rate_limit`; not
   * itself counted): `{hourly_limit, remaining_hits, current_hits, reset_time_in_seconds (Unix
   * seconds), reset_time (HTTP-date)}`.
   * @throws TipjarError `unauthorized` (401) for an invalid token
   */
  async rateLimit(): Promise<RateLimit> {
    return answer(this.#api.GET('/rest/v2/rate_limit'));
  }
}
