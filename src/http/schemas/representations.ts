/**
 * The spec's representations as TypeBox (JSON Schema) definitions (api-v2.md "Resources and their
 * fields", "Other response bodies", "Errors"; DECISIONS.md "Wire format"; docs/api.md). They are
 * the presenters' return types (`Static<typeof Thing>`, src/http/presenters.ts), the response
 * schemas Fastify compiles into serializers (fast-json-stringify writes exactly these properties,
 * in this order), and the OpenAPI document's components (docs/adr/0013-openapi.md, 0022);
 * test/integration/openapi.test.ts checks real responses against them.
 *
 * Each schema has an `$id` (its name in `components.schemas`); schemas refer to each other with
 * `ref(name)` (`{$ref: "<Name>#"}`), which @fastify/swagger turns into `#/components/schemas/<Name>`.
 * Objects are closed (`additionalProperties: false`): a field added to a presenter without its
 * documentation fails the drift test. Units: money in cents, times in Unix seconds.
 */
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/**
 * A reference to a named representation: `{$ref: "<$id>#"}`; given the schema itself, the
 * reference has the schema's static type.
 */
export function ref<T extends TSchema>(schema: T): TUnsafe<Static<T>>;
export function ref(name: string): TSchema;
export function ref(target: string | TSchema): TSchema {
  const name = typeof target === 'string' ? target : (target.$id as string);
  return Type.Unsafe({ $ref: `${name}#` });
}

const closed = { additionalProperties: false } as const;
const Url = (description: string) => Type.String({ description });
const Unix = (description: string) => Type.Integer({ description: `${description} (Unix seconds)` });

/** User summary: `type`, `resource`, `link`, `username` (api-v2.md "User summary"). */
export const UserSummary = Type.Object(
  {
    type: Type.Literal('user'),
    resource: Url('API address of the user'),
    link: Url('website address of the user (profile page)'),
    username: Type.String(),
  },
  { $id: 'UserSummary', title: 'User summary', ...closed },
);

const profileFields = {
  firstname: Type.String({ description: 'may be empty' }),
  lastname: Type.String({ description: 'may be empty' }),
  avatar: Type.String({ description: 'URL of the avatar; may be empty' }),
  about: Type.String({ description: 'may be empty' }),
  city: Type.String({ description: 'may be empty' }),
  country: Type.String({ description: 'may be empty' }),
  url: Type.String({ description: "the user's own web site; may be empty" }),
};

/**
 * User (api-v2.md "User"): summary + profile fields; `email`, `email_verified`, `registered_at`
 * and the budget with `extendedread`.
 */
export const User = Type.Object(
  {
    ...UserSummary.properties,
    ...profileFields,
    email: Type.Optional(Type.String({ description: 'only for the own user with scope `extendedread`' })),
    email_verified: Type.Optional(
      Type.Boolean({
        description:
          'extension, only for the own user with scope `extendedread`: whether `email` was verified through the link mailed to it (or by the operator); false without an address',
      }),
    ),
    registered_at: Type.Optional(Unix('only for the own user with scope `extendedread`')),
    budget_cents: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'only for the own user with scope `extendedread`: the monthly budget setting, in cents',
      }),
    ),
    period_budget_cents: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "only for the own user with scope `extendedread`: the current period's budget in cents, fixed at the user's first tip in it (a later change of the setting applies from the next period)",
      }),
    ),
  },
  { $id: 'User', title: 'User', ...closed },
);

/**
 * The owner of a thing: a User summary; the full User (profile fields) with `full`; a pending
 * thing's owner `{type: "user", resource: "", link: "", username: "", identity}`; inside a
 * Subscription also `id` (string).
 */
export const Owner = Type.Object(
  {
    ...UserSummary.properties,
    ...Object.fromEntries(Object.entries(profileFields).map(([k, v]) => [k, Type.Optional(v)])),
    identity: Type.Optional(
      Type.String({ description: 'pending things only: the partner-side identity, e.g. `email:<hash>`' }),
    ),
    id: Type.Optional(
      Type.String({
        description: 'inside a Subscription only: the owner\'s user id as a string ("" for a pending thing)',
      }),
    ),
  },
  {
    $id: 'Owner',
    title: 'Thing owner',
    description:
      'A User summary; with `full` the full User; for a pending thing empty `resource`, `link`, `username` plus `identity`.',
    ...closed,
  },
);

const thingCore = {
  type: Type.Literal('thing'),
  resource: Url('API address of the thing'),
  link: Url('website address of the thing'),
  id: Type.Integer({ description: 'thing identifier' }),
};

