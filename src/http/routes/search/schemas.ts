/** Route schema of GET /things/search (api-v2.md "Things", "Search result"; docs/api.md "Search"; docs/adr/0013-openapi.md). */
import { Type } from '@sinclair/typebox';
import {
  documented,
  errors,
  JSONP_PARAM,
  LIST_PARAMS,
  OPTIONAL_TOKEN,
  response,
  SUFFIX_NOTE,
} from '../../schemas/common.ts';
import { ref } from '../../schemas/representations.ts';
import { WIRE } from '../../params.ts';

/** GET /things/search */
export const searchThings = documented({
  summary: 'Search things',
  description:
    'Every parameter optional; empty values mean "not given"; a repeated parameter counts once; bad values → 400 `invalid_parameters` ' +
    '(docs/api.md "Search"). With a token, things carry the caller\'s per-viewer fields and the caller\'s hidden things match. ' +
    `${SUFFIX_NOTE}`,
  tags: ['search'],
  security: OPTIONAL_TOKEN,
  querystring: Type.Object({
    query: Type.Optional(
      Type.String({
        'x-wire': WIRE.text,
        maxLength: 500,
        description: 'words that must all occur in title, description, tags or url',
      }),
    ),
    url: Type.Optional(Type.String({ 'x-wire': WIRE.text, description: 'an absolute http(s) URL: only its thing' })),
    tags: Type.Optional(
      Type.String({
        'x-wire': WIRE.text,
        description:
          'tag expression: `|` OR, `&` or space AND, `!` NOT / but not, parentheses (URL-encode `&` as `%26`)',
      }),
    ),
    language: Type.Optional(Type.String({ 'x-wire': WIRE.text, description: 'a language id or a comma list' })),
    category: Type.Optional(Type.String({ 'x-wire': WIRE.text, description: 'a category id or a comma list' })),
    user: Type.Optional(Type.String({ 'x-wire': WIRE.text, description: "a username: only that user's things" })),
    sort: Type.Optional(
      Type.Union(
        ['relevance', 'trend', 'tips', 'tips_month', 'tips_week', 'tips_day'].map((s) => Type.Literal(s)),
        { 'x-wire': WIRE.text, default: 'relevance' },
      ),
    ),
    ...LIST_PARAMS,
    ...JSONP_PARAM,
  }),
  response: { 200: response('Search result', ref('SearchResult'), { xmlRoot: 'search' }), ...errors([]) },
});
