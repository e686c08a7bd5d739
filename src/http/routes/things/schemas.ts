/**
 * Route schemas of the things endpoints (api-v2.md "Endpoints / Things", DECISIONS.md "Things",
 * docs/api.md "Things", "Lists"; docs/adr/0013-openapi.md, 0022). Properties marked `x-wire` are
 * parsed at the edge (src/http/schemas/wire.ts) by the parsers registered here: the thing-field
 * rules of src/domain/thing-input.ts (400 `validation`), the lookup `url` (400
 * `invalid_parameters` when missing) and the path ids of src/http/params.ts.
 */
import { Type } from '@sinclair/typebox';
import {
  documented,
  errors,
  formBody,
  JSONP_PARAM,
  LIST_PARAMS,
  noContent,
  OPTIONAL_TOKEN,
  params,
  PUBLIC,
  response,
  SUFFIX_NOTE,
  token,
  USERNAME,
} from '../../schemas/common.ts';
import { ref } from '../../schemas/representations.ts';
import { FEED_LIST_FORMATS } from '../../../formats/negotiation.ts';
import { defineWire } from '../../schemas/wire.ts';
import { WIRE } from '../../params.ts';
import { single } from '../../../domain/input.ts';
import { InvalidParametersError } from '../../../domain/errors.ts';
import {
  parseCategory,
  parseDescription,
  parseHidden,
  parseLanguage,
  parseNewThingUrl,
  parseTags,
  parseTitle,
  parseUnchangedUrl,
} from '../../../domain/thing-input.ts';

/** The `url` of a lookup: a non-blank string (first of repeated ones). @throws InvalidParametersError */
export function parseLookupUrl(raw: unknown): string {
  const v = single(raw);
  if (typeof v !== 'string' || v.trim() === '')
    throw new InvalidParametersError('The url parameter is required', 'things');
  return v;
}

const W = {
  newUrl: defineWire('thing.url', parseNewThingUrl),
  unchangedUrl: defineWire('thing.unchangedUrl', parseUnchangedUrl),
  title: defineWire('thing.title', parseTitle),
  description: defineWire('thing.description', parseDescription),
  category: defineWire('thing.category', parseCategory),
  language: defineWire('thing.language', parseLanguage),
  tags: defineWire('thing.tags', parseTags),
  hidden: defineWire('thing.hidden', parseHidden),
  lookupUrl: defineWire('lookup.url', parseLookupUrl),
};

const listQuery = Type.Object({ ...LIST_PARAMS, ...JSONP_PARAM });
const thingsList = response(
  'Array of thing (full representation); `.as`/`.atom`: the things as `post` activities',
  Type.Array(ref('Thing')),
  {
    formats: FEED_LIST_FORMATS,
    xmlRoot: 'things',
  },
);
const IDS = {
  ids: Type.String({
    description: 'a thing id, or up to 100 comma-separated ids (`1,2,3`)',
    pattern: '^[0-9,]+$',
    'x-wire': WIRE.thingIds,
  }),
};
const ONE_ID = {
  ids: Type.String({ description: 'a thing id (positive integer)', pattern: '^[0-9]+$', 'x-wire': WIRE.thingId }),
};

/** Fields of a thing accepted on create (docs/api.md "Things"); on update the same but `url`. */
const thingFields = {
  title: Type.Optional(Type.String({ maxLength: 100, 'x-wire': W.title })),
  description: Type.Optional(Type.String({ maxLength: 1000, 'x-wire': W.description })),
  category: Type.Optional(Type.String({ description: 'a category id (default `rest`)', 'x-wire': W.category })),
  language: Type.Optional(Type.String({ description: 'a language id (default `en_GB`)', 'x-wire': W.language })),
  tags: Type.Optional(
    Type.Union([Type.String({ description: 'comma-separated' }), Type.Array(Type.String({ description: 'one tag' }))], {
      description:
        'at most 50 tags of at most 64 characters, trimmed; empty ones and case-insensitive duplicates dropped. ' +
        'A tag holding white space or one of `& | ! ( ) ,` → 400 `validation` naming it (no tags search could find it)',
      'x-wire': W.tags,
    }),
  ),
  hidden: Type.Optional(
    Type.Union([Type.Boolean(), Type.String()], {
      description: 'a boolean, or `true|false|1|0` in any case (default false)',
      'x-wire': W.hidden,
    }),
  ),
};

/** GET /users/:username/things */
export const listUserThings = documented({
  summary: "List a user's things",
  description:
    'Newest first, paged; hidden things only for their owner (api-v2.md "Endpoints / Things", docs/api.md "Lists"). ' +
    `404 \`not_found\` for an unknown user. ${SUFFIX_NOTE}`,
  tags: ['things'],
  security: OPTIONAL_TOKEN,
  params: params(USERNAME),
  querystring: listQuery,
  response: { 200: thingsList, ...errors(['not_found']) },
});

/** GET /user/things */
export const listOwnThings = documented({
  summary: "List the caller's things",
  description: `The caller's things, hidden ones included, newest first, paged (token, any scope). ${SUFFIX_NOTE}`,
  tags: ['things'],
  security: token(),
  querystring: listQuery,
  response: { 200: thingsList, ...errors([]) },
});