/** Thing (full representation), key order of the presenter (api-v2.md "Thing (full representation)"). */
export const Thing = Type.Object(
  {
    ...thingCore,
    url: Url('the URL the thing stands for'),
    language: Type.String({ description: 'language id `xx_YY` (see Language)' }),
    category: Type.String({ description: 'category id (see Category)' }),
    owner: ref(Owner),
    hidden: Type.Boolean(),
    image: Type.String({ description: 'image URL; may be empty' }),
    created_at: Unix('registration time'),
    tags: Type.Array(Type.String()),
    tips: Type.Integer({ description: 'number of tips the thing has received' }),
    tips_user_count: Type.Integer({ description: 'number of distinct users who tipped it' }),
    description: Type.String(),
    title: Type.String(),
    last_tip_at: Type.Optional(Unix('only for the owner: last tip, 0 when never')),
    updated_at: Type.Optional(Unix('only for the owner: last update, 0 when never')),
    tipped: Type.Optional(
      Type.Boolean({ description: 'only with a token: the caller tipped it in the current period' }),
    ),
    subscribed: Type.Optional(Type.Boolean({ description: 'only with a token: the caller subscribes to it' })),
  },
  { $id: 'Thing', title: 'Thing (full representation)', ...closed },
);

/** Thing (confirmation representation), in tip and subscribe answers: 8 fields. */
export const ThingConfirmation = Type.Object(
  {
    ...thingCore,
    tips: Type.Integer(),
    url: Url('the URL the thing stands for'),
    title: Type.String(),
    image: Type.String(),
  },
  { $id: 'ThingConfirmation', title: 'Thing (confirmation representation)', ...closed },
);

/** Thing (short representation), inside a Tip. */
export const ThingShort = Type.Object(
  {
    ...thingCore,
    url: Url('the URL the thing stands for'),
    title: Type.String(),
    image: Type.String(),
    tips: Type.Integer(),
    owner: ref(Owner),
  },
  { $id: 'ThingShort', title: 'Thing (short representation)', ...closed },
);

/** Tip: `type`, `thing` (short; full with `full`), `owner` (the tipper), `created_at`. */
export const Tip = Type.Object(
  {
    type: Type.Literal('tip'),
    thing: Type.Union([ref(ThingShort), ref(Thing)], { description: 'short thing; the full thing with `full`' }),
    owner: Type.Union([ref(UserSummary), ref(User)], {
      description: 'the tipper: User summary; the full User with `full`',
    }),
    created_at: Unix('when the tip was given'),
  },
  { $id: 'Tip', title: 'Tip', ...closed },
);

/** Subscription: `type`, `active`, `created_at`, `started_at`, full `thing` (owner with `id`). */
export const Subscription = Type.Object(
  {
    type: Type.Literal('subscription'),
    active: Type.Boolean({ description: 'false while paused' }),
    created_at: Unix('when subscribed'),
    started_at: Unix('when (re)started'),
    thing: ref(Thing),
  },
  { $id: 'Subscription', title: 'Subscription', ...closed },
);

/** Category `{id, name}`. */
export const Category = Type.Object(
  { id: Type.String({ examples: ['text'] }), name: Type.String({ examples: ['Text'] }) },
  { $id: 'Category', title: 'Category', ...closed },
);

/** Language `{id, text}`. */
export const Language = Type.Object(
  {
    id: Type.String({ description: 'form `xx_YY`', examples: ['en_GB'] }),
    text: Type.String({ examples: ['English'] }),
  },
  { $id: 'Language', title: 'Language', ...closed },
);

/** Search result `{total_items, items, page, things}`. */
export const SearchResult = Type.Object(
  {
    total_items: Type.Integer({ description: 'matches over all pages' }),
    items: Type.Integer({ description: 'things on this page' }),
    page: Type.Integer({ description: 'the page, from 1' }),
    things: Type.Array(ref(Thing)),
  },
  { $id: 'SearchResult', title: 'Search result', ...closed },
);

const streamObject = (objectType: string) =>
  Type.Object({ displayName: Type.String(), url: Type.String(), objectType: Type.Literal(objectType) }, closed);

/** Activity stream (`application/stream+json`): `{items}` (api-v2.md "Activity stream"). */
export const ActivityStream = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          published: Type.String({ description: 'ISO 8601 date-time with offset, e.g. `2012-01-04T10:07:12+00:00`' }),
          title: Type.String(),
          actor: streamObject('person'),
          verb: Type.Union([Type.Literal('like'), Type.Literal('post'), Type.Literal('follow')], {
            description: '`like` a tip, `post` a thing registered, `follow` a subscription',
          }),
          object: streamObject('bookmark'),
          id: Type.String({
            description: 'tag URI, `tag:{host},{YYYY-MM-DD}:{username}/{verb}/{thing_id}/{item_id}`, unique per item',
          }),
        },
        closed,
      ),
    ),
  },
  { $id: 'ActivityStream', title: 'Activity stream', ...closed },
);