/** GET /things/lookup?url= */
export const lookupThing = documented({
  summary: 'Look a thing up by URL',
  description:
    'Finds the thing of a URL, or of an auto-submit URL\'s inner `url` (api-v2.md "Endpoints / Things", docs/api.md "Things"): ' +
    '302 with `Location` (the thing\'s API address) and `{message: "found", location}`, or 404 `{message: "not_found", description}` ' +
    "(the spec's own body, not the error shape). A `user_id` or `owner` of an auto-submit URL that does not match → 400 `validation`.",
  tags: ['things'],
  security: PUBLIC,
  querystring: Type.Object({
    url: Type.String({ description: 'the URL (URL-encoded); may be an auto-submit URL', 'x-wire': W.lookupUrl }),
    ...JSONP_PARAM,
  }),
  response: {
    302: response('Found', ref('LookupFound'), {
      headers: { Location: { type: 'string', description: "the thing's API address" } },
    }),
    404: response('No thing for this URL', ref('LookupMissing')),
    ...errors(['invalid_request', 'validation']),
  },
});

/** GET /things/:id and /things/:id,:id */
export const getThings = documented({
  summary: 'Get one thing, or several by comma-separated ids',
  description:
    'One id: the thing (full representation); several ids (`/things/1,2,3`, up to 100): an array in the order asked, ' +
    '404 when any is unknown, more than 100 → 400 `invalid_parameters` (api-v2.md "Endpoints / Things"). Without a token `tipped`, `subscribed`, `last_tip_at` and ' +
    '`updated_at` are absent; with one `tipped` and `subscribed`; `last_tip_at` and `updated_at` for the owner only. ' +
    `\`full\` renders owners in full. ${SUFFIX_NOTE}`,
  tags: ['things'],
  security: OPTIONAL_TOKEN,
  params: params(IDS),
  querystring: Type.Object({ full: LIST_PARAMS.full, ...JSONP_PARAM }),
  response: {
    200: response(
      'A thing, or an array of things for several ids',
      Type.Union([ref('Thing'), Type.Array(ref('Thing'))]),
      { xmlRoot: 'things' },
    ),
    ...errors(['invalid_parameters', 'not_found']),
  },
});

/** POST /things */
export const createThing = documented({
  summary: 'Register a thing',
  description:
    'Scope `thing`. `url` required: absolute http(s), at most 2048 characters, not registered yet (api-v2.md "Endpoints / Things", ' +
    'docs/api.md "Things"). 201 with the creation body; `link` is the API address. Invalid fields → 400 `validation`.',
  tags: ['things'],
  security: token('thing'),
  ...formBody(Type.Object({ url: Type.String({ maxLength: 2048, 'x-wire': W.newUrl }), ...thingFields })),
  querystring: Type.Object(JSONP_PARAM),
  response: {
    201: response('Created', ref('Creation')),
    ...errors(['invalid_request', 'validation', 'insufficient_scope']),
  },
});

const updateBody = Type.Object({
  url: Type.Optional(
    Type.String({
      description: 'ignored when equal to the current URL; another → 400 `validation`',
      'x-wire': W.unchangedUrl,
    }),
  ),
  ...thingFields,
});
const updateErrors = errors(['invalid_request', 'validation', 'insufficient_scope', 'forbidden', 'not_found']);

/** PATCH /things/:id */
export const updateThing = documented({
  summary: 'Update a thing',
  description:
    'Scope `thing`, owner only (else 403 `forbidden`): the fields given change, `updated_at` is set (api-v2.md "Endpoints / Things", ' +
    'docs/api.md "Things").',
  tags: ['things'],
  security: token('thing'),
  params: params(ONE_ID),
  ...formBody(updateBody),
  querystring: Type.Object(JSONP_PARAM),
  response: { 200: response('Message body `{message: "ok", description}`', ref('Message')), ...updateErrors },
});

/** POST /things/:id with _method=patch */
export const updateThingOverride = documented({
  summary: 'Update a thing (PATCH workaround)',
  description:
    'A POST with `_method=patch` (query, form or JSON body) acts as PATCH /things/{ids} (api-v2.md conventions 6); without it → 400 `invalid_request`.',
  tags: ['things'],
  security: token('thing'),
  params: params(ONE_ID),
  ...formBody(Type.Object({ _method: Type.Optional(Type.Literal('patch')), ...updateBody.properties }), {
    optional: true,
  }),
  querystring: Type.Object({ _method: Type.Optional(Type.String({ description: '`patch`' })), ...JSONP_PARAM }),
  response: { 200: response('Message body `{message: "ok", description}`', ref('Message')), ...updateErrors },
});

/** DELETE /things/:id */
export const deleteThing = documented({
  summary: 'Delete a thing',
  description:
    'Scope `thing`, owner only (else 403 `forbidden`). 204 with an empty body; the tips stay in the ledger (docs/api.md "Things").',
  tags: ['things'],
  security: token('thing'),
  params: params(ONE_ID),
  querystring: Type.Object(JSONP_PARAM),
  response: { 204: noContent('Deleted'), ...errors(['insufficient_scope', 'forbidden', 'not_found']) },
});