/** Message body `{message, description}`. */
export const Message = Type.Object(
  { message: Type.String({ examples: ['ok'] }), description: Type.String() },
  { $id: 'Message', title: 'Message body', ...closed },
);

/** Creation body `{id, link, message, description}` (`link` is the API address). */
export const Creation = Type.Object(
  {
    id: Type.Integer(),
    link: Url('API address of the new thing'),
    message: Type.Literal('ok'),
    description: Type.String(),
  },
  { $id: 'Creation', title: 'Creation body', ...closed },
);

/** Tip or subscribe confirmation `{message, description, thing}` (confirmation thing). */
export const Confirmation = Type.Object(
  { message: Type.Literal('ok'), description: Type.String(), thing: ref(ThingConfirmation) },
  { $id: 'Confirmation', title: 'Tip or subscription confirmation', ...closed },
);

/** Lookup found body `{message: "found", location}`. */
export const LookupFound = Type.Object(
  { message: Type.Literal('found'), location: Url("the thing's API address (as in Location)") },
  { $id: 'LookupFound', title: 'Lookup found body', ...closed },
);

/** Lookup missing body `{message: "not_found", description}`. */
export const LookupMissing = Type.Object(
  { message: Type.Literal('not_found'), description: Type.String() },
  { $id: 'LookupMissing', title: 'Lookup missing body', ...closed },
);

/** Rate-limit body (api-v2.md "Other response bodies", docs/api.md "Rate limits"). */
export const RateLimit = Type.Object(
  {
    hourly_limit: Type.Integer(),
    remaining_hits: Type.Integer(),
    current_hits: Type.Integer(),
    reset_time_in_seconds: Unix('absolute time at which the window ends (= X-RateLimit-Reset), not a countdown'),
    reset_time: Type.String({ description: 'the same instant as an HTTP-date, e.g. `Tue, 17 Jul 2012 11:00:00 GMT`' }),
  },
  { $id: 'RateLimit', title: 'Rate-limit body', ...closed },
);

/** The error codes of the API (src/http/plugins/errors.ts STATUS). */
export const ERROR_CODES = [
  'invalid_request',
  'invalid_parameters',
  'validation',
  'unauthorized',
  'no_means',
  'rate_limit_exceeded',
  'invalid_scope',
  'insufficient_scope',
  'tip_once',
  'tip_owner',
  'forbidden',
  'thing_owner',
  'subscribed',
  'not_found',
  'not_acceptable',
  'server_error',
] as const;

/** Error body `{error, error_description, error_uri}` (api-v2.md "Errors"). */
export const ErrorBody = Type.Object(
  {
    error: Type.Union(ERROR_CODES.map((c) => Type.Literal(c))),
    error_description: Type.String(),
    error_uri: Type.String({ description: 'the section of /docs/api that explains the error' }),
  },
  { $id: 'Error', title: 'Error body', ...closed },
);

/** OAuth token response (RFC 6749 §5.1, api-v2.md "Authentication" 5; DECISIONS.md adds `scope`). */
export const OAuthToken = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('bearer'),
    scope: Type.String({ description: 'granted scopes, space-separated (may be empty)' }),
  },
  { $id: 'OAuthToken', title: 'OAuth token response', ...closed },
);

/** OAuth error (RFC 6749 §5.2): `{error, error_description}`. */
export const OAuthError = Type.Object(
  {
    error: Type.String({ examples: ['invalid_grant'] }),
    error_description: Type.String(),
  },
  { $id: 'OAuthError', title: 'OAuth error (RFC 6749 §5.2)', ...closed },
);

/** RFC 8414 authorization server metadata, as served. */
export const OAuthMetadata = Type.Object(
  {
    issuer: Type.String(),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    response_types_supported: Type.Array(Type.String()),
    response_modes_supported: Type.Array(Type.String()),
    grant_types_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    code_challenge_methods_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    service_documentation: Type.String(),
  },
  { $id: 'OAuthMetadata', title: 'Authorization server metadata (RFC 8414)', ...closed },
);

/** Every named representation, registered with `app.addSchema` by src/http/plugins/openapi.ts. */
export const REPRESENTATIONS: readonly TSchema[] = [
  UserSummary,
  User,
  Owner,
  Thing,
  ThingConfirmation,
  ThingShort,
  Tip,
  Subscription,
  Category,
  Language,
  SearchResult,
  ActivityStream,
  Message,
  Creation,
  Confirmation,
  LookupFound,
  LookupMissing,
  RateLimit,
  ErrorBody,
  OAuthToken,
  OAuthError,
  OAuthMetadata,
];
